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
    crashed.record({ ref: 'batch.ndjson:31', hash: contentHash({ title: 'T31' }), key, state: 'sending' });
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

  it('sends an edited input again, under a new key, and says so', async () => {
    const svc = service();
    const path = journalFile();
    const journal = new CreateJournal(path);
    journal.record({ ref: 'batch.ndjson:1', hash: 'old-content', key: 'old-key', state: 'created', envelope_id: 'env_old' });
    const edited: string[] = [];
    await runBulk({ inputs: inputs(1), create: svc.create, concurrency: 1, journal, onOutcome: () => {}, onEdited: (ref) => edited.push(ref) });
    expect(edited).toEqual(['batch.ndjson:1']);
    expect(svc.created).toEqual(['T1']);
    expect(readFileSync(path, 'utf8')).toContain('"state":"created"');
  });

  it('stops at the first authentication failure: every other request would fail the same way', async () => {
    const svc = service({ failOn: () => new AuthError('HTTP 401', 401) });
    const summary = await runBulk({ inputs: inputs(20), create: svc.create, concurrency: 1, onOutcome: () => {} });
    expect(summary).toMatchObject({ failed: 1, stoppedBy: 'auth', notAttempted: true });
    expect(svc.calls).toBe(1);
  });

  it('ignores a torn last journal line', async () => {
    const path = journalFile();
    const journal = new CreateJournal(path);
    journal.record({ ref: 'a', hash: 'h', key: 'k', state: 'created' });
    journal.close();
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, '{"ref":"b","ha');
    const reopened = new CreateJournal(path);
    expect(reopened.lookup('a', 'h')?.state).toBe('created');
    expect(reopened.lookup('b', 'h')).toBeUndefined();
  });
});
