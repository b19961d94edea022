/**
 * `--rate-store` as a user meets it, with the built CLI, a real sandbox and a
 * real redis-server: where the URL comes from and how a bad one is refused
 * (exit 2, nothing sent), a password never shown, a store that cannot be
 * reached (one warning, the envelope still created), and `doctor`.
 * The three-runner figures are in test/reliability/shared-budget.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
/** Nothing listens on port 1 of the loopback. */
const NOWHERE = 'redis://127.0.0.1:1';
const PASSWORD = 'hunter2-rate-store-password';

let sandbox: SandboxProcess;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox?.stop();
});

const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

describe('--rate-store: the URL', () => {
  it('a URL that is not redis:// is exit 2, names where it came from, and nothing is sent', async () => {
    const before = await requests();
    const flag = await runCli(
      ['envelopes', 'create', '-f', EXAMPLE, '--rate-store', 'http://127.0.0.1:6379'],
      { env },
    );
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim().split('\n')).toHaveLength(1);
    expect(flag.stderr).toContain(
      '--rate-store must be a redis:// or rediss:// URL, got "http://127.0.0.1:6379"',
    );
    const fromEnv = await runCli(['envelopes', 'create', '-f', EXAMPLE], {
      env: { ...env, SIGN_RATE_STORE: 'redis://127.0.0.1:6379/not-a-db' },
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('SIGN_RATE_STORE: the path must be a database number such as /0');
    // The only request since is the count itself.
    expect(await requests()).toBe(before + 1);
  });

  it('the rate_store setting is checked when set and its password never shown', async () => {
    const configEnv = { ...env, SIGN_CONFIG_DIR: tempDir('sign-cli-config-') };
    const bad = await runCli(['config', 'set', 'rate_store', 'localhost:6379'], { env: configEnv });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rate_store must be a redis:// or rediss:// URL, got "localhost:6379"');
    const url = `redis://:${PASSWORD}@127.0.0.1:6379/0`;
    const set = await runCli(['config', 'set', 'rate_store', url], { env: configEnv });
    expect(set.code).toBe(0);
    const get = await runCli(['config', 'get', 'rate_store'], { env: configEnv });
    expect(get.stdout.trim()).toBe('redis://:****@127.0.0.1:6379/0');
    const list = await runCli(['config', 'list'], { env: configEnv });
    const listJson = await runCli(['config', 'list', '--json'], { env: configEnv });
    expect(listJson.stdout).toContain('redis://:****@127.0.0.1:6379/0');
    for (const result of [set, get, list, listJson])
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    // Unencoded, a "/" in a password breaks the URL: the message still masks it, and says how to encode it.
    for (const unencoded of [
      `redis://:${PASSWORD}/x+y==@127.0.0.1:6379`,
      `redis://user:${PASSWORD}/0@127.0.0.1:6379`,
    ]) {
      const broken = await runCli(['config', 'set', 'rate_store', unencoded], { env: configEnv });
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain('must be percent-encoded');
      expect(broken.stderr).not.toContain(PASSWORD);
    }
    // The file itself holds it (mode 0600, like the keys).
    expect(readFileSync(join(configEnv.SIGN_CONFIG_DIR, 'config.json'), 'utf8')).toContain(PASSWORD);
  });

  it('a store that cannot be reached is one warning; the envelope is still created (exit 0)', async () => {
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--json', '--new'], {
      env: { ...env, SIGN_RATE_STORE: `redis://:${PASSWORD}@127.0.0.1:1` },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).envelope.id).toMatch(/^env_/);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('rate store'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: rate store redis:\/\/:\*\*\*\*@127\.0\.0\.1:1 unreachable \(.*ECONNREFUSED.*\); pacing locally at the full rate$/,
    );
    expect(result.stderr).not.toContain(PASSWORD);
  });

  it('doctor fails the check of a store it cannot reach (exit 1), and says what that means', async () => {
    const result = await runCli(['doctor', '--rate-store', NOWHERE], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /✗ rate store cannot reach redis:\/\/127\.0\.0\.1:1 \(from --rate-store\): .*ECONNREFUSED.*; runs would each pace alone/,
    );
  });

  it('doctor says nothing about a store when none is configured (Redis is never needed by default)', async () => {
    const result = await runCli(['doctor'], { env });
    expect(result.stdout).not.toContain('rate store');
  });
});

describe.skipIf(NO_REDIS)('--rate-store with a real redis-server', () => {
  let redis: RedisProcess;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('create takes its slot from the budget in Redis, named by a hash, never the key', async () => {
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--json', '--new', '--verbose'], {
      env: { ...env, SIGN_RATE_STORE: redis.url },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /rate budget shared through SIGN_RATE_STORE \(sign-cli:rate:\{[0-9a-f]{32}\}\)/,
    );
    expect(result.stderr).not.toMatch(/warning: rate store/);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const keys = await raw.sendCommand<string[]>(['KEYS', '*']);
      expect(keys.some((k) => k.endsWith(':slots'))).toBe(true);
      for (const key of keys) expect(key).not.toContain(sandbox.apiKey.slice(8));
      const slots = await raw.sendCommand<string>(['ZCARD', keys.find((k) => k.endsWith(':slots'))!]);
      expect(Number(slots)).toBe(1);
    } finally {
      await raw.close();
    }
  });

  it("doctor checks the store: reachable, its version, and who shares this key's budget", async () => {
    const result = await runCli(['doctor'], { env: { ...env, SIGN_RATE_STORE: redis.url } });
    expect(result.stdout).toMatch(
      new RegExp(
        `✓ rate store redis://127\\.0\\.0\\.1:${redis.port} \\(from SIGN_RATE_STORE\\): Redis \\d+\\.\\d+\\.\\d+, \\d+ ms; this key's budget: 1 request in the last minute, 0 runs sharing it now`,
      ),
    );
    const json = await runCli(['doctor', '--json'], { env: { ...env, SIGN_RATE_STORE: redis.url } });
    const check = (JSON.parse(json.stdout) as { check: string; status: string }[]).find(
      (c) => c.check === 'rate store',
    );
    expect(check?.status).toBe('ok');
  });
});
