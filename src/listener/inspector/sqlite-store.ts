/**
 * Deliveries kept in a SQLite file (node:sqlite), across restarts: the newest `keep`, the oldest
 * dropped first. One listener writes a file at a time (a lock file beside it says which). Writes
 * go behind, to a worker thread (assets/inspector/sqlite-writer.js), in batches, one transaction
 * each; this thread reads through a connection of its own (WAL: readers never wait for the
 * writer). A delivery handed over is readable by get() at once, and listed once kept.
 *
 * The listener's thread answers deliveries, so it does as little as it can per delivery: each is
 * encoded into the next batch as it comes (sqlite-batch.ts: two buffers, nothing left on the
 * heap), the batch is moved to the writer, not cloned, and the writer makes the rows.
 *
 * When: writing while deliveries pour in takes the processor from the thread answering them (on
 * two cores under wrk, 0.82 of the listener's rate with batches every 100 ms, however little CPU
 * the writer itself used; 0.96 when nothing was written during the run). So a batch goes once
 * deliveries pause (QUIET_MS without one), or when its first delivery has waited MAX_WAIT_MS,
 * or at once when someone needs it kept: the page or the API listing (flushed()), the listener
 * stopping (close()). Under load that is one batch every MAX_WAIT_MS, and of it only the newest
 * `keep` deliveries are written: the older ones are forgotten before they cost a row (the same
 * transaction would drop them), so the store holds at most twice `keep` between batches. One
 * batch is with the writer at a time; what comes meanwhile goes in the next.
 */
import { closeSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { takePidLock } from '../../core/journal/pid-lock.js';
import { readShipped } from '../../core/web/shipped-files.js';
import {
  ChangeListeners,
  type Attempt,
  type DeliveryQuery,
  type DeliveryRecord,
  type DeliveryStore,
  type DeliverySummary,
} from './records.js';
import { DeliveryBatch, DELIVERY_NUMBERS, FIXED_NUMBERS } from './sqlite-batch.js';
import {
  attemptOf,
  CONNECTION_SETUP,
  filterOf,
  insertAttemptOp,
  PRUNE_ATTEMPTS,
  PRUNE_DELIVERIES,
  prepareFile,
  recordOf,
  SET_ANSWERED,
  summaryOf,
  SUMMARY_COLUMNS,
  WAL_CHECKPOINT_BYTES,
  WRITES,
} from './sqlite-schema.js';
import type { SqliteDatabase, SqliteModule, SqliteValue } from './sqlite.js';

export { StoreFileError } from './sqlite-schema.js';

/** How long a statement waits for another connection's lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * A batch goes once this long has passed without a delivery (or an attempt): a delivery now and
 * then is written about a tenth of a second after it came. Also the step MAX_WAIT_MS is counted in.
 */
const QUIET_MS = 100;

/**
 * The longest a delivery waits to be written while deliveries keep coming: what a listener
 * killed outright (SIGKILL, a crash) under load may lose; Ctrl-C and SIGTERM write everything
 * first. Counted in QUIET_MS steps of the event loop's timers, not read off a clock, so that
 * setting the clock back cannot hold a batch.
 */
const MAX_WAIT_MS = 5_000;

/** Emptied batches kept for reuse: with `filling`, `older` and the one being written, all a load needs. */
const SPARE_BATCHES = 2;

/**
 * A batch whose buffers grew past this is not kept: a large `--inspect-keep` under load can grow
 * one to hundreds of MB, which a quiet listener should not go on holding. The default keep's
 * batches (10,000 deliveries of most of a kilobyte) stay under it.
 */
const SPARE_BYTES = 32 * 1024 * 1024;

export class SqliteStore implements DeliveryStore {
  private newest: number;
  private prunedUpTo: number;
  /** The next batch: the deliveries handed over since the last one went, then the other writes. */
  private filling = new DeliveryBatch();
  /**
   * Batches written or dropped, emptied, for the next ones: their buffers have grown to what the
   * load needed, and new ones would grow again, copy after copy, from 64 KB. Memory outside the
   * JavaScript heap that V8 sees allocated counts towards its next full collection: in one run
   * with new buffers the listener's thread ran 10 where the plain listener ran 3, and 2 against
   * 2 in one with these reused.
   */
  private readonly spare: DeliveryBatch[] = [];
  /** The `keep` deliveries before `filling`, when that many came while the writer was busy. */
  private older: DeliveryBatch | undefined;
  private ops: SqliteValue[][] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Deliveries and attempts handed over: a QUIET_MS step that ends with the same count was quiet. */
  private arrivals = 0;
  private arrivalsAtStep = 0;
  /** The QUIET_MS steps the queued writes have waited through. */
  private steps = 0;
  /** The deliveries of each batch the writer has not acknowledged yet (at most one): get() reads them meanwhile. */
  private readonly batches = new Map<number, DeliveryBatch[]>();
  /** Attempts handed over, not yet kept, by delivery; `seq`: the batch they go in. */
  private readonly unkeptAttempts = new Map<
    number,
    { attempts: Attempt[]; answered?: number; seq: number }
  >();
  private sent = 0;
  private kept = 0;
  private waiting: { seq: number; resolve: () => void }[] = [];
  private readonly changeListeners = new ChangeListeners();
  private readonly errorListeners: ((error: Error) => void)[] = [];
  private broken: Error | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    readonly file: string,
    readonly keep: number,
    private readonly reader: SqliteDatabase,
    private readonly worker: Worker,
    private readonly unlock: () => void,
  ) {
    this.newest = Number(reader.prepare('SELECT coalesce(max(id), 0) AS id FROM deliveries').get()!.id);
    this.prunedUpTo = Math.max(0, this.newest - keep);
    worker.on('message', (message: number | { seq: number; error: string }) =>
      typeof message === 'number'
        ? this.acknowledged(message)
        : this.acknowledged(message.seq, message.error),
    );
    worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  /** Opens (or makes, 0600) the file and starts its writer; a file of another kind is a StoreFileError. */
  static open(sqlite: SqliteModule, file: string, keep: number): SqliteStore {
    const unlock = takePidLock(
      `${file}.lock`,
      (pid) => `${file} is in use by another webhook listener (pid ${pid})`,
    );
    let reader: SqliteDatabase | undefined;
    try {
      // Made here, private: SQLite gives its -wal and -shm files the database file's mode.
      closeSync(openSync(file, 'a', 0o600));
      reader = new sqlite.DatabaseSync(file, { timeout: BUSY_TIMEOUT_MS });
      prepareFile(reader, file, keep);
      reader.exec(CONNECTION_SETUP);
      const worker = new Worker(readShipped('inspector', 'sqlite-writer.js').toString('utf8'), {
        eval: true,
        workerData: {
          file,
          busyTimeoutMs: BUSY_TIMEOUT_MS,
          connectionSetup: CONNECTION_SETUP,
          walCheckpointBytes: WAL_CHECKPOINT_BYTES,
          statements: WRITES,
          deliveryNumbers: DELIVERY_NUMBERS,
          fixedNumbers: FIXED_NUMBERS,
        },
      });
      return new SqliteStore(file, keep, reader, worker, unlock);
    } catch (error) {
      reader?.close();
      unlock();
      throw error;
    }
  }

  get lastId(): number {
    return this.newest;
  }

  add(record: DeliveryRecord): void {
    this.newest = Math.max(this.newest, record.id);
    if (this.broken) return;
    this.filling.add(record);
    if (this.filling.size >= this.keep) {
      // What `older` held is past `keep` now: its room takes the next deliveries.
      const dropped = this.older;
      this.older = this.filling;
      if (dropped) this.spareBatch(dropped);
      this.filling = this.emptyBatch();
    }
    this.arrived();
  }

  addAttempts(id: number, attempts: readonly Attempt[], answered?: number): void {
    if (this.broken) return;
    const seq = this.sent + 1;
    const unkept = this.unkeptAttempts.get(id) ?? { attempts: [], seq };
    unkept.attempts.push(...attempts);
    if (answered !== undefined) unkept.answered = answered;
    unkept.seq = seq;
    this.unkeptAttempts.set(id, unkept);
    for (const attempt of attempts) this.ops.push(insertAttemptOp(id, attempt));
    if (answered !== undefined) this.ops.push([SET_ANSWERED, answered, id]);
    this.arrived();
  }

  list(query: DeliveryQuery): DeliverySummary[] {
    const { where, params } = filterOf(query);
    const rows = this.reader
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM deliveries ${where} ORDER BY id DESC LIMIT ?`)
      .all(...params, query.limit);
    const attempts = this.attemptsOf(rows.map((row) => Number(row.id)));
    return rows.map((row) => summaryOf(row, attempts.get(Number(row.id)) ?? []));
  }

  get(id: number): DeliveryRecord | undefined {
    const record = this.handedOver(id) ?? this.fromFile(id);
    const unkept = this.unkeptAttempts.get(id);
    if (record && unkept) {
      record.attempts.push(...unkept.attempts);
      if (unkept.answered !== undefined) record.answered = unkept.answered;
    }
    return record;
  }

  count(): number {
    return Number(this.reader.prepare('SELECT count(*) AS n FROM deliveries').get()!.n);
  }

  types(): string[] {
    return this.reader
      .prepare('SELECT DISTINCT type FROM deliveries WHERE type IS NOT NULL ORDER BY type')
      .all()
      .map((row) => String(row.type));
  }

  onChange(listener: (newestId: number) => void): () => void {
    return this.changeListeners.add(listener);
  }

  /** How many batches have gone to the writer (what the pace is tested by). */
  get batchesSent(): number {
    return this.sent;
  }

  onError(listener: (error: Error) => void): void {
    this.errorListeners.push(listener);
  }

  flushed(): Promise<void> {
    this.flush();
    // What is still queued goes as the batch after the one with the writer.
    const seq = this.queued() ? this.sent + 1 : this.sent;
    if (this.kept >= seq || this.broken) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ seq, resolve }));
  }

  async close(): Promise<void> {
    await this.flushed();
    this.worker.postMessage('close');
    await this.exited;
    this.reader.close();
    this.changeListeners.clear();
    this.unlock();
  }

  /** A delivery handed over to be written, not yet kept. */
  private handedOver(id: number): DeliveryRecord | undefined {
    for (const batch of [this.filling, this.older, ...[...this.batches.values()].flat()]) {
      const record = batch?.find(id);
      if (record) return record;
    }
    return undefined;
  }

  private fromFile(id: number): DeliveryRecord | undefined {
    const row = this.reader.prepare('SELECT * FROM deliveries WHERE id = ?').get(id);
    return row && recordOf(row, this.attemptsOf([id]).get(id) ?? []);
  }

  private attemptsOf(ids: number[]): Map<number, Attempt[]> {
    const found = new Map<number, Attempt[]>();
    if (ids.length === 0) return found;
    const rows = this.reader
      .prepare('SELECT * FROM attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY rowid')
      .all(JSON.stringify(ids));
    for (const row of rows) {
      const id = Number(row.delivery_id);
      found.set(id, [...(found.get(id) ?? []), attemptOf(row)]);
    }
    return found;
  }

  private queued(): boolean {
    return this.filling.size > 0 || this.older !== undefined || this.ops.length > 0;
  }

  /** Keeps an emptied batch for the next, unless enough are kept or it grew past SPARE_BYTES. */
  private spareBatch(batch: DeliveryBatch): void {
    if (this.spare.length < SPARE_BATCHES && batch.roomBytes <= SPARE_BYTES) this.spare.push(batch);
  }

  private emptyBatch(): DeliveryBatch {
    return this.spare.pop()?.reset() ?? new DeliveryBatch();
  }

  /** A delivery or an attempt was handed over: the batch's pace and the page's stream hear of it. */
  private arrived(): void {
    this.arrivals++;
    this.schedule();
    this.changeListeners.changed(this.newest);
  }

  /** Takes the next QUIET_MS step, unless one is under way or the writer has a batch. */
  private schedule(): void {
    if (this.timer !== undefined || this.sent > this.kept) return;
    this.arrivalsAtStep = this.arrivals;
    this.timer = setTimeout(() => this.step(), QUIET_MS);
    this.timer.unref();
  }

  /** The end of a QUIET_MS step: the batch goes if the step was quiet or it has waited long enough. */
  private step(): void {
    this.timer = undefined;
    if (this.sent > this.kept || !this.queued()) return;
    this.steps++;
    if (this.arrivals === this.arrivalsAtStep || this.steps * QUIET_MS >= MAX_WAIT_MS) this.flush();
    else this.schedule();
  }

  /** Hands what is queued to the writer, the deliveries past `keep` dropped in the same transaction. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queued() || this.broken || this.sent > this.kept) return;
    const cutoff = this.newest - this.keep;
    if (cutoff > this.prunedUpTo) {
      this.ops.push([PRUNE_ATTEMPTS, cutoff], [PRUNE_DELIVERIES, cutoff]);
      this.prunedUpTo = cutoff;
    }
    const batches = this.older ? [this.older, this.filling] : [this.filling];
    // Only the newest `keep`: of `older`, what `filling` leaves room for.
    const encoded = this.older
      ? [this.older.encoded(this.keep - this.filling.size), this.filling.encoded()]
      : [this.filling.encoded()];
    const seq = ++this.sent;
    this.steps = 0;
    this.batches.set(seq, batches);
    this.worker.postMessage(
      { seq, batches: encoded, ops: this.ops },
      encoded.flatMap(({ numbers, bytes }) => [numbers, bytes]),
    );
    this.older = undefined;
    this.filling = this.emptyBatch();
    this.ops = [];
  }

  private acknowledged(seq: number, error?: string): void {
    for (const batch of this.batches.get(seq) ?? []) this.spareBatch(batch);
    this.batches.delete(seq);
    for (const [id, unkept] of this.unkeptAttempts) if (unkept.seq <= seq) this.unkeptAttempts.delete(id);
    this.kept = seq;
    if (error !== undefined) this.report(new Error(error));
    // What came while this batch was being written goes next (at once when someone waits for it).
    if (this.waiting.length > 0) this.flush();
    else if (this.queued()) this.schedule();
    if (this.waiting.length > 0)
      this.waiting = this.waiting.filter((waiter) => (waiter.seq <= seq ? (waiter.resolve(), false) : true));
  }

  /** The writer is gone: nothing more can be kept; what was kept stays readable. */
  private fail(error: Error): void {
    this.broken = error;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.batches.clear();
    this.unkeptAttempts.clear();
    this.ops = [];
    this.older = undefined;
    this.filling = new DeliveryBatch();
    this.report(error);
    for (const waiter of this.waiting.splice(0)) waiter.resolve();
  }

  private report(error: Error): void {
    for (const listener of this.errorListeners) listener(error);
  }
}
