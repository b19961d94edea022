// Shared helpers for the benchmarks: spawning servers, memory readings.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = `${ROOT}bin/sign-cli.js`;

/** Spawns a process and resolves with it and the URL from its first "listening on" line (stdout or stderr). */
export function spawnServer(args, env = {}, { stdout = 'pipe' } = {}) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', stdout, 'pipe'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" from ${args.join(' ')}`)), 15_000);
    const onLine = (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line) ?? /"base_url":"(http:\/\/[^"]+)"/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1], firstLine: line });
      }
    };
    if (child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGINT');
  });
}

/** Resident memory of a process in MB, from /proc (Linux). */
export function rssMb(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return NaN;
  }
}

/** Runs a command, sampling its resident memory; resolves with the peak (VmHWM) in MB and its stdout lines' arrival times. */
export function runMeasured(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', CI: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const arrivals = [];
    let stderr = '';
    let peak = 0;
    const sample = () => {
      try {
        const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        peak = Math.max(peak, kb / 1024);
      } catch {
        // exited between samples
      }
    };
    const timer = setInterval(sample, 25);
    createInterface({ input: child.stdout }).on('line', (line) =>
      arrivals.push({ at: performance.now(), line }),
    );
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, arrivals, stderr, peakMb: Math.round(peak * 10) / 10 });
    });
  });
}

/**
 * An NDJSON file of `n` distinct envelopes, `examples/envelope.json` without its webhook_url,
 * each with its own title and contract id; `customize` may change the base first.
 */
export function envelopesFile(
  dir,
  name,
  n,
  { title, contract, offset = 0, customize = (base) => base } = {},
) {
  const base = customize(JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')));
  delete base.webhook_url;
  const lines = [];
  for (let i = offset; i < offset + n; i++)
    lines.push(JSON.stringify({ ...base, title: `${title} ${i}`, contract_id: `${contract}-${i}` }));
  const path = join(dir, `${name}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/**
 * An environment of the bench's own under `dir`: none of the caller's SIGN_ settings or colour,
 * its config, state, cache and TMPDIR inside `dir` (TMPDIR made), plus `extra`.
 */
export function isolatedEnv(dir, extra = {}) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SIGN_') && name !== 'FORCE_COLOR'),
  );
  Object.assign(env, {
    NO_COLOR: '1',
    SIGN_CONFIG_DIR: join(dir, 'config'),
    SIGN_STATE_DIR: join(dir, 'state'),
    SIGN_CACHE_DIR: join(dir, 'cache'),
    TMPDIR: join(dir, 'tmp'),
    ...extra,
  });
  mkdirSync(env.TMPDIR);
  return env;
}
