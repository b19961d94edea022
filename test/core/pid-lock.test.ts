import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockedError, lockHolder, takePidLock } from '../../src/core/pid-lock.js';
import { ROOT } from '../helpers/paths.js';
import { ensureFreshBuild } from '../helpers/fresh-build.js';

// These run the built dist/ (the package as installed): build it when src/ is newer.
ensureFreshBuild();

const what = (pid: number) => `held by ${pid}`;

describe('takePidLock', () => {
  it('holds against a second take in the same process, and releases only its own lock', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
    const release = takePidLock(path, what);
    expect(() => takePidLock(path, what)).toThrow(LockedError);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, token: expect.stringMatching(/^[0-9a-f]{16}$/) });
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
    writeFileSync(path, JSON.stringify({ pid: process.pid, token: 'deadbeefdeadbeef', boot: '00000000-0000-0000-0000-000000000000' }));
    expect(lockHolder(path)).toBeUndefined();
    // An older lock (`<pid> <token>`) of a live process holds.
    writeFileSync(path, `${process.pid} deadbeefdeadbeef`);
    expect(lockHolder(path)).toBe(process.pid);
  });

  it('lets exactly one of many processes racing for it win', async () => {
    for (const stale of [false, true]) {
      const dir = mkdtempSync(join(tmpdir(), 'lock-race-'));
      const path = join(dir, 'x.lock');
      if (stale) writeFileSync(path, '999999999 deadbeefdeadbeef');
      // The module as a file a plain node process imports (the library's bundle does not export it).
      const module = join(dir, 'pid-lock.mjs');
      await build({ entryPoints: [join(ROOT, 'src/core/pid-lock.ts')], bundle: true, platform: 'node', format: 'esm', outfile: module, logLevel: 'silent' });
      const script = `
        import { takePidLock } from ${JSON.stringify(module)};
        try { takePidLock(${JSON.stringify(path)}, () => 'held'); console.log('won'); setTimeout(() => {}, 1500); }
        catch { console.log('lost'); }`;
      const results = await Promise.all(
        Array.from({ length: 12 }, () => new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
          child.on('close', () => resolve(out.trim()));
        })),
      );
      expect(results.filter((r) => r === 'won')).toHaveLength(1);
    }
  }, 20_000);
});
