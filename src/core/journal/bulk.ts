/**
 * Creating many envelopes: a fixed number of workers pull inputs from a
 * stream (so memory does not grow with the input) and send them through one
 * client, whose pacer keeps every worker together under the rate limit.
 *
 * Exactly once: each input's Idempotency-Key is derived from its content
 * (idempotency.ts), so the service itself recognises a re-send; the journal
 * (journal.ts) remembers what was created, so a re-run on this machine says
 * "already created" without sending at all.
 */
import { chooseKey, mayHaveCreated, SharedOutcomeError } from './bulk-keys.js';
import type { CreateEnvelopeResult } from '../client/client.js';
import { AuthError, InterruptedError, StorageError } from '../errors.js';
import { contentHash } from '../client/idempotency.js';
import { inDoubt, type Journal, type JournalEntry, type JournalState, type JournalTake } from './journal.js';
import { normalizeEnvelope } from '../envelope/normalize.js';
import { isRecord } from '../envelope/records.js';

export { contentHash } from '../client/idempotency.js';
export { mayHaveCreated, SharedOutcomeError } from './bulk-keys.js';

export interface BulkInput {
  ref: string;
  value: unknown;
}

export type BulkOutcome =
  | { ref: string; status: 'created'; key: string; result: CreateEnvelopeResult }
  /** The journal says an earlier run created it: nothing was sent. `elsewhere`: the journal is shared by runners. */
  | { ref: string; status: 'skipped'; key: string; envelopeId: string | undefined; elsewhere?: boolean }
  /** `elsewhere`: another runner's attempt, which this one waited for and did not repeat. */
  | { ref: string; status: 'failed'; key: string; error: unknown; elsewhere?: boolean };

export interface BulkSummary {
  /** New envelopes. */
  created: number;
  /** Created before: skipped from the journal, or replayed by the service for the same key. */
  alreadyCreated: number;
  /** Of those, the ones the journal knew: not sent at all. */
  skipped: number;
  failed: number;
  /** Inputs this run put on the wire (its share, when runners share a journal). */
  sent: number;
  /** Failed in another runner that held the input while this one waited: not sent again here. */
  failedElsewhere: number;
  /** Outcomes the service gave that the journal could not take (the store was lost): reported, not recorded. */
  unrecorded: number;
  /** Inputs never sent because the run stopped early. */
  notAttempted: boolean;
  /**
   * Set when the run stopped early: interrupted, every request would fail the
   * same way (auth), or the journal could not be written (storage): nothing
   * more is sent unrecorded.
   */
  stoppedBy: 'interrupt' | 'auth' | 'storage' | undefined;
  /** With `stoppedBy: 'storage'`: what could not be written, and where. */
  storageError?: StorageError;
}

export interface CreateCall {
  idempotencyKey: string;
  source: string;
  /** Aborts waiting (pacer, retries); a request on the wire is awaited. */
  stop?: AbortSignal | undefined;
  /** Called just before each attempt goes on the wire; the attempt waits for it (the journal's `sending`). */
  beforeAttempt(attempt: number): void | Promise<void>;
}

export interface BulkOptions {
  inputs: AsyncIterable<BulkInput>;
  create(value: unknown, options: CreateCall): Promise<CreateEnvelopeResult>;
  concurrency: number;
  journal?: Journal | undefined;
  /** The caller's own key, for a single input: always the key sent, or the run refuses. */
  fixedKey?: string | undefined;
  /** `--new`: fresh random keys, and what the journal says was created is created again. */
  fresh?: boolean | undefined;
  /** Aborting stops sending at once: queued inputs are not sent; requests on the wire are awaited. */
  stop?: AbortSignal | undefined;
  /**
   * Asks the service whether an envelope an earlier run created under another
   * key is visible to this run's key: `mine` (the same account and
   * environment, e.g. a rotated key), `other` (not found: another account or
   * environment, so this run creates its own). Throws what the service
   * answered otherwise (a refused key: the run stops, exit 3). Asked at most
   * once per other key per run. Without it such entries are not trusted and
   * the input is sent (its derived key lets the service recognise it).
   */
  confirm?: (entry: JournalEntry) => Promise<'mine' | 'other'>;
  onOutcome(outcome: BulkOutcome): void;
  /**
   * An input about to be sent whose contract_id an earlier input of this
   * journal already created an envelope for (an edited row, say): it is sent,
   * since the edit may be deliberate, and named.
   */
  onSecondForContract?(ref: string, contractId: string, earlier: JournalEntry): void;
  /** The clock of the journal's times. */
  now?: () => number;
}

/** An input keyed as it will be sent, with its place among identical inputs. */
interface Keyed {
  input: BulkInput;
  hash: string;
  copy: number;
  id: string;
  /** Deferred: what the journal held while another runner had it. */
  seen?: string | undefined;
}

export async function runBulk(options: BulkOptions): Promise<BulkSummary> {
  const summary: BulkSummary = {
    created: 0,
    alreadyCreated: 0,
    skipped: 0,
    failed: 0,
    sent: 0,
    failedElsewhere: 0,
    unrecorded: 0,
    notAttempted: false,
    stoppedBy: undefined,
  };
  const iterator = options.inputs[Symbol.asyncIterator]();
  const { journal } = options;
  const stopping = () => summary.stoppedBy !== undefined || options.stop?.aborted === true;

  /** Inputs of each content seen so far: the n-th copy of a content is its own envelope. */
  const copies = new Map<string, number>();
  /** Inputs another runner held when this one came to them: taken up again once the stream is read. */
  const deferred: Keyed[] = [];

  /**
   * A journal that cannot be written stops the run: what is on the wire is
   * awaited and reported, nothing new is sent (it could not be recorded).
   */
  function storageFailed(error: StorageError): void {
    summary.storageError ??= error;
    summary.stoppedBy ??= 'storage';
  }
  /** Records, or stops the run when the journal cannot be written; false when it could not. */
  const tryRecord = async (write: () => void | Promise<void>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (error) {
      if (error instanceof StorageError) storageFailed(error);
      else throw error;
      return false;
    }
  };

  /** The service's answer for each other key, asked once per run (a rotated key: one question, not one per envelope). */
  const verdicts = new Map<string, Promise<'mine' | 'other'>>();
  async function createdUnderAnotherKey(others: readonly JournalEntry[]): Promise<JournalEntry | undefined> {
    const { confirm } = options;
    if (!confirm) return undefined;
    for (const entry of others) {
      if (entry.state !== 'created' || !entry.envelope_id) continue;
      const fp = entry.fp ?? '';
      let verdict = verdicts.get(fp);
      if (!verdict) {
        verdict = confirm(entry);
        verdicts.set(fp, verdict);
        // Asked again by the next input if it failed (a network fault is not a verdict).
        verdict.catch(() => verdicts.delete(fp));
      }
      if ((await verdict) === 'mine') return entry;
    }
    return undefined;
  }

  function keyed(raw: BulkInput): Keyed {
    // Keyed as it will be sent: the key must be derived from the body the client sends, whoever
    // read the input (why each step normalises: normalize.ts).
    const input = { ...raw, value: normalizeEnvelope(raw.value) };
    const hash = contentHash(input.value);
    const copy = (copies.get(hash) ?? 0) + 1;
    copies.set(hash, copy);
    return { input, hash, copy, id: `${hash}#${copy}` };
  }

  /** Takes the input from the journal and handles it; an input another runner holds is deferred (or waited for). */
  async function take(item: Keyed, wait: boolean): Promise<void> {
    let taken: JournalTake;
    try {
      taken = journal
        ? await journal.take(item.id, { wait, signal: options.stop, seen: item.seen })
        : { own: undefined, others: [] };
    } catch (error) {
      if (error instanceof StorageError) {
        storageFailed(error);
        summary.notAttempted = true;
        return;
      }
      if (error instanceof InterruptedError) {
        summary.notAttempted = true;
        return;
      }
      throw error;
    }
    if (taken.busy) {
      deferred.push({ ...item, seen: taken.seen });
      return;
    }
    try {
      await handle(item, taken);
    } finally {
      await journal?.release(item.id);
    }
  }

  async function handle({ input, hash, copy, id }: Keyed, taken: JournalTake): Promise<void> {
    const { own, others } = taken;
    // Another runner had it while this one waited: its outcome stands for this run too.
    if (taken.waited && own && own.state !== 'created' && !(own.state === 'sending' && !options.fresh)) {
      summary.failed++;
      summary.failedElsewhere++;
      options.onOutcome({
        ref: input.ref,
        status: 'failed',
        key: own.key,
        elsewhere: true,
        error: new SharedOutcomeError(own),
      });
      return;
    }
    // Created by an earlier run under another key: it counts only if the service shows it to this key.
    let mine: JournalEntry | undefined;
    if (!options.fresh && own?.state !== 'created' && !inDoubt(own)) {
      try {
        mine = await createdUnderAnotherKey(others);
      } catch (error) {
        summary.failed++;
        if (error instanceof AuthError) summary.stoppedBy ??= 'auth';
        options.onOutcome({ ref: input.ref, status: 'failed', key: others[0]?.key ?? '', error });
        return;
      }
    }
    // The key under which it may already exist: this key's entry, one the service confirmed, or one in doubt under another key.
    const known = own ?? mine ?? others.find(inDoubt);
    const key = chooseKey(options, known, hash, copy);
    if (known?.state === 'created' && !options.fresh) {
      // Under this key from now on: the next run needs no question.
      if (known !== own)
        await tryRecord(() =>
          journal?.record({
            id,
            ref: input.ref,
            key: known.key,
            state: 'created',
            ...(known.envelope_id ? { envelope_id: known.envelope_id } : {}),
          }),
        );
      summary.alreadyCreated++;
      summary.skipped++;
      options.onOutcome({
        ref: input.ref,
        status: 'skipped',
        key: known.key,
        envelopeId: known.envelope_id,
        ...(journal?.shared ? { elsewhere: true } : {}),
      });
      return;
    }
    const contractId =
      isRecord(input.value) && typeof input.value.contract_id === 'string'
        ? input.value.contract_id
        : undefined;
    if (contractId !== undefined && !known && !options.fresh) {
      const earlier = await journal?.createdFor(contractId);
      if (earlier && earlier.id !== id) options.onSecondForContract?.(input.ref, contractId, earlier);
    }
    const record = (
      state: JournalState,
      extra: { envelope_id?: string; error?: string; contract_id?: string; at?: string } = {},
    ) => journal?.record({ id, ref: input.ref, key, state, ...extra });
    let onWire = false;
    try {
      const result = await options.create(input.value, {
        idempotencyKey: key,
        source: input.ref,
        stop: options.stop,
        beforeAttempt: async () => {
          if (!onWire) await record('sending');
          if (!onWire) summary.sent++;
          onWire = true;
        },
      });
      const envelopeId = result.envelope.id;
      // Acknowledged by the service: reported whatever the journal can take.
      const about = {
        ...(contractId !== undefined ? { contract_id: contractId } : {}),
        at: new Date((options.now ?? Date.now)()).toISOString(),
      };
      const recorded = await tryRecord(() =>
        record(
          'created',
          envelopeId === undefined || envelopeId === null
            ? about
            : { envelope_id: String(envelopeId), ...about },
        ),
      );
      if (!recorded) summary.unrecorded++;
      // Replayed for another run's request (or a re-run's): it existed before; after this run's own lost answer it is this run's.
      if (result.existed) summary.alreadyCreated++;
      else summary.created++;
      options.onOutcome({ ref: input.ref, status: 'created', key, result });
    } catch (error) {
      if (error instanceof StorageError && !onWire) {
        // The journal could not take "sending": the request was not sent, and nothing more will be.
        storageFailed(error);
        summary.notAttempted = true;
        return;
      }
      if (error instanceof InterruptedError && !error.sent) {
        // Stopped before it went out: not a failure, just not attempted. A key in doubt stays in doubt.
        if (onWire && !inDoubt(known))
          await tryRecord(() => record('failed', { error: 'interrupted before the request was sent' }));
        summary.notAttempted = true;
        return;
      }
      if (onWire) {
        const recorded = await tryRecord(() =>
          record(mayHaveCreated(error) ? 'unknown' : inDoubt(known) ? known!.state : 'failed', {
            error: (error as Error).message,
          }),
        );
        if (!recorded) summary.unrecorded++;
      }
      summary.failed++;
      if (error instanceof AuthError) summary.stoppedBy ??= 'auth';
      options.onOutcome({ ref: input.ref, status: 'failed', key, error });
    }
  }

  async function worker(): Promise<void> {
    while (!stopping()) {
      const next = await iterator.next();
      if (next.done) break;
      if (stopping()) {
        summary.notAttempted = true;
        return;
      }
      await take(keyed(next.value), false);
    }
    // The stream is read: what other runners held is waited for, one at a time per worker.
    for (let item = deferred.shift(); item; item = deferred.shift()) {
      if (stopping()) {
        summary.notAttempted = true;
        return;
      }
      await take(item, true);
    }
  }

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  if (options.stop?.aborted) summary.stoppedBy ??= 'interrupt';
  if (summary.stoppedBy) {
    summary.notAttempted ||= deferred.length > 0 || !(await iterator.next()).done;
    await iterator.return?.();
  }
  return summary;
}
