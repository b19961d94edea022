/**
 * Bulk creation against a real sandbox: 500 envelopes from NDJSON, a run
 * killed halfway and re-run, lost responses, and an invalid line.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const BASE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
const work = tempDir('sign-cli-bulk-');

/** N distinct valid envelopes, one per line. */
function ndjson(name: string, n: number, change?: (i: number, e: Record<string, unknown>) => void): string {
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    const { webhook_url: _w, ...envelope } = structuredClone(BASE);
    const e: Record<string, unknown> = {
      ...envelope,
      title: `Bulk ${name} ${i}`,
      contract_id: `BULK-${name}-${i}`,
    };
    change?.(i, e);
    lines.push(JSON.stringify(e));
  }
  const path = join(work, `${name}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

let sandbox: SandboxProcess;
let env: Record<string, string>;
beforeAll(async () => {
  // The per-key limit is raised with the client's rate, so "no 429" is the pacer's doing, not luck.
  sandbox = await startSandboxProcess({ args: ['--rate-limit', '6000'] });
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox?.stop();
});

async function state() {
  return sandbox.control<{ envelopes: number; rate_limited: number; created: number }>('/_sandbox/state');
}

describe('envelopes create --ndjson', () => {
  it('creates 500 envelopes paced under the limit, with no 429, one JSON line per input', async () => {
    const file = ndjson('five-hundred', 500);
    const before = await state();
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { input: string; status: string; envelope: { id: string } });
    expect(lines).toHaveLength(500);
    expect(lines.every((l) => l.status === 'created')).toBe(true);
    expect(new Set(lines.map((l) => l.input)).size).toBe(500);
    expect(lines.map((l) => l.input)).toContain(`${file}:250`);
    expect(new Set(lines.map((l) => l.envelope.id)).size).toBe(500);
    const after = await state();
    expect(after.envelopes - before.envelopes).toBe(500);
    expect(after.rate_limited - before.rate_limited).toBe(0);
    expect(result.stderr).toContain('created 500 in test, already created 0, failed 0');
    expect(result.stderr).not.toContain('Warning');
  });

  it('stops before sending anything when one line is invalid, naming file:line and the JSON path', async () => {
    const file = ndjson('one-bad', 300, (i, e) => {
      if (i === 250) (e.signers as Record<string, unknown>[])[1]!.phone = '0501234567';
      if (i === 7) e.expires_in_days = 0;
    });
    const before = await state();
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:250: signers[1].phone`);
    expect(result.stderr).toContain(`${file}:7: expires_in_days`);
    expect(result.stderr).toContain('2 of 300 inputs are invalid; nothing was sent');
    expect((await state()).envelopes).toBe(before.envelopes);
  });

  it('reports a broken JSON line with its line and column', async () => {
    const file = join(work, 'broken.ndjson');
    writeFileSync(file, `${JSON.stringify(BASE)}\n{"title": "x",\n`);
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: invalid JSON at line 2, column 15`);
  });

  it('survives lost responses: still exactly one envelope per line', async () => {
    const file = ndjson('lossy', 100);
    await sandbox.control('/_sandbox/faults', { drop_after_commit: 15 });
    const before = await state();
    const result = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(result.code).toBe(0);
    expect((await state()).envelopes - before.envelopes).toBe(100);
    const replayed = result.stdout
      .trim()
      .split('\n')
      .filter((l) => JSON.parse(l).status === 'created');
    expect(replayed).toHaveLength(100);
  });

  it('a run killed with SIGKILL halfway, then re-run, leaves exactly one envelope per line', async () => {
    const file = ndjson('killed', 500);
    const stateDir = tempDir('sign-cli-journal-');
    await sandbox.control('/_sandbox/faults', { latency_ms: 40 });
    const before = await state();
    try {
      const child = spawn(
        process.execPath,
        [BIN, 'envelopes', 'create', '--ndjson', '-f', file, '--rate', '3000', '--json'],
        {
          env: cleanEnv({ ...env, SIGN_STATE_DIR: stateDir }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let seen = 0;
      await new Promise<void>((resolve) => {
        createInterface({ input: child.stdout }).on('line', () => {
          if (++seen === 150) {
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.on('exit', () => resolve());
      });
      await new Promise((resolve) => child.once('close', resolve));
      const mid = await state();
      expect(mid.envelopes - before.envelopes).toBeGreaterThanOrEqual(150);
      expect(mid.envelopes - before.envelopes).toBeLessThan(500);

      const rerun = await runCli(
        ['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000', '--json'],
        { env: { ...env, SIGN_STATE_DIR: stateDir }, timeoutMs: 60_000 },
      );
      expect(rerun.code).toBe(0);
      expect(rerun.stderr).toContain('resuming an earlier run');
      expect((await state()).envelopes - before.envelopes).toBe(500);
      const lines = rerun.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { skipped?: boolean });
      expect(lines).toHaveLength(500);
      expect(lines.filter((l) => l.skipped).length).toBeGreaterThanOrEqual(150);
      // Finished, and run again: nothing is sent, all 500 are reported as already created.
      const requests = (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;
      const third = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000'], {
        env: { ...env, SIGN_STATE_DIR: stateDir },
      });
      expect(third.code).toBe(0);
      expect(third.stderr).toContain('created 0 in test, already created 500, failed 0; nothing was sent');
      expect((await sandbox.control<{ requests: number }>('/_sandbox/state')).requests).toBe(requests + 1);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });

  it('takes several files and directories, and NDJSON from stdin', async () => {
    const dir = join(work, 'dir');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ ...BASE, title: 'dir a' }));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...BASE, title: 'dir b' }));
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const before = await state();
    const files = await runCli(
      ['envelopes', 'create', '-f', dir, '-f', join(ROOT, 'examples', 'envelope.json'), '--json'],
      { env },
    );
    expect(files.code).toBe(0);
    expect(
      files.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).input)
        .sort(),
    ).toEqual([join(dir, 'a.json'), join(dir, 'b.json'), join(ROOT, 'examples', 'envelope.json')].sort());
    const stdin = await runCli(['envelopes', 'create', '--ndjson', '-f', '-', '--json'], {
      env,
      input: readFileSync(join(ROOT, 'examples', 'envelopes.ndjson'), 'utf8'),
    });
    expect(stdin.code).toBe(0);
    expect(
      stdin.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).input)
        .sort(),
    ).toEqual(['-:1', '-:2', '-:3', '-:4', '-:5']);
    expect((await state()).envelopes - before.envelopes).toBe(8);
  });
});
