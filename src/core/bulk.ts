/**
 * Creating many envelopes: a fixed number of workers pull inputs from a
 * stream (so memory does not grow with the input) and send them through one
 * client, whose pacer keeps every worker together under the rate limit. The
 * journal makes the run resumable and exactly-once (journal.ts).
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { CreateEnvelopeResult } from './client.js';
import { ExitCode, exitCodeOf } from './errors.js';
import { newIdempotencyKey } from './idempotency.js';
import type { CreateJournal } from './journal.js';

export interface BulkInput {
  ref: string;
  value: unknown;
}

export type BulkOutcome =
  | { ref: string; status: 'created'; key: string; result: CreateEnvelopeResult }
  | { ref: string; status: 'skipped'; key: string; envelopeId: string | undefined }
  | { ref: string; status: 'failed'; key: string; error: unknown };

export interface BulkSummary {
  created: number;
  skipped: number;
  failed: number;
  /** Inputs never attempted because the run stopped early. */
  notAttempted: boolean;
  /** Set when the run stopped early: interrupted, or every request would fail the same way. */
  stoppedBy: 'interrupt' | 'auth' | undefined;
}

export interface BulkOptions {
  inputs: AsyncIterable<BulkInput>;
  create(value: unknown, options: { idempotencyKey: string; source: string }): Promise<CreateEnvelopeResult>;
  concurrency: number;
  journal?: CreateJournal | undefined;
  /** The caller's own key, for a single input. */
  fixedKey?: string | undefined;
  /** Aborting stops taking new inputs; requests in flight are waited for, never cut. */
  stop?: AbortSignal | undefined;
  onOutcome(outcome: BulkOutcome): void;
  /** The caller's key was set aside for the key an earlier, unfinished run sent this input with. */
  onKeyKept?(ref: string, journaledKey: string): void;
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

export async function runBulk(options: BulkOptions): Promise<BulkSummary> {
  const summary: BulkSummary = { created: 0, skipped: 0, failed: 0, notAttempted: false, stoppedBy: undefined };
  const iterator = options.inputs[Symbol.asyncIterator]();
  const { journal } = options;
  const stopping = () => summary.stoppedBy !== undefined || options.stop?.aborted === true;

  /** Inputs of each content seen so far: the n-th copy of a content is its own envelope. */
  const copies = new Map<string, number>();

  async function handle(input: BulkInput): Promise<void> {
    const hash = contentHash(input.value);
    const copy = (copies.get(hash) ?? 0) + 1;
    copies.set(hash, copy);
    const id = `${hash}#${copy}`;
    const known = journal?.lookup(id);
    if (known?.state === 'created') {
      summary.skipped++;
      options.onOutcome({ ref: input.ref, status: 'skipped', key: known.key, envelopeId: known.envelope_id });
      return;
    }
    // A key in doubt from an earlier run is reused, even over the caller's own key: the envelope
    // may exist under it, and only that key lets the service replay instead of creating twice.
    const key = known?.key ?? options.fixedKey ?? newIdempotencyKey();
    if (options.fixedKey !== undefined && known && known.key !== options.fixedKey) options.onKeyKept?.(input.ref, known.key);
    journal?.record({ id, ref: input.ref, key, state: 'sending' });
    try {
      const result = await options.create(input.value, { idempotencyKey: key, source: input.ref });
      const envelopeId = (result.envelope as { id?: unknown }).id;
      journal?.record({ id, ref: input.ref, key, state: 'created', ...(typeof envelopeId === 'string' ? { envelope_id: envelopeId } : {}) });
      summary.created++;
      options.onOutcome({ ref: input.ref, status: 'created', key, result });
    } catch (error) {
      journal?.record({ id, ref: input.ref, key, state: 'failed', error: (error as Error).message });
      summary.failed++;
      if (exitCodeOf(error) === ExitCode.auth) summary.stoppedBy ??= 'auth';
      options.onOutcome({ ref: input.ref, status: 'failed', key, error });
    }
  }

  async function worker(): Promise<void> {
    while (!stopping()) {
      const next = await iterator.next();
      if (next.done) return;
      if (stopping()) {
        summary.notAttempted = true;
        return;
      }
      await handle(next.value);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  if (options.stop?.aborted) summary.stoppedBy ??= 'interrupt';
  if (summary.stoppedBy) {
    summary.notAttempted ||= !(await iterator.next()).done;
    await iterator.return?.();
  }
  return summary;
}
