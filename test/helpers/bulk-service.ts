/** Inputs and a fake envelope service for runBulk tests (bulk.test.ts, redis-journal.test.ts). */
import type { BulkInput, CreateCall } from '../../src/core/journal/bulk.js';
import type { CreateEnvelopeResult } from '../../src/core/client/client.js';

/** `n` inputs, `{ title: 'T<i>' }`, referenced as lines of one file. */
export async function* inputs(n: number): AsyncGenerator<BulkInput> {
  for (let i = 1; i <= n; i++) yield { ref: `batch.ndjson:${i}`, value: { title: `T${i}` } };
}

/**
 * A fake service: remembers keys like the real one (a key seen before replays
 * its envelope), and can be told to fail. `delayMs`: how long each request is
 * on the wire, so concurrent runners overlap.
 */
export function fakeService(options: { failOn?: (n: number) => Error | undefined; delayMs?: number } = {}) {
  const byKey = new Map<string, string>();
  const created: string[] = [];
  const keysUsed: string[] = [];
  const received: string[] = [];
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  return {
    /** The titles of the envelopes created, in order. */
    created,
    get calls() {
      return calls;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    /** The keys that created an envelope. */
    keys: keysUsed,
    /** Every key a request carried, replays included. */
    received,
    async create(
      value: unknown,
      { idempotencyKey, beforeAttempt }: CreateCall,
    ): Promise<CreateEnvelopeResult> {
      await beforeAttempt(1);
      calls++;
      received.push(idempotencyKey);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, options.delayMs ?? 1));
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
