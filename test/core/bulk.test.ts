import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHash, runBulk, type BulkInput, type BulkOutcome } from '../../src/core/bulk.js';
import type { CreateEnvelopeResult } from '../../src/core/client.js';
import { AuthError, NetworkError } from '../../src/core/errors.js';
import { CreateJournal } from '../../src/core/journal.js';

async function* inputs(n: number): AsyncGenerator<BulkInput> {
  for (let i = 1; i <= n; i++) yield { ref: `batch.ndjson:${i}`, value: { title: `T${i}` } };
}

/** A fake service: remembers keys like the real one, and can be told to fail. */
function service(options: { failOn?: (n: number) => Error | undefined } = {}) {
  const byKey = new Map<string, string>();
  const created: string[] = [];
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
    async create(value: unknown, { idempotencyKey }: { idempotencyKey: string }): Promise<CreateEnvelopeResult> {
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
        id = `env_${created.length + 1}`;
        byKey.set(idempotencyKey, id);
        created.push((value as { title: string }).title);
      }
      return { envelope: { id }, status: 201, idempotencyKey, replayed, attempts: 1 };
    },
  };
}

const journalFile = () => join(mkdtempSync(join(tmpdir(), 'journal-')), 'create.jsonl');

describe('runBulk', () => {
  it('creates every input once, with at most `concurrency` in flight', async () => {
    const svc = service();
    const outcomes: BulkOutcome[] = [];
    const summary = await runBulk({ inputs: inputs(50), create: svc.create, concurrency: 8, onOutcome: (o) => outcomes.push(o) });
    expect(summary).toEqual({ created: 50, skipped: 0, failed: 0, notAttempted: false, stoppedBy: undefined });
    expect(svc.created).toHaveLength(50);
    expect(svc.maxInFlight).toBeLessThanOrEqual(8);
    expect(svc.maxInFlight).toBeGreaterThan(1);
    expect(new Set(outcomes.map((o) => o.key)).size).toBe(50);
  });

  it('resumes from its journal: skips what was created, reuses keys in doubt, never creates twice', async () => {
    const svc = service({ failOn: (n) => (n >= 21 && n <= 25 ? new NetworkError('reset', 'ECONNRESET') : undefined) });
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
    crashed.record({ id: `${contentHash({ title: 'T31' })}#1`, ref: 'batch.ndjson:31', key, state: 'sending' });
    await svc.create({ title: 'T31' }, { idempotencyKey: key });
    crashed.close();

    const second = new CreateJournal(path);
    expect(second.resumed).toBe(31);
    const outcomes: BulkOutcome[] = [];
    const again = await runBulk({ inputs: inputs(60), create: svc.create, concurrency: 4, journal: second, onOutcome: (o) => outcomes.push(o) });
    expect(again).toMatchObject({ created: 35, skipped: 25, failed: 0, notAttempted: false });
    expect([...svc.created].sort()).toEqual(Array.from({ length: 60 }, (_, i) => `T${i + 1}`).sort());
    const thirtyFirst = outcomes.find((o) => o.ref === 'batch.ndjson:31');
    expect(thirtyFirst).toMatchObject({ status: 'created', key });
    expect(thirtyFirst?.status === 'created' && thirtyFirst.result.replayed).toBe(true);
    second.discard();
    expect(existsSync(path)).toBe(false);
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
    await runBulk({ inputs: batch(['b:1', 'b:2', 'b:3', 'b:4'], ['T3', 'T2', 'T1', 'T1']), create: svc.create, concurrency: 2, journal: second, onOutcome: (o) => outcomes.push(o) });
    expect(svc.created).toEqual(['T1', 'T1', 'T2', 'T3']);
    expect(outcomes.filter((o) => o.status === 'skipped').map((o) => o.ref).sort()).toEqual(['b:2', 'b:3', 'b:4']);
    expect(readFileSync(path, 'utf8')).toContain('"state":"created"');
  });

  it("keeps the journaled key of an input in doubt over the caller's own key, and says so", async () => {
    const svc = service();
    const path = journalFile();
    const journal = new CreateJournal(path);
    journal.record({ id: `${contentHash({ title: 'T1' })}#1`, ref: 'batch.ndjson:1', key: 'first-key', state: 'sending' });
    await svc.create({ title: 'T1' }, { idempotencyKey: 'first-key' }); // that first request did create it
    const kept: string[] = [];
    const outcomes: BulkOutcome[] = [];
    await runBulk({ inputs: inputs(1), create: svc.create, concurrency: 1, journal, fixedKey: 'other-key', onOutcome: (o) => outcomes.push(o), onKeyKept: (_ref, key) => kept.push(key) });
    journal.close();
    expect(kept).toEqual(['first-key']);
    expect(outcomes[0]).toMatchObject({ status: 'created', key: 'first-key' });
    expect(svc.created).toEqual(['T1']);
  });

  it('stops at the first authentication failure: every other request would fail the same way', async () => {
    const svc = service({ failOn: () => new AuthError('HTTP 401', 401) });
    const summary = await runBulk({ inputs: inputs(20), create: svc.create, concurrency: 1, onOutcome: () => {} });
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
    expect(reopened.lookup('h#1')?.state).toBe('created');
    expect(reopened.lookup('g#1')).toBeUndefined();
    // The torn tail is cut off, so the next entry starts on a line of its own.
    reopened.record({ id: 'g#1', ref: 'b', key: 'k2', state: 'created' });
    reopened.close();
    expect(new CreateJournal(path).lookup('g#1')?.key).toBe('k2');
  });
});
