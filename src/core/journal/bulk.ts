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

export function runBulk(options: BulkOptions): Promise<BulkSummary> {
  return new BulkRun(options).run();
}

/** An input about to be sent: the key it goes out with, and what the journal knew of it. */
interface Outgoing extends Keyed {
  key: string;
  known: JournalEntry | undefined;
  contractId: string | undefined;
}

/** What a journal entry says of an input besides its key and state. */
type EntryDetails = Pick<JournalEntry, 'envelope_id' | 'error' | 'contract_id' | 'at'>;

/**
 * One run: workers pull inputs from one stream and share these fields (what the run counted,
 * the contents it has seen, what it deferred, the service's verdicts on other keys).
 */
class BulkRun {
  readonly summary: BulkSummary = {
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
  private readonly inputs: AsyncIterator<BulkInput>;
  /** Inputs of each content seen so far: the n-th copy of a content is its own envelope. */
  private readonly copies = new Map<string, number>();
  /** Inputs another runner held when this one came to them: taken up again once the stream is read. */
  private readonly deferred: Keyed[] = [];
  /** The service's answer for each other key, asked once per run (a rotated key: one question, not one per envelope). */
  private readonly verdicts = new Map<string, Promise<'mine' | 'other'>>();

  constructor(private readonly options: BulkOptions) {
    this.inputs = options.inputs[Symbol.asyncIterator]();
  }

  async run(): Promise<BulkSummary> {
    const { options, summary } = this;
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, () => this.worker()));
    if (options.stop?.aborted) summary.stoppedBy ??= 'interrupt';
    if (summary.stoppedBy) {
      summary.notAttempted ||= this.deferred.length > 0 || !(await this.inputs.next()).done;
      await this.inputs.return?.();
    }
    return summary;
  }

  private get stopping(): boolean {
    return this.summary.stoppedBy !== undefined || this.options.stop?.aborted === true;
  }

  private async worker(): Promise<void> {
    while (!this.stopping) {
      const next = await this.inputs.next();
      if (next.done) break;
      if (this.stopping) {
        this.summary.notAttempted = true;
        return;
      }
      await this.take(this.keyed(next.value), false);
    }
    // The stream is read: what other runners held is waited for, one at a time per worker.
    for (let item = this.deferred.shift(); item; item = this.deferred.shift()) {
      if (this.stopping) {
        this.summary.notAttempted = true;
        return;
      }
      await this.take(item, true);
    }
  }

  private keyed(raw: BulkInput): Keyed {
    // Keyed as it will be sent: the key must be derived from the body the client sends, whoever
    // read the input (why each step normalises: normalize.ts).
    const input = { ...raw, value: normalizeEnvelope(raw.value) };
    const hash = contentHash(input.value);
    const copy = (this.copies.get(hash) ?? 0) + 1;
    this.copies.set(hash, copy);
    return { input, hash, copy, id: `${hash}#${copy}` };
  }

  /** Takes the input from the journal and handles it; an input another runner holds is deferred (or waited for). */
  private async take(item: Keyed, wait: boolean): Promise<void> {
    const { journal, stop } = this.options;
    let taken: JournalTake;
    try {
      taken = journal
        ? await journal.take(item.id, { wait, signal: stop, seen: item.seen })
        : { own: undefined, others: [] };
    } catch (error) {
      if (error instanceof StorageError) this.storageFailed(error);
      else if (!(error instanceof InterruptedError)) throw error;
      this.summary.notAttempted = true;
      return;
    }
    if (taken.busy) {
      this.deferred.push({ ...item, seen: taken.seen });
      return;
    }
    try {
      await this.handle(item, taken);
    } finally {
      await journal?.release(item.id);
    }
  }

  private async handle(item: Keyed, { own, others, waited }: JournalTake): Promise<void> {
    const { fresh } = this.options;
    // Another runner had it while this one waited: its outcome stands for this run too.
    if (waited && own && own.state !== 'created' && !(own.state === 'sending' && !fresh)) {
      this.failedElsewhere(item, own);
      return;
    }
    // Created by an earlier run under another key: it counts only if the service shows it to this key.
    let mine: JournalEntry | undefined;
    if (!fresh && own?.state !== 'created' && !inDoubt(own)) {
      try {
        mine = await this.createdUnderAnotherKey(others);
      } catch (error) {
        this.failed(item, others[0]?.key ?? '', error);
        return;
      }
    }
    // The key under which it may already exist: this key's entry, one the service confirmed, or one in doubt under another key.
    const known = own ?? mine ?? others.find(inDoubt);
    // Chosen before a created input is skipped: the caller's own key is refused if it would create it again.
    const key = chooseKey(this.options, known, item.hash, item.copy);
    if (known?.state === 'created' && !fresh) {
      await this.alreadyCreated(item, known, known !== own);
      return;
    }
    const value = item.input.value;
    const contractId =
      isRecord(value) && typeof value.contract_id === 'string' ? value.contract_id : undefined;
    if (contractId !== undefined && !known && !fresh) await this.secondForContract(item, contractId);
    await this.send({ ...item, key, known, contractId });
  }

  /** Another runner's attempt, waited for and not repeated: its failure is this input's. */
  private failedElsewhere({ input }: Keyed, own: JournalEntry): void {
    this.summary.failed++;
    this.summary.failedElsewhere++;
    const error = new SharedOutcomeError(own);
    this.options.onOutcome({ ref: input.ref, status: 'failed', key: own.key, elsewhere: true, error });
  }

  /** Created before: nothing is sent. Found under another key, it is recorded under this one: no question next run. */
  private async alreadyCreated(item: Keyed, known: JournalEntry, underAnotherKey: boolean): Promise<void> {
    const { journal } = this.options;
    if (underAnotherKey) {
      const details = known.envelope_id ? { envelope_id: known.envelope_id } : {};
      await this.tryRecord(() => this.record(item, known.key, 'created', details));
    }
    this.summary.alreadyCreated++;
    this.summary.skipped++;
    this.options.onOutcome({
      ref: item.input.ref,
      status: 'skipped',
      key: known.key,
      envelopeId: known.envelope_id,
      ...(journal?.shared ? { elsewhere: true } : {}),
    });
  }

  private async secondForContract({ input, id }: Keyed, contractId: string): Promise<void> {
    const earlier = await this.options.journal?.createdFor(contractId);
    if (earlier && earlier.id !== id) this.options.onSecondForContract?.(input.ref, contractId, earlier);
  }

  /** Sends the input under its key: `sending` recorded before the first attempt goes out, the outcome after. */
  private async send(outgoing: Outgoing): Promise<void> {
    const { input, key } = outgoing;
    let onWire = false;
    try {
      const result = await this.options.create(input.value, {
        idempotencyKey: key,
        source: input.ref,
        stop: this.options.stop,
        beforeAttempt: async () => {
          if (onWire) return;
          await this.record(outgoing, key, 'sending');
          this.summary.sent++;
          onWire = true;
        },
      });
      await this.created(outgoing, result);
    } catch (error) {
      await this.sendFailed(outgoing, onWire, error);
    }
  }

  /** Acknowledged by the service: reported whatever the journal can take. */
  private async created(outgoing: Outgoing, result: CreateEnvelopeResult): Promise<void> {
    const { input, key, contractId } = outgoing;
    const envelopeId = result.envelope.id;
    const details: EntryDetails = {
      ...(envelopeId === undefined || envelopeId === null ? {} : { envelope_id: String(envelopeId) }),
      ...(contractId !== undefined ? { contract_id: contractId } : {}),
      at: new Date((this.options.now ?? Date.now)()).toISOString(),
    };
    if (!(await this.tryRecord(() => this.record(outgoing, key, 'created', details))))
      this.summary.unrecorded++;
    // Replayed for another run's request (or a re-run's): it existed before; after this run's own lost answer it is this run's.
    if (result.existed) this.summary.alreadyCreated++;
    else this.summary.created++;
    this.options.onOutcome({ ref: input.ref, status: 'created', key, result });
  }

  private async sendFailed(outgoing: Outgoing, onWire: boolean, error: unknown): Promise<void> {
    const { key, known } = outgoing;
    if (error instanceof StorageError && !onWire) {
      // The journal could not take "sending": the request was not sent, and nothing more will be.
      this.storageFailed(error);
      this.summary.notAttempted = true;
      return;
    }
    if (error instanceof InterruptedError && !error.sent) {
      // Stopped before it went out: not a failure, just not attempted. A key in doubt stays in doubt.
      const details = { error: 'interrupted before the request was sent' };
      if (onWire && !inDoubt(known))
        await this.tryRecord(() => this.record(outgoing, key, 'failed', details));
      this.summary.notAttempted = true;
      return;
    }
    if (onWire) {
      const state = mayHaveCreated(error) ? 'unknown' : known && inDoubt(known) ? known.state : 'failed';
      const details = { error: (error as Error).message };
      if (!(await this.tryRecord(() => this.record(outgoing, key, state, details))))
        this.summary.unrecorded++;
    }
    this.failed(outgoing, key, error);
  }

  private failed({ input }: Keyed, key: string, error: unknown): void {
    this.summary.failed++;
    if (error instanceof AuthError) this.summary.stoppedBy ??= 'auth';
    this.options.onOutcome({ ref: input.ref, status: 'failed', key, error });
  }

  private async createdUnderAnotherKey(others: readonly JournalEntry[]): Promise<JournalEntry | undefined> {
    const { confirm } = this.options;
    if (!confirm) return undefined;
    for (const entry of others) {
      if (entry.state !== 'created' || !entry.envelope_id) continue;
      const fp = entry.fp ?? '';
      let verdict = this.verdicts.get(fp);
      if (!verdict) {
        verdict = confirm(entry);
        this.verdicts.set(fp, verdict);
        // Asked again by the next input if it failed (a network fault is not a verdict).
        verdict.catch(() => this.verdicts.delete(fp));
      }
      if ((await verdict) === 'mine') return entry;
    }
    return undefined;
  }

  private record(item: Keyed, key: string, state: JournalState, details: EntryDetails = {}) {
    return this.options.journal?.record({ id: item.id, ref: item.input.ref, key, state, ...details });
  }

  /**
   * A journal that cannot be written stops the run: what is on the wire is
   * awaited and reported, nothing new is sent (it could not be recorded).
   */
  private storageFailed(error: StorageError): void {
    this.summary.storageError ??= error;
    this.summary.stoppedBy ??= 'storage';
  }

  /** Records, or stops the run when the journal cannot be written; false when it could not. */
  private async tryRecord(write: () => void | Promise<void>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (error instanceof StorageError) this.storageFailed(error);
      else throw error;
      return false;
    }
  }
}
