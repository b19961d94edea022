import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LockedError,
  lockHolder,
  takeLockFile,
  takePidLock,
  type LockFiles,
} from '../../src/core/journal/pid-lock.js';
import { ROOT } from '../helpers/paths.js';
import { ensureFreshBuild } from '../helpers/fresh-build.js';

// These run the built dist/ (the package as installed): build it when src/ is newer.
ensureFreshBuild();

const what = (pid: number) => `held by ${pid}`;
/** Every directory a test made, removed at the end (tests leave nothing in TMPDIR). */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('takePidLock', () => {
  it('holds against a second take in the same process, and releases only its own lock', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
    const release = takePidLock(path, what);
    expect(() => takePidLock(path, what)).toThrow(LockedError);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      pid: process.pid,
      token: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    release();
    release();
    const again = takePidLock(path, what);
    again();
  });

  it('takes over a lock left by a dead process', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
    writeFileSync(path, '999999999 deadbeefdeadbeef');
    const release = takePidLock(path, what);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('takes over a lock whose pid is alive but is another process now (another start time)', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
    // Pid 1 always exists; a lock naming it with a start time it does not have is stale (a killed container's PID 1).
    writeFileSync(path, JSON.stringify({ pid: 1, token: 'deadbeefdeadbeef', start: '1' }));
    expect(lockHolder(path)).toBeUndefined();
    const release = takePidLock(path, what);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    release();
  });

  it('takes over a lock from a pid namespace with no process left, or from another boot; keeps a live one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-'));
    const path = join(dir, 'x.lock');
    writeFileSync(path, JSON.stringify({ pid: 1, token: 'deadbeefdeadbeef', pidns: 'pid:[1]' }));
    expect(lockHolder(path)).toBeUndefined();
    writeFileSync(
      path,
      JSON.stringify({
        pid: process.pid,
        token: 'deadbeefdeadbeef',
        boot: '00000000-0000-0000-0000-000000000000',
      }),
    );
    expect(lockHolder(path)).toBeUndefined();
    // An older lock (`<pid> <token>`) of a live process holds.
    writeFileSync(path, `${process.pid} deadbeefdeadbeef`);
    expect(lockHolder(path)).toBe(process.pid);
  });

  it('lets exactly one of many processes racing for it win', async () => {
    for (const stale of [false, true]) {
      const dir = mkdtempSync(join(tmpdir(), 'lock-race-'));
      dirs.push(dir);
      const path = join(dir, 'x.lock');
      if (stale) writeFileSync(path, '999999999 deadbeefdeadbeef');
      // The module as a file a plain node process imports (the library's bundle does not export it).
      const module = join(dir, 'pid-lock.mjs');
      await build({
        entryPoints: [join(ROOT, 'src/core/journal/pid-lock.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: module,
        logLevel: 'silent',
      });
      // The winner holds the lock until every process has answered: it used to hold it for
      // 1.5 s, and under load a process that started later found the winner gone, took its
      // lock over (rightly: its holder had exited) and won too ("won, won"). Now the parent
      // closes the winner's stdin only once all twelve have said won or lost.
      const script = `
        import { takePidLock } from ${JSON.stringify(module)};
        let won = false;
        try { takePidLock(${JSON.stringify(path)}, () => 'held'); won = true; } catch {}
        console.log(won ? 'won' : 'lost');
        if (won) process.stdin.on('end', () => process.exit(0)).resume();`;
      const children = Array.from({ length: 12 }, () =>
        spawn(process.execPath, ['--input-type=module', '-e', script], {
          stdio: ['pipe', 'pipe', 'inherit'],
        }),
      );
      const closed = children.map((child) => new Promise((resolve) => child.on('close', resolve)));
      const results = await Promise.all(
        children.map(
          (child) =>
            new Promise<string>((resolve) => {
              let out = '';
              child.stdout.setEncoding('utf8').on('data', (c: string) => {
                out += c;
                if (out.includes('\n')) resolve(out.trim());
              });
              child.on('close', () => resolve(out.trim()));
            }),
        ),
      );
      for (const child of children) {
        child.stdin.on('error', () => {}); // a loser has exited: its stdin is gone
        child.stdin.end();
      }
      await Promise.all(closed);
      expect(
        results.filter((r) => r === 'won'),
        results.join(', '),
      ).toHaveLength(1);
    }
  });

  it('never lets two takers hold it, whatever other takers do between any two of its file operations', () => {
    // Every interleaving of three takers of a stale lock, run in this process one file operation
    // at a time: B runs whole after A's k-th operation, C after its m-th (m >= k). Moving a stale
    // lock aside and giving it back when it was a live one (the way before) loses the live one
    // when C links between: A at the rename, B having taken it over just before.
    const take = (path: string, files?: LockFiles) => {
      try {
        return takeLockFile(path, what, files);
      } catch (error) {
        if (error instanceof LockedError) return undefined;
        throw error;
      }
    };
    let interleavings = 0;
    for (let k = 1; k <= 16; k++) {
      for (let m = k; m <= 16; m++) {
        const dir = mkdtempSync(join(tmpdir(), 'lock-steps-'));
        dirs.push(dir);
        const path = join(dir, 'x.lock');
        writeFileSync(path, '999999999 deadbeefdeadbeef');
        const others: ((() => void) | undefined)[] = [];
        let step = 0;
        // Each operation is done, then the takers due after it run, then its outcome (a throw: EEXIST) goes back to A.
        const stepwise =
          <Args extends unknown[], R>(op: (...args: Args) => R) =>
          (...args: Args): R => {
            let outcome: { value: R } | { error: unknown };
            try {
              outcome = { value: op(...args) };
            } catch (error) {
              outcome = { error };
            }
            step++;
            // A's take only: its release (after the count) runs alone.
            if (step === k) others.push(take(path));
            if (step === m) others.push(take(path));
            if ('error' in outcome) throw outcome.error;
            return outcome.value;
          };
        const stepped: LockFiles = {
          write: stepwise((p: string, c: string) => writeFileSync(p, c, { flag: 'wx' })),
          link: stepwise((from: string, to: string) => linkSync(from, to)),
          read: stepwise((p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined)),
          remove: stepwise((p: string) => rmSync(p, { force: true })),
        };
        const a = take(path, stepped);
        step = Number.NEGATIVE_INFINITY;
        const holders = [a, ...others].filter((release) => release !== undefined);
        expect(holders, `B after step ${k}, C after step ${m}`).toHaveLength(1);
        if (others.length === 2) interleavings++;
        for (const release of holders) release();
        expect(readdirSync(dir), `B after step ${k}, C after step ${m}`).toEqual([]);
      }
    }
    expect(interleavings).toBeGreaterThan(20);
  });

  it.skipIf(process.platform !== 'linux')(
    'takes over a lock whose holder was killed but not reaped yet (a zombie)',
    async () => {
      // sh starts a child that waits for a line, then becomes `sleep`, which never reaps it; the line
      // is sent once sh is sleep, so the child exits under a parent that leaves it a zombie.
      const parent = spawn('sh', ['-c', 'exec 3<&0; (read x <&3) & echo $!; exec sleep 60'], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      try {
        const pid = Number(
          await new Promise<string>((resolve) => parent.stdout.setEncoding('utf8').once('data', resolve)),
        );
        const stat = () => readFileSync(`/proc/${pid}/stat`, 'utf8');
        // Each wait below turns on a process run, not a timer.
        while (readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() !== 'sleep') spawnSync('true');
        await new Promise<void>((resolve) => parent.stdin.write('exit\n', () => resolve()));
        while (!/\) Z /.test(stat())) spawnSync('true');
        const fields = stat()
          .slice(stat().lastIndexOf(')') + 2)
          .split(' ');
        const dir = mkdtempSync(join(tmpdir(), 'lock-'));
        dirs.push(dir);
        const path = join(dir, 'x.lock');
        writeFileSync(
          path,
          JSON.stringify({
            pid,
            token: 'deadbeefdeadbeef',
            start: fields[19],
            pidns: readlinkSync('/proc/self/ns/pid'),
          }),
        );
        expect(lockHolder(path)).toBeUndefined();
        takePidLock(path, what)();
      } finally {
        parent.kill();
      }
    },
  );

  const canUnshare =
    process.platform === 'linux' &&
    process.getuid?.() === 0 &&
    spawnSync('unshare', ['--pid', '--fork', 'true']).status === 0;
  it.skipIf(!canUnshare)(
    'in a pid namespace that still has processes, looks for the holder itself, and says so when it holds',
    async () => {
      // A container whose PID 1 (sleep) still runs: a lock of its pid 2, gone, is stale; one of its pid 1 holds.
      const container = spawn('unshare', ['--pid', '--fork', 'sleep', '60'], { stdio: 'ignore' });
      try {
        let inside: string | undefined;
        while (!inside) {
          inside =
            readFileSync(`/proc/${container.pid}/task/${container.pid}/children`, 'utf8')
              .trim()
              .split(' ')[0] || undefined;
          if (!inside) spawnSync('true'); // until unshare has forked (each turn is a process run, no timer)
        }
        let ns = readlinkSync(`/proc/${inside}/ns/pid`);
        while (ns === readlinkSync('/proc/self/ns/pid')) ns = readlinkSync(`/proc/${inside}/ns/pid`);
        const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
        dirs.push(join(path, '..'));
        writeFileSync(path, JSON.stringify({ pid: 2, token: 'deadbeefdeadbeef', pidns: ns }));
        expect(lockHolder(path)).toBeUndefined();
        takePidLock(path, what)();
        writeFileSync(path, JSON.stringify({ pid: 1, token: 'deadbeefdeadbeef', pidns: ns }));
        expect(lockHolder(path)).toBe(1);
        expect(() => takePidLock(path, what)).toThrow(
          `held by 1; its holder is pid 1 of another pid namespace (a container), pid ${inside} here`,
        );
      } finally {
        container.kill();
      }
    },
  );
});
