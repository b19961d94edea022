import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  contentHash,
  mayHaveCreated,
  runBulk,
  type BulkInput,
  type BulkOutcome,
  type CreateCall,
} from '../../src/core/bulk.js';
import type { CreateEnvelopeResult } from '../../src/core/client.js';
import { ApiError, AuthError, InterruptedError, NetworkError, UsageError } from '../../src/core/errors.js';
import { derivedIdempotencyKey } from '../../src/core/idempotency.js';
import { CreateJournal } from '../../src/core/journal.js';

async function* inputs(n: number): AsyncGenerator<BulkInput> {
  for (let i = 1; i <= n; i++) yield { ref: `batch.ndjson:${i}`, value: { title: `T${i}` } };
}

/** A fake service: remembers keys like the real one, and can be told to fail. */
function service(options: { failOn?: (n: number) => Error | undefined } = {}) {
  const byKey = new Map<string, string>();
  const created: string[] = [];
  const keysUsed: string[] = [];
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    created,
    get calls() {
      return calls;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    keys: keysUsed,
    async create(
      value: unknown,
      { idempotencyKey, beforeAttempt }: CreateCall,
    ): Promise<CreateEnvelopeResult> {
      beforeAttempt(1);
      calls++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      const failure = options.failOn?.(calls);
      if (failure) throw failure;
      let id = byKey.get(idempotencyKey);
      const replayed = id !== undefined;
      if (!id) {
        keysUsed.push(idempotencyKey);
        id = `env_${created.length + 1}`;
        byKey.set(idempotencyKey, id);
        created.push((value as { title: string }).title);
      }
      return { envelope: { id }, status: 201, idempotencyKey, replayed, existed: replayed, attempts: 1 };
    },
  };
}

const call = (idempotencyKey: string): CreateCall => ({
  idempotencyKey,
  source: 'test',
  beforeAttempt: () => {},
});

const journalFile = () => join(mkdtempSync(join(tmpdir(), 'journal-')), 'create.jsonl');

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

  it('resumes from its journal: skips what was created, reuses keys in doubt, never creates twice', async () => {
    const svc = service({
      failOn: (n) => (n >= 21 && n <= 25 ? new NetworkError('reset', 'ECONNRESET') : undefined),
    });
    const path = journalFile();
    const first = new CreateJournal(path);
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
    first.close();
    expect(summary).toMatchObject({ created: 25, failed: 5, notAttempted: true, stoppedBy: 'interrupt' });
    // A crash right after sending: the journal says "sending" for input 31 whose request did reach the service.
    const crashed = new CreateJournal(path);
    const key = 'key-in-doubt';
    crashed.record({
      id: `${contentHash({ title: 'T31' })}#1`,
      ref: 'batch.ndjson:31',
      key,
      state: 'sending',
    });
    await svc.create({ title: 'T31' }, call(key));
    crashed.close();

    const second = new CreateJournal(path);
    expect(second.resumed).toBe(31);
    expect(second.unfinished).toBe(6);
    const outcomes: BulkOutcome[] = [];
    const again = await runBulk({
      inputs: inputs(60),
      create: svc.create,
      concurrency: 4,
      journal: second,
      onOutcome: (o) => outcomes.push(o),
    });
    second.close();
    // 25 skipped from the journal and T31 replayed by the service under its key in doubt.
    expect(again).toMatchObject({ created: 34, alreadyCreated: 26, failed: 0, notAttempted: false });
    expect([...svc.created].sort()).toEqual(Array.from({ length: 60 }, (_, i) => `T${i + 1}`).sort());
    const thirtyFirst = outcomes.find((o) => o.ref === 'batch.ndjson:31');
    expect(thirtyFirst).toMatchObject({ status: 'created', key });
    expect(thirtyFirst?.status === 'created' && thirtyFirst.result.replayed).toBe(true);

    // A finished run's journal is kept: the same run again sends nothing at all.
    const calls = svc.calls;
    const third = new CreateJournal(path);
    const rerun = await runBulk({
      inputs: inputs(60),
      create: svc.create,
      concurrency: 4,
      journal: third,
      onOutcome: () => {},
    });
    third.close();
    expect(rerun).toMatchObject({ created: 0, alreadyCreated: 60, failed: 0 });
    expect(svc.calls).toBe(calls);
    expect(existsSync(path)).toBe(true);
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

  it('with --new, creates again what the journal says was created, and journals the new keys', async () => {
    const svc = service();
    const path = journalFile();
    const first = new CreateJournal(path);
    await runBulk({
      inputs: inputs(3),
      create: svc.create,
      concurrency: 1,
      journal: first,
      onOutcome: () => {},
    });
    first.close();
    const second = new CreateJournal(path);
    const summary = await runBulk({
      inputs: inputs(3),
      create: svc.create,
      concurrency: 1,
      journal: second,
      fresh: true,
      onOutcome: () => {},
    });
    second.close();
    expect(summary).toMatchObject({ created: 3, alreadyCreated: 0 });
    expect(svc.created).toHaveLength(6);
    const third = new CreateJournal(path);
    expect(
      await runBulk({
        inputs: inputs(3),
        create: svc.create,
        concurrency: 1,
        journal: third,
        onOutcome: () => {},
      }),
    ).toMatchObject({ created: 0, alreadyCreated: 3 });
    third.close();
    expect(svc.created).toHaveLength(6);
  });

  it('knows inputs by content: moved or renamed inputs are still skipped, identical ones are separate envelopes', async () => {
    const svc = service();
    const path = journalFile();
    async function* batch(refs: string[], titles: string[]): AsyncGenerator<BulkInput> {
      for (let i = 0; i < refs.length; i++) yield { ref: refs[i]!, value: { title: titles[i] } };
    }
    const stop = new AbortController();
    const first = new CreateJournal(path);
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
    first.close();
    expect(svc.created).toEqual(['T1', 'T1', 'T2']);
    // The same content, from another file and in another order: only T3 is new.
    const second = new CreateJournal(path);
    const outcomes: BulkOutcome[] = [];
    await runBulk({
      inputs: batch(['b:1', 'b:2', 'b:3', 'b:4'], ['T3', 'T2', 'T1', 'T1']),
      create: svc.create,
      concurrency: 2,
      journal: second,
      onOutcome: (o) => outcomes.push(o),
    });
    second.close();
    expect(svc.created).toEqual(['T1', 'T1', 'T2', 'T3']);
    expect(
      outcomes
        .filter((o) => o.status === 'skipped')
        .map((o) => o.ref)
        .sort(),
    ).toEqual(['b:2', 'b:3', 'b:4']);
    expect(readFileSync(path, 'utf8')).toContain('"state":"created"');
  });

  it("refuses the caller's key when the journal holds another key for an input in doubt, and names the key to pass", async () => {
    const svc = service();
    const journal = new CreateJournal(journalFile());
    journal.record({
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
    await expect(run('other-key')).rejects.toThrow(/already created as env_1 with Idempotency-Key first-key/);
    expect(await run('other-key', true)).toMatchObject({ created: 1 });
    expect(svc.keys).toEqual(['first-key', 'other-key']);
    journal.close();
  });

  it('journals a definite refusal as failed and a lost answer as in doubt', async () => {
    const path = journalFile();
    const journal = new CreateJournal(path);
    const failures = [
      new ApiError('HTTP 422', 422, 'validation_failed', 'bad'),
      new NetworkError('reset', 'ECONNRESET'),
      new NetworkError('refused', 'ECONNREFUSED', { nothingSent: true }),
    ];
    let n = 0;
    const svc = service({ failOn: () => failures[n++] });
    await runBulk({ inputs: inputs(3), create: svc.create, concurrency: 1, journal, onOutcome: () => {} });
    journal.close();
    const states = new CreateJournal(path);
    expect([1, 2, 3].map((i) => states.lookup(`${contentHash({ title: `T${i}` })}#1`).own?.state)).toEqual([
      'failed',
      'unknown',
      'failed',
    ]);
    states.close();
    expect(mayHaveCreated(new ApiError('HTTP 503', 503, undefined, undefined))).toBe(true);
    expect(mayHaveCreated(new ApiError('HTTP 409', 409, undefined, undefined))).toBe(true);
    expect(mayHaveCreated(new AuthError('HTTP 401', 401))).toBe(false);
    expect(mayHaveCreated(new InterruptedError('x', { sent: false }))).toBe(false);
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
    expect(new CreateJournal(path).lookup('g#1').own?.key).toBe('k2');
  });
});

describe('runBulk across keys: what an earlier run created counts for this key only if the service shows it', () => {
  const withEntries = async (fingerprint: string, n: number, svc = service()) => {
    const path = journalFile();
    const journal = new CreateJournal(path, fingerprint);
    await runBulk({ inputs: inputs(n), create: svc.create, concurrency: 4, journal, onOutcome: () => {} });
    journal.close();
    return { path, svc };
  };

  it('a rotated key of the same account: one question to the service, nothing created; the next run asks nothing', async () => {
    const { path, svc } = await withEntries('fp-old', 10);
    const asked: string[] = [];
    const journal = new CreateJournal(path, 'fp-new');
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
    journal.close();
    expect(summary).toMatchObject({ created: 0, alreadyCreated: 10, skipped: 10, failed: 0 });
    expect(asked).toHaveLength(1);
    expect(svc.created).toHaveLength(10);
    // Recorded under the new key: the next run needs no question at all.
    const again = new CreateJournal(path, 'fp-new');
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
    again.close();
    expect(readFileSync(path, 'utf8')).not.toMatch(/sk_/);
  });

  it("another account's key (the service says not found): every input is created for it", async () => {
    const { path } = await withEntries('fp-a', 5);
    const other = service();
    const journal = new CreateJournal(path, 'fp-b');
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
    journal.close();
    expect(summary).toMatchObject({ created: 5, alreadyCreated: 0 });
    expect(other.created).toHaveLength(5);
    expect(asked).toBe(1);
  });

  it('a refused key gets the service\'s answer (the run stops, exit 3), never "already created"', async () => {
    const { path, svc } = await withEntries('fp-a', 5);
    const journal = new CreateJournal(path, 'fp-bad');
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
    journal.close();
    expect(summary).toMatchObject({ alreadyCreated: 0, failed: 1, stoppedBy: 'auth' });
    expect(outcomes.filter((o) => o.status !== 'failed')).toEqual([]);
    expect(svc.calls).toBe(5);
  });

  it('an input in doubt under another key is sent again under that key (the only one it may exist under)', async () => {
    const path = journalFile();
    const first = new CreateJournal(path, 'fp-a');
    first.record({ id: `${contentHash({ title: 'T1' })}#1`, ref: 'x', key: 'k-in-doubt', state: 'unknown' });
    first.close();
    const svc = service();
    const journal = new CreateJournal(path, 'fp-b');
    await runBulk({
      inputs: inputs(1),
      create: svc.create,
      concurrency: 1,
      journal,
      confirm: async () => 'mine',
      onOutcome: () => {},
    });
    journal.close();
    expect(svc.keys).toEqual(['k-in-doubt']);
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
