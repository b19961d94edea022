/**
 * A hostile world, the storage and process part, on the built binary: full
 * and read-only disks (small tmpfs mounts), state that another user can
 * write, a container's PID 1 killed, a terminal that hangs up. Mounting,
 * chown and pid namespaces need root: outside CI a non-root run skips these
 * with a note; in CI (root) they must run.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import {
  baseEnvelope,
  countEnvelopes,
  parseLines,
  sleep,
  spawnCli,
  summary,
  writeNdjson,
} from './support.js';

const isRoot = process.getuid?.() === 0;
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
if (!isRoot) {
  if (inCi)
    throw new Error(
      'the storage and container tests need root (mounts, chown, pid namespaces), and CI runs as root',
    );
  console.warn(
    'hostile-storage: skipped (needs root for tmpfs mounts, chown and pid namespaces); CI runs them',
  );
}
const rootIt = isRoot ? it : it.skip;

const mounts: string[] = [];
/** A tmpfs of `kb` KiB (options such as `ro`); unmounted after the file's tests. */
function tmpfs(kb: number, options = ''): string {
  const dir = tempDir('sign-cli-tmpfs-');
  const result = spawnSync('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${kb}k${options ? `,${options}` : ''}`,
    'tmpfs',
    dir,
  ]);
  if (result.status !== 0) throw new Error(`mount tmpfs: ${result.stderr.toString()}`);
  mounts.push(dir);
  return dir;
}
/** Fills `dir`'s file system until `leave` bytes are free; returns the filler to remove. */
function fill(dir: string, leave: number): string {
  const { bavail, bsize } = statfsSync(dir);
  const filler = join(dir, 'filler');
  writeFileSync(filler, Buffer.alloc(Math.max(0, Number(bavail) * Number(bsize) - leave)));
  return filler;
}

/** Waits until no process is left in the pid namespace `ns` (as the killed container's is, once its PID 1 is gone). */
async function namespaceGone(ns: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  const inNamespace = () =>
    readdirSync('/proc').some(
      (pid) =>
        /^\d+$/.test(pid) &&
        (() => {
          try {
            return readlinkSync(`/proc/${pid}/ns/pid`) === ns;
          } catch {
            return false;
          }
        })(),
    );
  while (inNamespace()) {
    if (Date.now() > deadline) throw new Error(`processes are still running in ${ns}`);
    await sleep(50);
  }
}

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '50'] });
});
afterAll(async () => {
  await sandbox?.stop();
  for (const dir of mounts) spawnSync('umount', ['-l', dir]);
});

describe('a sandbox whose disk fills up', () => {
  rootIt(
    'answers 503 with Retry-After while it cannot write, never crashes, and loses no acknowledged envelope across a restart',
    async () => {
      const disk = tmpfs(32 * 1024);
      const dataDir = join(disk, 'sandbox');
      const first = await startSandboxProcess({ dataDir, args: ['--speed', '50'] });
      let restarted: SandboxProcess | undefined;
      try {
        // A little room: some creates are stored, then none.
        const filler = fill(disk, 24 * 1024);
        const post = (n: number) =>
          fetch(`${first.baseUrl}/api/v1/envelopes`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${first.apiKey}`,
              'content-type': 'application/json',
              'idempotency-key': `disk-${n}`,
            },
            body: JSON.stringify({ ...baseEnvelope(), contract_id: `DISK-${n}`, title: `Disk ${n}` }),
          });
        const statuses: number[] = [];
        const acknowledged: string[] = [];
        let shaped = true;
        for (let n = 1; n <= 300; n++) {
          const response = await post(n);
          statuses.push(response.status);
          const body = (await response.json()) as { id?: string; code?: string };
          if (response.status === 201) acknowledged.push(body.id!);
          else
            shaped &&=
              response.status === 503 &&
              body.code === 'storage_unavailable' &&
              response.headers.get('retry-after') === '5';
        }
        expect(shaped).toBe(true);
        expect(acknowledged.length).toBeGreaterThan(0);
        expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
        expect(first.child.exitCode).toBeNull();
        expect((await fetch(`${first.baseUrl}/_sandbox/health`)).status).toBe(200);
        // Journey timers kept failing to store their steps: still alive once space returns.
        await sleep(1_500);
        rmSync(filler);
        const resent: number[] = [];
        for (let n = 1; n <= 300; n++) {
          const response = await post(n);
          resent.push(response.status);
          await response.arrayBuffer();
        }
        expect(resent.every((s) => s === 201)).toBe(true);
        // The journeys' timers failed to store their steps while the disk was full and kept
        // retrying: every envelope acknowledged then still goes through its signing journey.
        const statusOf = async (id: string) =>
          (
            (await (
              await fetch(`${first.baseUrl}/api/v1/envelopes/${id}`, {
                headers: { authorization: `Bearer ${first.apiKey}` },
              })
            ).json()) as { status: string }
          ).status;
        const journeyDeadline = Date.now() + 60_000;
        let pending = [...acknowledged];
        while (pending.length > 0 && Date.now() < journeyDeadline) {
          const states = await Promise.all(pending.map(async (id) => [id, await statusOf(id)] as const));
          pending = states.filter(([, status]) => status !== 'completed').map(([id]) => id);
          if (pending.length > 0) await sleep(250);
        }
        expect(pending).toEqual([]);
        await first.stop();
        restarted = await startSandboxProcess({ dataDir, args: ['--speed', '50'] });
        let lost = 0;
        for (const id of acknowledged) {
          const response = await fetch(`${restarted.baseUrl}/api/v1/envelopes/${id}`, {
            headers: { authorization: `Bearer ${restarted.apiKey}` },
          });
          await response.arrayBuffer();
          if (response.status !== 200) lost++;
        }
        const counts = await countEnvelopes(restarted.baseUrl, restarted.apiKey, 'DISK-');
        expect(lost).toBe(0);
        expect(counts).toMatchObject({ found: 300, duplicates: 0 });
        recordFigures('hostile', {
          'sandbox on a full disk: requests': 300,
          'sandbox on a full disk: 201 before space returned': acknowledged.length,
          'sandbox on a full disk: 503 with Retry-After': statuses.filter((s) => s === 503).length,
          'sandbox on a full disk: crashes': 0,
          'sandbox on a full disk: acknowledged journeys completed once space returned':
            acknowledged.length - pending.length,
          'sandbox on a full disk: acknowledged, lost after restart': lost,
          'sandbox on a full disk: duplicates after re-sending': counts.duplicates,
        });
      } finally {
        await first.stop();
        await restarted?.stop();
      }
    },
    180_000,
  );
});

describe("the CLI's journal on a full or read-only disk", () => {
  rootIt(
    'mid-run: stops sending, reports every envelope the service acknowledged, exits 1 naming the path; a re-run finishes without duplicates',
    async () => {
      const disk = tmpfs(256);
      const stateDir = join(disk, 'state');
      mkdirSync(stateDir, { mode: 0o700 });
      const file = writeNdjson(tempDir(), 'jdisk', 60);
      const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: stateDir };
      // Room for the probe and a few records, then none.
      const filler = fill(disk, 20 * 1024);
      const run = await runCli(
        ['envelopes', 'create', '--ndjson', '-f', file, '--json', '--concurrency', '4'],
        { env, timeoutMs: 120_000 },
      );
      expect(run.code).toBe(1);
      const errors = run.stderr.split('\n').filter((l) => l.startsWith('error:'));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          `could not write the journal ${stateDir}/journals/create-\\w+\\.jsonl: no space left on the device \\(ENOSPC\\)`,
        ),
      );
      expect(errors[0]).toContain('--journal <file>');
      expect(summary(run.stderr)).toBeDefined();
      const reported = parseLines(run.stdout)
        .filter((l) => l.status === 'created')
        .map((l) => l.envelope!.id);
      const onService = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-jdisk-');
      // Every envelope the service holds was reported: acknowledged-but-unreported 0.
      const unreported = onService.envelopes.filter((e) => !reported.includes(e.id)).length;
      expect(unreported).toBe(0);
      expect(onService.found).toBeLessThan(60);
      rmSync(filler);
      const again = await runCli(['envelopes', 'create', '--ndjson', '-f', file], {
        env,
        timeoutMs: 120_000,
      });
      expect(again.code).toBe(0);
      const after = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-jdisk-');
      expect(after).toMatchObject({ found: 60, duplicates: 0 });
      recordFigures('hostile', {
        'journal disk full mid-run: created before it filled': onService.found,
        'journal disk full mid-run: acknowledged but unreported': unreported,
        'journal disk full mid-run: error lines': errors.length,
        'journal disk full mid-run: duplicates after the re-run': after.duplicates,
      });
    },
    180_000,
  );

  rootIt(
    'before a run: a read-only disk is exit 1 naming the path and a fix, and nothing is sent',
    async () => {
      const disk = tmpfs(64);
      mkdirSync(join(disk, 'state', 'journals'), { recursive: true, mode: 0o700 });
      spawnSync('mount', ['-o', 'remount,ro', disk]);
      const file = join(tempDir(), 'one.json');
      writeFileSync(file, JSON.stringify({ ...baseEnvelope(), contract_id: 'REL-RO-1' }));
      const result = await runCli(['envelopes', 'create', '-f', file], {
        env: {
          SIGN_BASE_URL: sandbox.baseUrl,
          SIGN_API_KEY: sandbox.apiKey,
          SIGN_STATE_DIR: join(disk, 'state'),
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /could not (open|write|take the lock of) the journal .*: the file system is read-only \(EROFS\) \(hint: use a writable place; or keep the journal elsewhere/,
      );
      expect((await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-RO-')).found).toBe(0);
    },
  );
});

describe('state another user can write', () => {
  rootIt(
    "is refused with the path and the fix: a world-writable state dir, another user's config, a journal that is a symlink; a readable config warns",
    async () => {
      const file = join(tempDir(), 'one.json');
      writeFileSync(file, JSON.stringify({ ...baseEnvelope(), contract_id: 'REL-FOREIGN-1' }));
      const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };

      const open = tempDir();
      mkdirSync(join(open, 'journals'), { mode: 0o777 });
      chmodSync(join(open, 'journals'), 0o777);
      const worldWritable = await runCli(['envelopes', 'create', '-f', file], {
        env: { ...env, SIGN_STATE_DIR: open },
      });
      expect(worldWritable.code).toBe(2);
      expect(worldWritable.stderr).toContain(`${open}/journals can be written by other users (mode 0777)`);
      expect(worldWritable.stderr).toContain(`chmod go-w ${open}/journals`);

      const linked = tempDir();
      mkdirSync(join(linked, 'journals'), { mode: 0o700 });
      const run = await runCli(['envelopes', 'create', '-f', file, '--dry-run', '--json'], {
        env: { ...env, SIGN_STATE_DIR: linked },
      });
      expect(run.code).toBe(0);
      // The journal of this command, replaced by a link to a file the user does not mean to write.
      const victim = join(tempDir(), 'victim.txt');
      writeFileSync(victim, 'untouched\n');
      const journal = join(linked, 'journals', 'planted.jsonl');
      symlinkSync(victim, journal);
      const throughLink = await runCli(['envelopes', 'create', '-f', file, '--journal', journal], { env });
      expect(throughLink.code).toBe(2);
      expect(throughLink.stderr).toContain(`${journal} is a symbolic link`);
      expect(readFileSync(victim, 'utf8')).toBe('untouched\n');

      const config = tempDir();
      chownSync(config, 65534, 65534);
      const foreign = await runCli(['config', 'list'], { env: { ...env, SIGN_CONFIG_DIR: config } });
      expect(foreign.code).toBe(2);
      expect(foreign.stderr).toContain(`${config} belongs to another user (uid 65534)`);

      const readable = tempDir();
      await runCli(['keys', 'add', 'p', '--stdin', '--offline'], {
        env: { SIGN_CONFIG_DIR: readable },
        input: sandbox.apiKey,
      });
      chmodSync(join(readable, 'config.json'), 0o644);
      const warned = await runCli(['envelopes', 'list', '--limit', '1'], {
        env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_CONFIG_DIR: readable },
      });
      expect(warned.code).toBe(0);
      expect(warned.stderr).toContain(
        `${readable}/config.json holds API keys and other users can read it (mode 0644): chmod 600 ${readable}/config.json`,
      );
      expect((await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-FOREIGN-')).found).toBe(0);
      recordFigures('hostile', { 'foreign or world-writable state refused': '3/3' });
    },
  );
});

describe('a container without an init', () => {
  rootIt(
    'a run killed as PID 1 of its pid namespace leaves a lock that is not taken for live: the re-run resumes; the sandbox restarts on its data dir',
    async () => {
      const slow = await startSandboxProcess({ args: ['--speed', '50', '--latency', '150'] });
      try {
        const file = writeNdjson(tempDir(), 'pid1', 40);
        const stateDir = tempDir();
        const env = { SIGN_BASE_URL: slow.baseUrl, SIGN_API_KEY: slow.apiKey, SIGN_STATE_DIR: stateDir };
        const inContainer = spawn(
          'unshare',
          [
            '--pid',
            '--fork',
            '--kill-child',
            process.execPath,
            BIN,
            'envelopes',
            'create',
            '--ndjson',
            '-f',
            file,
            '--json',
            '--concurrency',
            '2',
          ],
          { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let lines = 0;
        inContainer.stdout
          .setEncoding('utf8')
          .on('data', (chunk: string) => (lines += chunk.split('\n').length - 1));
        const deadline = Date.now() + 30_000;
        while (lines < 8 && Date.now() < deadline) await sleep(50);
        inContainer.kill('SIGKILL');
        await new Promise((resolve) => inContainer.once('close', resolve));
        const lock = JSON.parse(
          readFileSync(
            spawnSync('sh', ['-c', `ls ${stateDir}/journals/*.lock`], { encoding: 'utf8' }).stdout.trim(),
            'utf8',
          ),
        ) as { pid: number; pidns: string };
        expect(lock.pid).toBe(1);
        // unshare is gone; its child, PID 1 of the namespace, gets its SIGKILL a moment later.
        await namespaceGone(lock.pidns);
        const resumed = await runCli(['envelopes', 'create', '--ndjson', '-f', file], {
          env,
          timeoutMs: 120_000,
        });
        expect(resumed.code).toBe(0);
        const counts = await countEnvelopes(slow.baseUrl, slow.apiKey, 'REL-pid1-');
        expect(counts).toMatchObject({ found: 40, duplicates: 0 });

        const dataDir = tempDir('sign-cli-pid1-sandbox-');
        const sandboxAsPid1 = spawn(
          'unshare',
          [
            '--pid',
            '--fork',
            '--kill-child',
            process.execPath,
            BIN,
            'sandbox',
            '--port',
            '0',
            '--data-dir',
            dataDir,
          ],
          { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const until = Date.now() + 15_000;
        while (spawnSync('test', ['-e', join(dataDir, 'credentials.env')]).status !== 0 && Date.now() < until)
          await sleep(50);
        const sandboxLock = JSON.parse(readFileSync(join(dataDir, 'sandbox.lock'), 'utf8')) as {
          pid: number;
          pidns: string;
        };
        expect(sandboxLock.pid).toBe(1);
        sandboxAsPid1.kill('SIGKILL');
        await new Promise((resolve) => sandboxAsPid1.once('close', resolve));
        await namespaceGone(sandboxLock.pidns);
        const again = await startSandboxProcess({ dataDir });
        await again.stop();
        recordFigures('hostile', {
          'PID-1 kill: re-run resumed, envelopes (duplicates)': `${counts.found} (${counts.duplicates})`,
          'PID-1 kill: sandbox restarted on its data dir': 'yes',
        });
      } finally {
        await slow.stop();
      }
    },
    180_000,
  );
});

describe('a terminal that hangs up', () => {
  it('SIGHUP during a bulk run: nothing new is sent, a summary, exit 130; the re-run makes no duplicate', async () => {
    const slow = await startSandboxProcess({ args: ['--speed', '50', '--latency', '150'] });
    try {
      const file = writeNdjson(tempDir(), 'hup', 60);
      const env = { SIGN_BASE_URL: slow.baseUrl, SIGN_API_KEY: slow.apiKey, SIGN_STATE_DIR: tempDir() };
      const run = spawnCli(['envelopes', 'create', '--ndjson', '-f', file, '--json', '--concurrency', '4'], {
        env,
        timeoutMs: 120_000,
      });
      const deadline = Date.now() + 30_000;
      while (run.lines.length < 10 && Date.now() < deadline) await sleep(20);
      run.child.kill('SIGHUP');
      const result = await run.done;
      expect(result.code).toBe(130);
      const said = summary(result.stderr);
      expect(said).toBeDefined();
      expect(result.stderr).toContain('the rest not sent');
      const again = await runCli(['envelopes', 'create', '--ndjson', '-f', file], {
        env,
        timeoutMs: 120_000,
      });
      expect(again.code).toBe(0);
      const counts = await countEnvelopes(slow.baseUrl, slow.apiKey, 'REL-hup-');
      expect(counts).toMatchObject({ found: 60, duplicates: 0 });
      recordFigures('hostile', {
        'SIGHUP mid-run: exit code': result.code ?? -1,
        'SIGHUP mid-run: summary printed': 'yes',
        'SIGHUP mid-run: duplicates after the re-run': counts.duplicates,
      });
    } finally {
      await slow.stop();
    }
  }, 180_000);
});
