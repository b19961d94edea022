/**
 * `--journal-store` as a user meets it, with the built CLI, a real sandbox and
 * a real redis-server. Each run has a HOME and state directory of its own, as
 * a CI job on a fresh machine has: only the store is shared.
 * - A journal that outlives the service's memory of an Idempotency-Key: after
 *   the sandbox forgot the keys, a run on a fresh machine creates nothing
 *   again; without the store (the control) it creates every envelope twice.
 * - A store that cannot be reached is exit 1 before anything is sent; a bad
 *   URL, or a store with --journal, is exit 2 in one line.
 * - Environments and accounts on one Redis are kept apart, and another
 *   application's keys in that Redis are left alone.
 * The three-runner and fault figures are in test/reliability/journal-store.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { countEnvelopes, parseLines, sleep, writeNdjson } from '../reliability/support.js';

/** Nothing listens on port 1 of the loopback. */
const NOWHERE = 'redis://127.0.0.1:1';

const work = tempDir('sign-cli-journal-store-');
let sandbox: SandboxProcess;
let redis: RedisProcess | undefined;
beforeAll(async () => {
  // Keys forgotten 5 s after their first use: a re-run after that is only as safe as its journal.
  sandbox = await startSandboxProcess({
    dataDir: mkdtempSync(join(work, 'sandbox-')),
    args: ['--idempotency-retention', '5s', '--rate-limit', '6000'],
  });
  if (!NO_REDIS) redis = await startRedis();
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), redis?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

let runners = 0;
/** A machine of its own: HOME, state and config directories no other run sees. */
function freshMachine(): Record<string, string> {
  const home = join(work, `home-${++runners}`);
  return { HOME: home, SIGN_STATE_DIR: join(home, 'state'), SIGN_CONFIG_DIR: join(home, 'config') };
}

function create(file: string, options: { key?: string; store?: string; extra?: string[] } = {}) {
  return runCli(
    [
      'envelopes',
      'create',
      '--ndjson',
      '-f',
      file,
      '--json',
      '--rate',
      '6000',
      ...(options.store ? ['--journal-store', options.store] : []),
      ...(options.extra ?? []),
    ],
    {
      env: {
        ...freshMachine(),
        SIGN_BASE_URL: sandbox.baseUrl,
        SIGN_API_KEY: options.key ?? sandbox.apiKey,
      },
      timeoutMs: 30_000,
    },
  );
}

const state = () => sandbox.control<{ requests: number; envelopes: number }>('/_sandbox/state');

/** `sent 3, created elsewhere 2: created 3 in test, failed 0` */
function sharedSummary(stderr: string): { sent: number; elsewhere: number; created: number } | undefined {
  const match = /sent (\d+), created elsewhere (\d+): created (\d+)/.exec(stderr);
  return match
    ? { sent: Number(match[1]), elsewhere: Number(match[2]), created: Number(match[3]) }
    : undefined;
}

describe('--journal-store: the URL, and a store that cannot be reached', () => {
  it('a URL that is not redis://, from the flag or SIGN_JOURNAL_STORE, is exit 2 in one line; nothing is sent', async () => {
    const file = writeNdjson(work, 'bad-url', 3);
    const before = await state();
    const flag = await create(file, { store: 'http://x' });
    expect(flag.code).toBe(2);
    expect(flag.stderr.trim().split('\n')).toHaveLength(1);
    expect(flag.stderr).toContain('--journal-store must be a redis:// or rediss:// URL, got "http://x"');
    const fromEnv = await runCli(['envelopes', 'create', '--ndjson', '-f', file], {
      env: {
        ...freshMachine(),
        SIGN_BASE_URL: sandbox.baseUrl,
        SIGN_API_KEY: sandbox.apiKey,
        SIGN_JOURNAL_STORE: 'nonsense',
      },
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr.trim().split('\n')).toHaveLength(1);
    expect(fromEnv.stderr).toContain('SIGN_JOURNAL_STORE is not a valid URL: "nonsense"');
    const after = await state();
    // The only request since is the count itself.
    expect(after.requests).toBe(before.requests + 1);
    expect(after.envelopes).toBe(before.envelopes);
  });

  it('--journal or --new with --journal-store (or SIGN_JOURNAL_STORE) is exit 2', async () => {
    const file = writeNdjson(work, 'two-journals', 3);
    const before = await state();
    const both = await create(file, { store: NOWHERE, extra: ['--journal', join(work, 'j.journal')] });
    expect(both.code).toBe(2);
    expect(both.stderr.trim().split('\n')).toHaveLength(1);
    expect(both.stderr).toContain('--journal and --journal-store name two journals');
    const fromEnv = await runCli(
      ['envelopes', 'create', '--ndjson', '-f', file, '--journal', join(work, 'j.journal')],
      {
        env: {
          ...freshMachine(),
          SIGN_BASE_URL: sandbox.baseUrl,
          SIGN_API_KEY: sandbox.apiKey,
          SIGN_JOURNAL_STORE: NOWHERE,
        },
      },
    );
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('--journal and SIGN_JOURNAL_STORE name two journals');
    // --new with a shared journal would create every input once per runner: refused.
    const fresh = await create(file, { store: NOWHERE, extra: ['--new'] });
    expect(fresh.code).toBe(2);
    expect(fresh.stderr.trim().split('\n')).toHaveLength(1);
    expect(fresh.stderr).toContain('--new creates every input again under fresh keys');
    const after = await state();
    expect(after.requests).toBe(before.requests + 1);
    expect(after.envelopes).toBe(before.envelopes);
  });

  it('a store that cannot be reached at the start is exit 1, names the store, and nothing is sent', async () => {
    const file = writeNdjson(work, 'unreachable', 3);
    const before = await state();
    const result = await create(file, { store: NOWHERE });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('journal store redis://127.0.0.1:1 is unreachable');
    expect(result.stderr).toContain('nothing was sent');
    const after = await state();
    expect(after.requests).toBe(before.requests + 1);
    expect(after.envelopes).toBe(before.envelopes);
  });
});

describe.skipIf(NO_REDIS)('--journal-store with a real redis-server', () => {
  it('the journal outlives the Idempotency-Keys: after the sandbox forgot them, a fresh machine creates nothing again; without the store, all 20 twice', async () => {
    const shared = writeNdjson(work, 'retained', 20);
    const alone = writeNdjson(work, 'alone', 20);
    const [first, firstAlone] = await Promise.all([create(shared, { store: redis!.url }), create(alone)]);
    expect([first.code, firstAlone.code]).toEqual([0, 0]);
    expect(parseLines(first.stdout).filter((l) => l.status === 'created' && !l.skipped)).toHaveLength(20);
    expect(sharedSummary(first.stderr)).toEqual({ sent: 20, elsewhere: 0, created: 20 });
    expect((await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-retained-')).found).toBe(20);
    expect((await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-alone-')).found).toBe(20);

    // Past the sandbox's retention: the same Idempotency-Key would now make a new envelope.
    await sleep(5_500);
    const [second, secondAlone] = await Promise.all([create(shared, { store: redis!.url }), create(alone)]);
    expect(second.code).toBe(0);
    const lines = parseLines(second.stdout);
    expect(lines).toHaveLength(20);
    for (const line of lines)
      expect(line).toMatchObject({
        status: 'created',
        skipped: true,
        elsewhere: true,
        already_created: true,
      });
    expect(sharedSummary(second.stderr)).toEqual({ sent: 0, elsewhere: 20, created: 0 });
    const retained = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-retained-');
    expect(retained).toMatchObject({ found: 20, duplicates: 0 });

    // The control: the same two runs with only their own (fresh) journals.
    expect(secondAlone.code).toBe(0);
    const twice = await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-alone-');
    expect(twice).toMatchObject({ found: 40, distinct: 20, duplicates: 20 });
  });

  it("environments and accounts on one Redis keep their own journals; another application's keys are left alone", async () => {
    const mint = async (body: Record<string, unknown>) =>
      (await sandbox.control<{ key: string }>('/_sandbox/keys', body)).key;
    const live = await mint({ environment: 'live', name: 'journal-live' });
    const second = await mint({ environment: 'test', account: 'acct_second', name: 'journal-second' });
    const raw = createClient({ url: redis!.url });
    await raw.connect();
    try {
      await raw.sendCommand(['SET', 'app:config', 'x', 'EX', '3600']);
      await raw.sendCommand(['HSET', 'other:thing', 'a', '1', 'b', '2']);
      const file = writeNdjson(work, 'realms', 5);
      const runs: { realm: string; key: string }[] = [
        { realm: 'acct_sandbox/test', key: sandbox.apiKey },
        { realm: 'acct_second/test', key: second },
        { realm: 'acct_sandbox/live', key: live },
      ];
      // One after the other: each later run finds the earlier runs' entries for the same inputs.
      for (const run of runs) {
        const result = await create(file, { store: redis!.url, key: run.key });
        expect([run.realm, result.code]).toEqual([run.realm, 0]);
        const lines = parseLines(result.stdout);
        expect(lines).toHaveLength(5);
        for (const line of lines) {
          expect(line.status).toBe('created');
          expect(line.skipped).toBeUndefined();
          expect((line as { elsewhere?: boolean }).elsewhere).toBeUndefined();
        }
        expect([run.realm, sharedSummary(result.stderr)]).toEqual([
          run.realm,
          { sent: 5, elsewhere: 0, created: 5 },
        ]);
      }
      const all = (await countEnvelopes(sandbox.baseUrl, sandbox.apiKey, 'REL-realms-'))
        .envelopes as unknown as { contract_id: string; realm: string }[];
      // Each realm has its own five, once each.
      const byRealm: Record<string, string[]> = {};
      for (const envelope of all) (byRealm[envelope.realm] ??= []).push(envelope.contract_id);
      expect(Object.keys(byRealm).sort()).toEqual(runs.map((run) => run.realm).sort());
      for (const run of runs) expect(new Set(byRealm[run.realm]).size).toBe(5);
      expect(all).toHaveLength(15);

      // The other application's keys: unchanged, TTL kept; every key of ours under the journal prefix.
      expect(await raw.sendCommand(['GET', 'app:config'])).toBe('x');
      const ttl = Number(await raw.sendCommand(['TTL', 'app:config']));
      expect(ttl).toBeGreaterThan(3500);
      expect(ttl).toBeLessThanOrEqual(3600);
      expect(await raw.sendCommand(['HGETALL', 'other:thing'])).toEqual({ a: '1', b: '2' });
      const ours = (await raw.sendCommand<string[]>(['KEYS', '*'])).filter(
        (key) => key !== 'app:config' && key !== 'other:thing',
      );
      for (const key of ours) expect(key.startsWith('sign-cli:journal:')).toBe(true);
      // The test and live journals are two (one per environment), whatever the account.
      const namespaces = new Set(ours.map((key) => /^sign-cli:journal:(\{[0-9a-f]+\})/.exec(key)?.[1]));
      expect(namespaces.size).toBe(2);
    } finally {
      await raw.close();
    }
  });
});
