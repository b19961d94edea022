import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  contentHash,
  mayHaveCreated,
  runBulk,
  type BulkInput,
  type BulkOutcome,
  type CreateCall,
} from '../../src/core/journal/bulk.js';
import { ApiError, AuthError, InterruptedError, NetworkError, UsageError } from '../../src/core/errors.js';
import { derivedIdempotencyKey } from '../../src/core/client/idempotency.js';
import { CreateJournal, inDoubt, type Journal, type JournalLookup } from '../../src/core/journal/journal.js';
import {
  JOURNAL_KEY_PREFIX,
  RedisJournal,
  journalKeys,
  journalNamespace,
} from '../../src/core/journal/redis-journal.js';
import { fakeService as service, inputs } from '../helpers/bulk-service.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';

const call = (idempotencyKey: string): CreateCall => ({
  idempotencyKey,
  source: 'test',
  beforeAttempt: () => {},
});

const titles = (n: number) => Array.from({ length: n }, (_, i) => `T${i + 1}`);

/** Each test's temp dirs, removed after it. */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const journalFile = () => {
  const dir = mkdtempSync(join(tmpdir(), 'journal-'));
  dirs.push(dir);
  return join(dir, 'create.jsonl');
};

describe('runBulk', () => {
  it('creates every input once, with at most `concurrency` in flight', async () => {
    const svc = service();
    const outcomes: BulkOutcome[] = [];
    const summary = await runBulk({
      inputs: inputs(50),
      create: svc.create,
      concurrency: 8,
      onOutcome: (o) => outcomes.push(o),
    });
    expect(summary).toEqual({
      created: 50,
      alreadyCreated: 0,
      skipped: 0,
      failed: 0,
      sent: 50,
      failedElsewhere: 0,
      unrecorded: 0,
      notAttempted: false,
      stoppedBy: undefined,
    });
    expect(svc.created).toHaveLength(50);
    expect(svc.maxInFlight).toBeLessThanOrEqual(8);
    expect(svc.maxInFlight).toBeGreaterThan(1);
    expect(new Set(outcomes.map((o) => o.key)).size).toBe(50);
  });

  it('derives each key from the content, so the service recognises a re-run that has no journal', async () => {
    const svc = service();
    const first = await runBulk({
      inputs: inputs(20),
      create: svc.create,
      concurrency: 4,
      onOutcome: () => {},
    });
    expect(first).toMatchObject({ created: 20, alreadyCreated: 0 });
    const outcomes: BulkOutcome[] = [];
    const second = await runBulk({
      inputs: inputs(20),
      create: svc.create,
      concurrency: 4,
      onOutcome: (o) => outcomes.push(o),
    });
    expect(second).toMatchObject({ created: 0, alreadyCreated: 20, failed: 0 });
    expect(svc.created).toHaveLength(20);
    expect(outcomes[0]!.key).toBe(derivedIdempotencyKey(contentHash({ title: 'T1' })));
    expect(outcomes[0]!.key).toMatch(/^sc1-[0-9a-f]{48}$/);
    // --new: fresh random keys, so everything is created again, deliberately.
    const fresh = await runBulk({
      inputs: inputs(20),
      create: svc.create,
      concurrency: 4,
      fresh: true,
      onOutcome: () => {},
    });
    expect(fresh).toMatchObject({ created: 20, alreadyCreated: 0 });
    expect(svc.created).toHaveLength(40);
  });

  it('does not count an input stopped before it was sent as failed', async () => {
    const stop = new AbortController();
    const svc = service();
    const summary = await runBulk({
      inputs: inputs(5),
      concurrency: 2,
      stop: stop.signal,
      create: async (value, options) => {
        if ((value as { title: string }).title === 'T2') {
          stop.abort();
          throw new InterruptedError('interrupted before the request was sent', { sent: false });
        }
        return svc.create(value, options);
      },
      onOutcome: () => {},
    });
    expect(summary).toMatchObject({ failed: 0, notAttempted: true, stoppedBy: 'interrupt' });
    expect(svc.created).toEqual(['T1']);
  });

  it('stops at the first authentication failure: every other request would fail the same way', async () => {
    const svc = service({ failOn: () => new AuthError('HTTP 401', 401) });
    const summary = await runBulk({
      inputs: inputs(20),
      create: svc.create,
      concurrency: 1,
      onOutcome: () => {},
    });
    expect(summary).toMatchObject({ failed: 1, stoppedBy: 'auth', notAttempted: true });
    expect(svc.calls).toBe(1);
  });

  it('cuts off a torn last journal line and keeps appending whole lines', async () => {
    const path = journalFile();
    const journal = new CreateJournal(path);
    journal.record({ id: 'h#1', ref: 'a', key: 'k', state: 'created' });
    journal.close();
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, '{"id":"g#1","ref":"b","ke');
    const reopened = new CreateJournal(path);
    expect(reopened.lookup('h#1').own?.state).toBe('created');
    expect(reopened.lookup('g#1')).toEqual({ own: undefined, others: [] });
    // The torn tail is cut off, so the next entry starts on a line of its own.
    reopened.record({ id: 'g#1', ref: 'b', key: 'k2', state: 'created' });
    reopened.close();
    const last = new CreateJournal(path);
    expect(last.lookup('g#1').own?.key).toBe('k2');
    last.close();
  });

  it('one envelope for a person: NFD or NFC, spaces around, an e-mail domain in capitals are one envelope across runs', async () => {
    const svc = service();
    const person = (title: string, name: string, email: string) => ({ title, signers: [{ name, email }] });
    const runs = [
      person('Lease renewal', 'Amal Ḥaddād', 'Amal@example.com'),
      person('  Lease renewal ', 'Amal Ḥaddād ', 'Amal@Example.COM'),
      person('Lease renewal', 'Amal Ḥaddād'.normalize('NFD'), 'Amal@example.com'),
      // The part before the @ is kept as given: another address.
      person('Lease renewal', 'Amal Ḥaddād', 'amal@example.com'),
    ];
    const keys: string[] = [];
    for (const value of runs) {
      async function* one(): AsyncGenerator<BulkInput> {
        yield { ref: 'x', value };
      }
      await runBulk({
        inputs: one(),
        create: svc.create,
        concurrency: 1,
        onOutcome: (o) => keys.push(o.key),
      });
    }
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(keys[3]).not.toBe(keys[0]);
    expect(svc.created).toHaveLength(2);
  });
});

/** A journal as a run holds it, closed when the run ends. */
type TestJournal = Journal & {
  close(): void | Promise<void>;
  /** The file journal's count of the inputs it found when opened, and of those in doubt. */
  readonly resumed?: number;
  readonly unfinished?: number;
};

/**
 * The file journal and the shared one, each as its tests use it: every test
 * gets a journal of its own, which every `open` of that test opens again (a
 * run after another), and its journals are closed after it, failed or not.
 */
interface JournalKind {
  name: 'file' | 'redis';
  /** The kind cannot run here (no redis-server). */
  skip: boolean;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  begin(): void;
  end(): Promise<void>;
  /** The test's journal, as a run sending with the key of `fingerprint` opens it. */
  open(fingerprint?: string): Promise<TestJournal>;
  /** What the test's journal keeps (file lines, or the Redis entries and contracts), for what is written. */
  stored(): Promise<string>;
}

/** What the journal knows of an input, left as it was: the file journal's take is its lookup; the shared one's claim is given back. */
async function peek(journal: Journal, id: string): Promise<JournalLookup> {
  const { own, others } = await journal.take(id);
  await journal.release(id);
  return { own, others };
}

function fileJournals(): JournalKind {
  let path = '';
  const opened: CreateJournal[] = [];
  return {
    name: 'file',
    skip: false,
    setup: async () => {},
    teardown: async () => {},
    begin: () => {
      path = journalFile();
    },
    // Closing again what the test closed is harmless: all of them are closed here.
    end: async () => {
      for (const journal of opened.splice(0)) journal.close();
    },
    open: async (fingerprint = '') => {
      const journal = new CreateJournal(path, fingerprint);
      opened.push(journal);
      return journal;
    },
    stored: async () => readFileSync(path, 'utf8'),
  };
}

/** One redis-server for all the tests; a service of each test's own keeps their journals apart. */
function redisJournals(): JournalKind {
  let redis: RedisProcess | undefined;
  let raw: ReturnType<typeof createClient> | undefined;
  let service = '';
  const opened: RedisJournal[] = [];
  return {
    name: 'redis',
    skip: NO_REDIS,
    setup: async () => {
      redis = await startRedis();
      raw = createClient({ url: redis.url });
      await raw.connect();
    },
    teardown: async () => {
      await raw?.close();
      await redis?.stop();
    },
    begin: () => {
      service = `https://svc-${randomUUID()}`;
    },
    end: async () => {
      await Promise.all(opened.splice(0).map((journal) => journal.close()));
    },
    open: async (fingerprint = '') => {
      const journal = new RedisJournal({ url: redis!.url, service, environment: 'test', fingerprint });
      opened.push(journal);
      return journal.open();
    },
    stored: async () => {
      const keys = journalKeys(JOURNAL_KEY_PREFIX, journalNamespace(service, 'test'));
      const [entries, contracts] = await Promise.all([raw!.hVals(keys.entries), raw!.hVals(keys.contracts)]);
      return [...entries, ...contracts].join('\n');
    },
  };
}

for (const kind of [fileJournals(), redisJournals()])
  describe.skipIf(kind.skip)(`runBulk with the ${kind.name} journal`, () => {
    beforeAll(() => kind.setup());
    afterAll(() => kind.teardown());
    beforeEach(() => kind.begin());
    afterEach(() => kind.end());

    it('resumes from its journal: skips what was created, reuses keys in doubt, never creates twice', async () => {
      const svc = service({
        failOn: (n) => (n >= 21 && n <= 25 ? new NetworkError('reset', 'ECONNRESET') : undefined),
      });
      const first = await kind.open();
      const stop = new AbortController();
      let done = 0;
      const summary = await runBulk({
        inputs: inputs(60),
        create: svc.create,
        concurrency: 1,
        journal: first,
        stop: stop.signal,
        onOutcome: () => {
          if (++done === 30) stop.abort();
        },
      });
      await first.close();
      expect(summary).toMatchObject({ created: 25, failed: 5, notAttempted: true, stoppedBy: 'interrupt' });
      // A crash right after sending: the journal says "sending" for input 31 whose request did reach the service.
      const crashed = await kind.open();
      const key = 'key-in-doubt';
      // As a run does: the input taken (claimed, in a shared journal), then "sending" recorded.
      await crashed.take(`${contentHash({ title: 'T31' })}#1`);
      await crashed.record({
        id: `${contentHash({ title: 'T31' })}#1`,
        ref: 'batch.ndjson:31',
        key,
        state: 'sending',
      });
      await svc.create({ title: 'T31' }, call(key));
      await crashed.close();

      const second = await kind.open();
      if (kind.name === 'file') {
        expect(second.resumed).toBe(31);
        expect(second.unfinished).toBe(6);
      }
      // The same counts from what each input's entry says, for either journal.
      const known = await Promise.all(titles(60).map((title) => peek(second, `${contentHash({ title })}#1`)));
      expect(known.filter((k) => k.own !== undefined)).toHaveLength(31);
      expect(known.filter((k) => inDoubt(k.own))).toHaveLength(6);
      const outcomes: BulkOutcome[] = [];
      const again = await runBulk({
        inputs: inputs(60),
        create: svc.create,
        concurrency: 4,
        journal: second,
        onOutcome: (o) => outcomes.push(o),
      });
      await second.close();
      // 25 skipped from the journal and T31 replayed by the service under its key in doubt.
      expect(again).toMatchObject({ created: 34, alreadyCreated: 26, failed: 0, notAttempted: false });
      expect([...svc.created].sort()).toEqual(titles(60).sort());
      const thirtyFirst = outcomes.find((o) => o.ref === 'batch.ndjson:31');
      expect(thirtyFirst).toMatchObject({ status: 'created', key });
      expect(thirtyFirst?.status === 'created' && thirtyFirst.result.replayed).toBe(true);

      // A finished run's journal is kept: the same run again sends nothing at all.
      const calls = svc.calls;
      const third = await kind.open();
      const rerun = await runBulk({
        inputs: inputs(60),
        create: svc.create,
        concurrency: 4,
        journal: third,
        onOutcome: () => {},
      });
      await third.close();
      expect(rerun).toMatchObject({ created: 0, alreadyCreated: 60, failed: 0 });
      expect(svc.calls).toBe(calls);
      expect(await kind.stored()).toContain('"state":"created"');
    });

    it('with --new, creates again what the journal says was created, and journals the new keys', async () => {
      const svc = service();
      const first = await kind.open();
      await runBulk({
        inputs: inputs(3),
        create: svc.create,
        concurrency: 1,
        journal: first,
        onOutcome: () => {},
      });
      await first.close();
      const second = await kind.open();
      const summary = await runBulk({
        inputs: inputs(3),
        create: svc.create,
        concurrency: 1,
        journal: second,
        fresh: true,
        onOutcome: () => {},
      });
      await second.close();
      expect(summary).toMatchObject({ created: 3, alreadyCreated: 0 });
      expect(svc.created).toHaveLength(6);
      const third = await kind.open();
      expect(
        await runBulk({
          inputs: inputs(3),
          create: svc.create,
          concurrency: 1,
          journal: third,
          onOutcome: () => {},
        }),
      ).toMatchObject({ created: 0, alreadyCreated: 3 });
      await third.close();
      expect(svc.created).toHaveLength(6);
    });

    it('knows inputs by content: moved or renamed inputs are still skipped, identical ones are separate envelopes', async () => {
      const svc = service();
      async function* batch(refs: string[], titles: string[]): AsyncGenerator<BulkInput> {
        for (let i = 0; i < refs.length; i++) yield { ref: refs[i]!, value: { title: titles[i] } };
      }
      const stop = new AbortController();
      const first = await kind.open();
      let n = 0;
      await runBulk({
        inputs: batch(['a:1', 'a:2', 'a:3', 'a:4'], ['T1', 'T1', 'T2', 'T3']),
        create: svc.create,
        concurrency: 1,
        journal: first,
        stop: stop.signal,
        onOutcome: () => {
          if (++n === 3) stop.abort();
        },
      });
      await first.close();
      expect(svc.created).toEqual(['T1', 'T1', 'T2']);
      // The same content, from another file and in another order: only T3 is new.
      const second = await kind.open();
      const outcomes: BulkOutcome[] = [];
      await runBulk({
        inputs: batch(['b:1', 'b:2', 'b:3', 'b:4'], ['T3', 'T2', 'T1', 'T1']),
        create: svc.create,
        concurrency: 2,
        journal: second,
        onOutcome: (o) => outcomes.push(o),
      });
      await second.close();
      expect(svc.created).toEqual(['T1', 'T1', 'T2', 'T3']);
      expect(
        outcomes
          .filter((o) => o.status === 'skipped')
          .map((o) => o.ref)
          .sort(),
      ).toEqual(['b:2', 'b:3', 'b:4']);
      expect(await kind.stored()).toContain('"state":"created"');
    });

    it("refuses the caller's key when the journal holds another key for an input in doubt, and names the key to pass", async () => {
      const svc = service();
      const journal = await kind.open();
      await journal.record({
        id: `${contentHash({ title: 'T1' })}#1`,
        ref: 'batch.ndjson:1',
        key: 'first-key',
        state: 'unknown',
      });
      const run = (fixedKey: string, fresh = false) =>
        runBulk({
          inputs: inputs(1),
          create: svc.create,
          concurrency: 1,
          journal,
          fixedKey,
          fresh,
          onOutcome: () => {},
        });
      const refused = await run('other-key').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as UsageError).message).toContain('first-key');
      expect((refused as UsageError).reason).toBe('key_conflict_in_doubt');
      expect((refused as UsageError).reasonData.known).toBe('first-key');
      expect(svc.calls).toBe(0);
      // The key it names resumes safely; the caller's key is always the one sent.
      expect(await run('first-key')).toMatchObject({ created: 1 });
      expect(svc.keys).toEqual(['first-key']);
      // Now created under first-key: another key would create it again, so that is refused too, unless --new.
      await expect(run('other-key')).rejects.toThrow(
        /already created as env_1 with Idempotency-Key first-key/,
      );
      expect(await run('other-key', true)).toMatchObject({ created: 1 });
      expect(svc.keys).toEqual(['first-key', 'other-key']);
      await journal.close();
    });

    it('journals a definite refusal as failed and a lost answer as in doubt', async () => {
      const journal = await kind.open();
      const failures = [
        new ApiError('HTTP 422', 422, 'validation_failed', 'bad'),
        new NetworkError('reset', 'ECONNRESET'),
        new NetworkError('refused', 'ECONNREFUSED', { nothingSent: true }),
      ];
      let n = 0;
      const svc = service({ failOn: () => failures[n++] });
      await runBulk({ inputs: inputs(3), create: svc.create, concurrency: 1, journal, onOutcome: () => {} });
      await journal.close();
      const states = await kind.open();
      expect(
        await Promise.all(
          [1, 2, 3].map(async (i) => (await peek(states, `${contentHash({ title: `T${i}` })}#1`)).own?.state),
        ),
      ).toEqual(['failed', 'unknown', 'failed']);
      await states.close();
      expect(mayHaveCreated(new ApiError('HTTP 503', 503, undefined, undefined))).toBe(true);
      expect(mayHaveCreated(new ApiError('HTTP 409', 409, undefined, undefined))).toBe(true);
      expect(mayHaveCreated(new AuthError('HTTP 401', 401))).toBe(false);
      expect(mayHaveCreated(new InterruptedError('x', { sent: false }))).toBe(false);
    });

    describe('across keys: what an earlier run created counts for this key only if the service shows it', () => {
      const withEntries = async (fingerprint: string, n: number, svc = service()) => {
        const journal = await kind.open(fingerprint);
        await runBulk({
          inputs: inputs(n),
          create: svc.create,
          concurrency: 4,
          journal,
          onOutcome: () => {},
        });
        await journal.close();
        return { svc };
      };

      it('a rotated key of the same account: one question to the service, nothing created; the next run asks nothing', async () => {
        const { svc } = await withEntries('fp-old', 10);
        const asked: string[] = [];
        const journal = await kind.open('fp-new');
        const summary = await runBulk({
          inputs: inputs(10),
          create: svc.create,
          concurrency: 4,
          journal,
          confirm: async (entry) => {
            asked.push(entry.envelope_id!);
            return 'mine';
          },
          onOutcome: () => {},
        });
        await journal.close();
        expect(summary).toMatchObject({ created: 0, alreadyCreated: 10, skipped: 10, failed: 0 });
        expect(asked).toHaveLength(1);
        expect(svc.created).toHaveLength(10);
        // Recorded under the new key: the next run needs no question at all.
        const again = await kind.open('fp-new');
        const confirm = async () => {
          throw new Error('asked again');
        };
        expect(
          await runBulk({
            inputs: inputs(10),
            create: svc.create,
            concurrency: 4,
            journal: again,
            confirm,
            onOutcome: () => {},
          }),
        ).toMatchObject({ alreadyCreated: 10, skipped: 10 });
        await again.close();
        expect(await kind.stored()).not.toMatch(/sk_/);
      });

      it("another account's key (the service says not found): every input is created for it", async () => {
        await withEntries('fp-a', 5);
        const other = service();
        const journal = await kind.open('fp-b');
        let asked = 0;
        const summary = await runBulk({
          inputs: inputs(5),
          create: other.create,
          concurrency: 2,
          journal,
          confirm: async () => {
            asked++;
            return 'other';
          },
          onOutcome: () => {},
        });
        await journal.close();
        expect(summary).toMatchObject({ created: 5, alreadyCreated: 0 });
        expect(other.created).toHaveLength(5);
        expect(asked).toBe(1);
      });

      it('a refused key gets the service\'s answer (the run stops, exit 3), never "already created"', async () => {
        const { svc } = await withEntries('fp-a', 5);
        const journal = await kind.open('fp-bad');
        const outcomes: BulkOutcome[] = [];
        const summary = await runBulk({
          inputs: inputs(5),
          create: svc.create,
          concurrency: 1,
          journal,
          confirm: async () => {
            throw new AuthError('HTTP 401 invalid_api_key', 401);
          },
          onOutcome: (o) => outcomes.push(o),
        });
        await journal.close();
        expect(summary).toMatchObject({ alreadyCreated: 0, failed: 1, stoppedBy: 'auth' });
        expect(outcomes.filter((o) => o.status !== 'failed')).toEqual([]);
        expect(svc.calls).toBe(5);
      });

      it('an input in doubt under another key is sent again under that key (the only one it may exist under)', async () => {
        const first = await kind.open('fp-a');
        await first.record({
          id: `${contentHash({ title: 'T1' })}#1`,
          ref: 'x',
          key: 'k-in-doubt',
          state: 'unknown',
        });
        await first.close();
        const svc = service();
        const journal = await kind.open('fp-b');
        await runBulk({
          inputs: inputs(1),
          create: svc.create,
          concurrency: 1,
          journal,
          confirm: async () => 'mine',
          onOutcome: () => {},
        });
        await journal.close();
        expect(svc.keys).toEqual(['k-in-doubt']);
      });
    });
  });
