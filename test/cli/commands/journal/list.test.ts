/**
 * `journal list`, in process against an in-process sandbox: the
 * file journals of a state directory, and (with a real redis-server) the
 * journals of a store, where nothing outside the journals' prefix is touched.
 */
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { ndjsonOf, type ListedJournal } from '../../../helpers/journal-commands.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../../../helpers/redis.js';

let sandbox: TestSandbox;
let sample: Record<string, unknown>;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  sample = JSON.parse((await runCommand(['envelopes', 'sample'])).stdout) as Record<string, unknown>;
});
afterAll(async () => {
  await sandbox?.stop();
});

const ndjson = (tag: string, n: number) => ndjsonOf(sample, tag, n);

describe('journal list, over the files of the state directory', () => {
  it('lists what a create recorded: inputs by state, where they came from, the id show and forget take', async () => {
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir('sign-cli-state-') };
    const file = ndjson('files', 3);
    expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', file], { env })).code).toBe(0);

    const list = await runCommand(['journal', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    const [journal, ...more] = JSON.parse(list.stdout) as ListedJournal[];
    expect(more).toHaveLength(0);
    expect(journal).toMatchObject({ inputs: 3, states: { created: 3, sending: 0, unknown: 0, failed: 0 } });
    expect(journal!.example).toBe(`${file}:3`);
    expect(journal!.in_use).toBe(false);
    const table = await runCommand(['journal', 'list'], { env });
    expect(table.stdout).toMatch(/^ID\s+FOR\s+INPUTS\s+CREATED\s+IN DOUBT\s+FAILED\s+UPDATED\s+EXPIRES/);
    expect(table.stdout).toContain(journal!.id);
  });

  it('says when a journal expires: its retention from SIGN_JOURNAL_RETENTION, a bad one exit 2', async () => {
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir('sign-cli-state-'), SIGN_JOURNAL_RETENTION: '2d' };
    const file = ndjson('retention', 1);
    expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', file], { env })).code).toBe(0);
    const [journal] = JSON.parse(
      (await runCommand(['journal', 'list', '--json'], { env })).stdout,
    ) as ListedJournal[];
    expect(Date.parse(journal!.expires) - Date.parse(journal!.updated)).toBe(2 * 86_400_000);
    const bad = await runCommand(['journal', 'list'], { env: { ...env, SIGN_JOURNAL_RETENTION: '5x' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SIGN_JOURNAL_RETENTION must be a duration');
  });
});

describe.skipIf(NO_REDIS)('journal, over a Redis store', () => {
  let redis: RedisProcess;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("lists one journal per service and environment, shows its entries and forgets it, leaving others' keys alone", async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await client.set('app:settings', 'kept', { PX: 600_000 });
      await client.hSet('sign-cli-other:thing', 'a', 'b');
      const live = await sandbox.mintKey({ environment: 'live' });
      const file = ndjson('store', 2);
      for (const key of [sandbox.apiKey, live]) {
        const env = { ...sandbox.env, SIGN_API_KEY: key, SIGN_STATE_DIR: tempDir('sign-cli-state-') };
        const run = await runCommand(
          ['envelopes', 'create', '--ndjson', '-f', file, '--journal-store', redis.url, '--yes'],
          {
            env,
          },
        );
        expect(run.code).toBe(0);
      }
      const env = { ...sandbox.env, SIGN_JOURNAL_STORE: redis.url };
      const journals = JSON.parse(
        (await runCommand(['journal', 'list', '--json'], { env })).stdout,
      ) as ListedJournal[];
      expect(journals.map((j) => j.environment).sort()).toEqual(['live', 'test']);
      for (const j of journals) expect(j).toMatchObject({ inputs: 2, states: { created: 2 }, in_use: false });
      expect(journals[0]!.service).toMatch(/^http:\/\/loopback:\d+$/);

      const test = journals.find((j) => j.environment === 'test')!;
      const entries = JSON.parse(
        (await runCommand(['journal', 'show', test.id, '--json'], { env })).stdout,
      ) as {
        state: string;
        envelope_id: string;
      }[];
      expect(entries.map((e) => e.state)).toEqual(['created', 'created']);

      expect((await runCommand(['journal', 'forget', test.id, '--yes'], { env })).code).toBe(0);
      const left = JSON.parse(
        (await runCommand(['journal', 'list', '--json'], { env })).stdout,
      ) as ListedJournal[];
      expect(left.map((j) => j.environment)).toEqual(['live']);
      expect(await client.get('app:settings')).toBe('kept');
      expect(await client.pTTL('app:settings')).toBeGreaterThan(0);
      expect(await client.hGetAll('sign-cli-other:thing')).toEqual({ a: 'b' });
      for (const key of await client.keys('*'))
        expect(
          key.startsWith('sign-cli:journal:') || key === 'app:settings' || key === 'sign-cli-other:thing',
        ).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('skips what no run wrote, each with one warning naming its key escaped, and lists and shows the rest on one line each', async () => {
    const client = createClient({ url: redis.url });
    await client.connect();
    const prefix = 'sign-cli:journal:';
    try {
      const env = {
        ...sandbox.env,
        SIGN_STATE_DIR: tempDir('sign-cli-state-'),
        SIGN_JOURNAL_STORE: redis.url,
      };
      const file = ndjson('junk', 2);
      expect((await runCommand(['envelopes', 'create', '--ndjson', '-f', file, '--yes'], { env })).code).toBe(
        0,
      );
      const [real] = JSON.parse(
        (await runCommand(['journal', 'list', '--json'], { env })).stdout,
      ) as ListedJournal[];
      const entries = `${prefix}{${real!.id}}:entries`;
      // A key of another type where a journal's meta goes, another journal whose entries key is a list,
      // a key under the prefix that is no journal's (its name carrying an escape sequence), and in the
      // real journal: a field that is not JSON, an entry whose envelope_id is an object, one whose
      // state is not a state, and a valid one whose ref holds a line break and a fake row.
      const wrongType = `${prefix}{${'a'.repeat(24)}}:meta`;
      await client.set(wrongType, 'not a hash');
      const listEntries = `${prefix}{${'b'.repeat(24)}}:entries`;
      await client.hSet(`${prefix}{${'b'.repeat(24)}}:meta`, {
        service: 'http://other',
        environment: 'test',
        updated: '1',
      });
      await client.rPush(listEntries, 'x');
      const escaped = `${prefix}{\u001b[31mred}:meta`;
      await client.hSet(escaped, 'service', 'x');
      await client.hSet(entries, {
        'not-json': '{',
        'object-envelope': JSON.stringify({
          fpa: { ref: 'a.json', key: 'k1', state: 'created', envelope_id: { id: 'env_1' } },
        }),
        'bad-state': JSON.stringify({ fpb: { ref: 'b.json', key: 'k2', state: '__proto__' } }),
        'two-lines': JSON.stringify({
          fpc: {
            ref: 'c.json\nenv_FORGED  created',
            key: 'k3',
            state: 'created',
            envelope_id: 'env_real',
            at: '2026-01-01T00:00:00Z',
          },
        }),
      });

      const list = await runCommand(['journal', 'list'], { env });
      expect(list.code).toBe(0);
      const warnings = list.stderr.trim().split('\n');
      expect(warnings).toEqual(
        expect.arrayContaining([
          `warning: skipped ${wrongType}: not a journal's hash (WRONGTYPE)`,
          `warning: skipped ${listEntries}: not a journal's hash (WRONGTYPE)`,
          `warning: skipped ${prefix}{\\u001b[31mred}:meta: not a journal key (its tag is not 24 hex digits)`,
          `warning: skipped ${entries} not-json: not JSON`,
          `warning: skipped ${entries} object-envelope fpa: its envelope_id is not a string`,
          `warning: skipped ${entries} bad-state fpb: its state is not created, sending, unknown or failed`,
        ]),
      );
      expect(warnings).toHaveLength(6);
      expect(list.stderr).not.toContain('\u001b');
      const listed = JSON.parse(
        (await runCommand(['journal', 'list', '--json'], { env })).stdout,
      ) as ListedJournal[];
      expect(listed.find((j) => j.id === real!.id)).toMatchObject({ inputs: 3, states: { created: 3 } });
      expect(listed.find((j) => j.id === 'b'.repeat(24))).toMatchObject({ inputs: 0 });

      const show = await runCommand(['journal', 'show', real!.id], { env });
      expect(show.code).toBe(0);
      expect(show.stderr).toContain(
        `warning: skipped ${entries} object-envelope fpa: its envelope_id is not a string`,
      );
      const lines = show.stdout.trim().split('\n');
      expect(lines).toHaveLength(1 + 3);
      expect(lines.some((line) => line.startsWith('env_FORGED'))).toBe(false);
      expect(show.stdout).toContain('c.json\\nenv_FORGED created');
      const json = JSON.parse(
        (await runCommand(['journal', 'show', real!.id, '--json'], { env })).stdout,
      ) as { ref: string }[];
      expect(json.map((e) => e.ref).sort()).toEqual([
        `${file}:1`,
        `${file}:2`,
        'c.json\nenv_FORGED  created',
      ]);
    } finally {
      for (const key of await client.keys(`${prefix}*`)) await client.del(key);
      await client.close();
    }
  });

  it('takes the store from the journal_store setting, checked when set and its password masked', async () => {
    const env = { ...sandbox.env, SIGN_CONFIG_DIR: tempDir('sign-cli-config-') };
    const bad = await runCommand(['config', 'set', 'journal_store', 'localhost:6379'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('journal_store must be a redis:// or rediss:// URL');
    const password = 'journal-store-pw';
    const url = redis.url.replace('redis://', `redis://:${password}@`);
    expect((await runCommand(['config', 'set', 'journal_store', url], { env })).code).toBe(0);
    const get = await runCommand(['config', 'get', 'journal_store'], { env });
    expect(get.stdout.trim()).toBe(url.replace(password, '****'));
    // Used by `journal list` (this Redis asks for no password: a given one is refused by AUTH).
    const listed = await runCommand(['journal', 'list'], { env });
    expect(listed.stdout + listed.stderr).not.toContain(password);
    expect((await runCommand(['config', 'set', 'journal_store', redis.url], { env })).code).toBe(0);
    const list = await runCommand(['journal', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    expect(Array.isArray(JSON.parse(list.stdout))).toBe(true);
    const effective = await runCommand(['config', 'list', '--json'], {
      env: { ...env, SIGN_JOURNAL_RETENTION: '45d' },
    });
    const rows = (
      JSON.parse(effective.stdout) as { effective: { name: string; value: string; source: string }[] }
    ).effective;
    expect(rows.find((r) => r.name === 'journal_retention')).toEqual({
      name: 'journal_retention',
      value: '45d',
      source: 'env SIGN_JOURNAL_RETENTION',
    });
    expect(rows.find((r) => r.name === 'journal_store')?.value).toContain('127.0.0.1');
  });

  it('an unreachable store is exit 1 naming it, its password masked', async () => {
    const run = await runCommand(['journal', 'list', '--journal-store', 'redis://:s3cret-pass@127.0.0.1:1'], {
      env: sandbox.env,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('journal store redis://:****@127.0.0.1:1 is unreachable');
    expect(run.stderr).not.toContain('s3cret-pass');
  });
});
