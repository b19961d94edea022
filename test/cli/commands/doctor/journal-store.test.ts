/**
 * `doctor` with a journal store (a real redis-server): a store that keeps what it is told
 * passes, one without its append-only file is warned about (a restart would lose entries,
 * and re-runs would send those inputs again), one that cannot be reached fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../../../helpers/redis.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe.skipIf(NO_REDIS)('doctor: the journal store', () => {
  const servers: RedisProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it('passes with the append-only file on, warns without it, fails when unreachable', async () => {
    const kept = await startRedis({ appendonly: true });
    const volatile = await startRedis();
    servers.push(kept, volatile);
    const ok = await runCommand(['doctor'], { env: { ...sandbox.env, SIGN_JOURNAL_STORE: kept.url } });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^✓ journal store\s+redis:\/\/127\.0\.0\.1:\d+\/? \(from SIGN_JOURNAL_STORE\): Redis [\d.]+, \d+ ms, append-only file on \(appendfsync everysec\)$/m,
    );
    const warned = await runCommand(['doctor', '--json'], {
      env: { ...sandbox.env, SIGN_JOURNAL_STORE: volatile.url },
    });
    const line = (JSON.parse(warned.stdout) as { check: string; status: string; detail: string }[]).find(
      (c) => c.check === 'journal store',
    );
    expect(line?.status).toBe('warn');
    expect(line?.detail).toContain('it does not persist (appendonly no)');
    const down = await runCommand(['doctor'], {
      env: { ...sandbox.env, SIGN_JOURNAL_STORE: 'redis://:pw-not-shown@127.0.0.1:1' },
    });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^✗ journal store\s+cannot reach redis:\/\/:\*\*\*\*@127\.0\.0\.1:1/m);
    expect(down.stdout + down.stderr).not.toContain('pw-not-shown');
  });
});
