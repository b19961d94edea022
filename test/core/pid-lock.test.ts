import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockedError, takePidLock } from '../../src/core/pid-lock.js';
import { ROOT } from '../helpers/cli.js';

const what = (pid: number) => `held by ${pid}`;

describe('takePidLock', () => {
  it('holds against a second take in the same process, and releases only its own lock', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
    const release = takePidLock(path, what);
    expect(() => takePidLock(path, what)).toThrow(LockedError);
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^${process.pid} [0-9a-f]{16}$`));
    release();
    release();
    const again = takePidLock(path, what);
    again();
  });

  it('takes over a lock left by a dead process', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lock-')), 'x.lock');
    writeFileSync(path, '999999999 deadbeefdeadbeef');
    const release = takePidLock(path, what);
    expect(readFileSync(path, 'utf8').startsWith(`${process.pid} `)).toBe(true);
    release();
  });

  it('lets exactly one of many processes racing for it win', async () => {
    for (const stale of [false, true]) {
      const dir = mkdtempSync(join(tmpdir(), 'lock-race-'));
      const path = join(dir, 'x.lock');
      if (stale) writeFileSync(path, '999999999 deadbeefdeadbeef');
      const script = `
        import { takePidLock } from ${JSON.stringify(join(ROOT, 'src/core/pid-lock.ts').replace(/\.ts$/, '.js').replace('/src/', '/dist/'))};
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
