/**
 * The create journal in Redis (`--journal-store`): what lets runners on
 * machines that do not outlive their job (CI), and runners working on the
 * same inputs at once, create each envelope once.
 *
 * It means what the file journal (journal.ts) means: the same entries and
 * states (sending, created, unknown, failed), each under the fingerprint of
 * the key it was sent with, for one service and environment. It is not per
 * command: a CI checkout's paths differ from run to run, and an input is known
 * by its content, as its derived Idempotency-Key is.
 *
 * What the file journal gets from its lock, this one gets from claims: before
 * an input is sent, its runner claims it (set-if-absent, with a lease renewed
 * while the request is in flight). Another runner finds it busy and moves on;
 * it comes back to it later, when the outcome is recorded (created elsewhere)
 * or the lease ran out (the claimer died: the entry's key is the only one to
 * send it again with). Claims are per key fingerprint, so another account's
 * runner is never held up: its own inputs are its own.
 *
 * Keys: `<prefix>{<ns>}:entries` (input → its entries by fingerprint, JSON),
 * `:contracts`, `:meta`, and `:claim:<fingerprint>:<input>`; `<ns>` is a
 * hash of the service and environment, and the hash tag keeps one journal in
 * one Cluster slot. Entries, contracts and meta expire `retentionMs` after the
 * last write, as file journals are pruned.
 *
 * The store is never silently replaced: unreachable at the start, the run
 * fails before sending; lost mid-run, taking an input or recording `sending`
 * fails (nothing new is sent), while the outcome of a request already sent
 * waits up to `recoverMs` for the store to come back.
 */
import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../clock.js';
import { InterruptedError, StorageError } from '../errors.js';
import { JOURNAL_RETENTION_MS, type Journal, type JournalEntry, type JournalTake } from './journal.js';
import { showRateStoreUrl, storeFailure } from '../pacing/rate-store-url.js';
import { within } from '../pacing/within.js';
import {
  createJournalClient,
  JOURNAL_KEY_PREFIX,
  journalKeys,
  journalNamespace,
  type JournalClient,
} from './redis-journal-keys.js';

// Where a journal's keys are, for journal-admin and tests.
export { JOURNAL_KEY_PREFIX, journalKeys, journalNamespace, storeFailure };

/** How long a claim lasts unless renewed: a killed runner's inputs wait this long for another. */
const DEFAULT_LEASE_MS = 15_000;
/**
 * A store slower than this to answer is as good as lost. Longer than the rate store's 2 s: losing
 * the journal stops the run, where losing the budget only paces locally.
 */
const DEFAULT_TIMEOUT_MS = 5_000;
/** How long the outcome of a request already sent waits for a lost store to come back. */
const DEFAULT_RECOVER_MS = 30_000;

export interface RedisJournalOptions {
  /** A redis:// or rediss:// URL (rate-store-url.ts checks it). */
  url: string;
  /** serviceIdentity() of the base URL. */
  service: string;
  environment: string | null;
  /** keyFingerprint() of the key this run sends with. */
  fingerprint: string;
  retentionMs?: number;
  leaseMs?: number;
  timeoutMs?: number;
  recoverMs?: number;
  prefix?: string;
  clock?: Clock;
  /** Lost and back again, for --verbose. */
  onNote?: (message: string) => void;
}

export class RedisJournal implements Journal {
  readonly shared = true;
  readonly shownUrl: string;
  readonly namespace: string;
  private readonly keys: ReturnType<typeof journalKeys>;
  private readonly client: JournalClient;
  private readonly clock: Clock;
  private readonly retentionMs: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly recoverMs: number;
  /** Who this process is in the claims. */
  readonly runner = randomBytes(8).toString('hex');
  /** Renewal timers of the claims this runner holds. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();
  private closed = false;
  private opened = false;
  /** Why the store failed mid-run, once it has (the run stops taking inputs: bulk.ts). */
  lost: string | undefined;
  /** Between a lost connection and its return: each loss and each return is noted once. */
  private down = false;

  constructor(private readonly options: RedisJournalOptions) {
    this.shownUrl = showRateStoreUrl(options.url);
    this.namespace = journalNamespace(options.service, options.environment);
    this.keys = journalKeys(options.prefix ?? JOURNAL_KEY_PREFIX, this.namespace);
    this.clock = options.clock ?? systemClock;
    this.retentionMs = options.retentionMs ?? JOURNAL_RETENTION_MS;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.recoverMs = options.recoverMs ?? DEFAULT_RECOVER_MS;
    this.client = createJournalClient(options.url, this.timeoutMs, () => this.opened);
    // node-redis emits 'error' on a lost socket; unhandled, it would end the process.
    this.client.on('error', (error: unknown) => {
      // Before the open, a failure is the open's to report (unreachable), not a loss.
      if (this.closed || !this.opened || this.down) return;
      this.down = true;
      this.lost ??= storeFailure(error);
      this.options.onNote?.(`journal store ${this.shownUrl} lost (${storeFailure(error)})`);
    });
    this.client.on('ready', () => {
      if (!this.down) return;
      this.down = false;
      this.options.onNote?.(`journal store ${this.shownUrl} back`);
    });
  }

  /** Connects and names the journal; throws a StorageError (nothing sent yet) when the store cannot be used. */
  async open(): Promise<this> {
    try {
      await this.bounded(this.client.connect());
      await this.run('', [
        'open',
        this.options.service,
        this.options.environment ?? '?',
        String(this.retentionMs),
      ]);
      this.opened = true;
    } catch (error) {
      await this.close();
      throw this.failure(error, 'is unreachable', 'nothing was sent');
    }
    return this;
  }

  private failure(error: unknown, what: string, consequence: string): StorageError {
    return new StorageError(
      this.shownUrl,
      (error as { code?: string }).code,
      `journal store ${this.shownUrl} ${what} (${storeFailure(error)}); ${consequence}`,
      {
        hint: 'check that Redis is up and the URL is right; the journal is never kept elsewhere instead, since another runner could not see it',
        cause: error,
      },
    );
  }

  private claimKey(id: string): string {
    return `${this.keys.claims}${this.options.fingerprint}:${id}`;
  }

  private run(id: string, args: string[]): Promise<unknown> {
    const { entries, contracts, meta } = this.keys;
    return this.bounded(this.client.journal([entries, contracts, meta, this.claimKey(id)], args));
  }

  /** One call, bounded in time: a store that stops answering (SIGSTOP, a partition) must not hold the run. */
  private bounded<T>(work: Promise<T>): Promise<T> {
    return within(work, this.timeoutMs);
  }

  /** An input's entries, this key's apart; `ownText` tells whether this key's entry changed. */
  private split(id: string, json: string): Pick<JournalTake, 'own' | 'others'> & { ownText: string } {
    if (!json) return { own: undefined, others: [], ownText: '' };
    let byKey: Record<string, JournalEntry>;
    try {
      byKey = JSON.parse(json) as Record<string, JournalEntry>;
    } catch (error) {
      throw new StorageError(
        this.shownUrl,
        undefined,
        `journal store ${this.shownUrl} holds an entry for ${id} that is not JSON; nothing more is sent`,
        { hint: 'see it with `journal show`; `journal forget` removes the journal', cause: error },
      );
    }
    const own = byKey[this.options.fingerprint];
    const others = Object.entries(byKey)
      .filter(([fp]) => fp !== this.options.fingerprint)
      .map(([fp, entry]) => ({ ...entry, fp }));
    return {
      own: own ? { ...own, fp: this.options.fingerprint } : undefined,
      others,
      ownText: own ? JSON.stringify(own) : '',
    };
  }

  async take(
    id: string,
    options: { wait?: boolean; signal?: AbortSignal | undefined; seen?: string | undefined } = {},
  ): Promise<JournalTake> {
    // What the journal held while another runner had the input: an outcome that differs from it
    // is that runner's; one that does not is an earlier run's, handled as on one machine.
    let heldAt = options.seen;
    // Lost once, the run stops taking inputs, even if the store is back: it may have come back empty.
    if (this.lost !== undefined) throw this.failure(new Error(this.lost), 'lost', 'nothing more is sent');
    for (;;) {
      let reply: [string, string, number];
      try {
        reply = (await this.run(id, ['take', id, this.runner, String(this.leaseMs)])) as [
          string,
          string,
          number,
        ];
      } catch (error) {
        this.lost ??= storeFailure(error);
        throw this.failure(error, 'lost', 'nothing more is sent');
      }
      const [state, json, leftMs] = reply;
      const { ownText, ...view } = this.split(id, json);
      if (state === 'mine') {
        this.startRenewing(id);
        // Only this key's entry: another account's runner writing its own does not count.
        return { ...view, ...(heldAt !== undefined && ownText !== heldAt ? { waited: true } : {}) };
      }
      if (!options.wait) return { ...view, busy: true, seen: ownText };
      heldAt ??= ownText;
      // The other runner's outcome comes when it records it; a dead runner's when its lease ends.
      await this.clock.sleep(Math.max(50, Math.min(Number(leftMs), 500)), options.signal).catch(() => {
        throw new InterruptedError();
      });
    }
  }

  private startRenewing(id: string): void {
    if (this.renewals.has(id)) return;
    const timer = setInterval(
      () => {
        this.run(id, ['renew', this.runner, String(this.leaseMs)]).then(
          (kept) => {
            // Lost to the lease (a stalled runner): the journaled key still protects the resend.
            if (Number(kept) === 0) this.options.onNote?.(`the claim of ${id} expired and was taken over`);
          },
          () => {},
        );
      },
      Math.max(100, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    this.renewals.set(id, timer);
  }

  private stopRenewing(id: string): void {
    clearInterval(this.renewals.get(id));
    this.renewals.delete(id);
  }

  /**
   * `sending` is written once (it is the promise made before the request goes
   * out: a store that cannot take it stops the run before sending); an
   * outcome waits for a lost store to come back, up to recoverMs.
   */
  async record(entry: JournalEntry): Promise<void> {
    const line = JSON.stringify({ ...entry, fp: undefined });
    const contract =
      entry.state === 'created' && entry.contract_id !== undefined
        ? `${this.options.fingerprint}|${entry.contract_id}`
        : '';
    const finished = entry.state !== 'sending';
    const args = [
      'record',
      entry.id,
      this.options.fingerprint,
      line,
      String(this.retentionMs),
      contract,
      finished ? '1' : '0',
      this.runner,
    ];
    const deadline = this.clock.now() + (finished ? this.recoverMs : 0);
    for (;;) {
      let reply: unknown;
      try {
        reply = await this.run(entry.id, args);
      } catch (error) {
        this.lost ??= storeFailure(error);
        if (this.closed || this.clock.now() >= deadline)
          throw this.failure(
            error,
            'lost',
            finished ? `the outcome of ${entry.ref} could not be recorded` : 'nothing more is sent',
          );
        await this.clock.sleep(250);
        continue;
      }
      if (reply === 'not_claimed') {
        this.stopRenewing(entry.id);
        throw new StorageError(
          this.shownUrl,
          undefined,
          `the claim of ${entry.ref} ran out before it was sent (this run stalled longer than the lease); another runner has it now, so it is not sent here, and nothing more is sent`,
          { hint: 'run the same command again to finish' },
        );
      }
      if (finished) this.stopRenewing(entry.id);
      return;
    }
  }

  async release(id: string): Promise<void> {
    // Recording an outcome gave the claim back already (one round trip fewer per envelope).
    if (!this.renewals.has(id)) return;
    this.stopRenewing(id);
    // Best effort: a claim not given back ends with its lease.
    await this.run(id, ['release', this.runner]).catch(() => {});
  }

  async createdFor(contractId: string): Promise<JournalEntry | undefined> {
    try {
      const json = await this.bounded(
        this.client.hGet(this.keys.contracts, `${this.options.fingerprint}|${contractId}`),
      );
      return typeof json === 'string' ? (JSON.parse(json) as JournalEntry) : undefined;
    } catch {
      // A warning that cannot be looked up is not a reason to stop: the input is sent either way.
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.renewals.keys()]) this.stopRenewing(id);
    try {
      if (this.client.isOpen) await this.bounded(this.client.close());
    } catch {
      try {
        this.client.destroy();
      } catch {
        // already closing
      }
    }
  }
}

/** Opens the shared journal; throws a StorageError when the store cannot be used (nothing sent). */
export function openRedisJournal(options: RedisJournalOptions): Promise<RedisJournal> {
  return new RedisJournal(options).open();
}
