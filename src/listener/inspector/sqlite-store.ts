/**
 * Deliveries kept in a SQLite file (node:sqlite), across restarts: the newest `keep`, the oldest
 * dropped first. One listener writes a file at a time (a lock file beside it says which). Writes
 * go behind, to a worker thread (assets/inspector/sqlite-writer.js), in batches, one transaction
 * each; this thread reads through a connection of its own (WAL: readers never wait for the
 * writer). A delivery handed over is readable by get() at once, and listed once kept.
 *
 * The listener's thread answers deliveries, so it does as little as it can per delivery: each is
 * encoded into the next batch as it comes (sqlite-batch.ts: two buffers, nothing left on the
 * heap), the batch is moved to the writer, not cloned, and the writer makes the rows. One batch is
 * with the writer at a time: what comes meanwhile waits for its acknowledgement (and
 * BATCH_INTERVAL_MS) and goes as the next batch, so under load the batches grow and there are
 * fewer messages and commits per delivery, not more. A writer that falls behind by `keep`
 * deliveries holds no more than twice that: what is older would be dropped on writing anyway.
 */
import { closeSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { takePidLock } from '../../core/journal/pid-lock.js';
import { readShipped } from '../../core/web/shipped-files.js';
import {
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
  PAGE_SIZE,
  insertAttemptOp,
  PRUNE_ATTEMPTS,
  PRUNE_DELIVERIES,
  recordOf,
  SCHEMA,
  SCHEMA_VERSION,
  SET_ANSWERED,
  summaryOf,
  SUMMARY_COLUMNS,
  WAL_CHECKPOINT_BYTES,
  WRITES,
} from './sqlite-schema.js';
import type { SqliteDatabase, SqliteModule, SqliteValue } from './sqlite.js';

/** How long a statement waits for another connection's lock before failing. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * The least time between two batches (a delivery after a quiet spell goes at once). Each batch
 * costs the listener a message out and one back, and the writer a transaction,
 * whatever its size; without a floor, a quick writer takes batches of two or three deliveries
 * under load and those costs outweigh the deliveries'. A tenth of a second: under wrk's load,
 * batches of about 2,500 rather than 500 at 20 ms, the writer's CPU per delivery a sixth less
 * (the transaction, the prune and the WAL's header paid for less often). A delivery is still
 * readable by get() at once; it is listed at most this much later, which the page's live list
 * shows as at once.
 */
const BATCH_INTERVAL_MS = 100;

/** A file the store cannot use: not SQLite, another program's, or a newer sign-cli's. */
export class StoreFileError extends Error {}

export class SqliteStore implements DeliveryStore {
  private newest: number;
  private prunedUpTo: number;
  /** The next batch: the deliveries handed over since the last one went, then the other writes. */
  private filling = new DeliveryBatch();
  /** The `keep` deliveries before `filling`, when that many came while the writer was busy. */
  private older: DeliveryBatch | undefined;
  private ops: SqliteValue[][] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastBatchAt = 0;
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
  private readonly keptListeners = new Set<(newestId: number) => void>();
  private readonly errorListeners: ((error: Error) => void)[] = [];
  private broken: Error | undefined;
  private readonly exited: Promise<void>;

  private constructor(
    readonly file: string,
    readonly keep: number,
    private readonly reader: SqliteDatabase,
    private readonly worker: Worker,
    private readonly unlock: () => void,
    /** The listener's clock (ms): what paces the batches. */
    private readonly now: () => number,
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
  static open(sqlite: SqliteModule, file: string, keep: number, now: () => number): SqliteStore {
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
      return new SqliteStore(file, keep, reader, worker, unlock, now);
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
      this.older = this.filling;
      this.filling = new DeliveryBatch();
    }
    this.schedule();
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
    this.schedule();
  }

  list(query: DeliveryQuery): DeliverySummary[] {
    const where: string[] = [];
    const params: SqliteValue[] = [];
    if (query.before !== undefined) {
      where.push('id < ?');
      params.push(query.before);
    }
    if (query.type !== undefined) {
      where.push('type = ?');
      params.push(query.type);
    }
    if (query.status === 'verified') where.push('verified = 1');
    if (query.status === 'refused') where.push('verified = 0');
    if (query.status === 'duplicate') where.push('delivery >= 2');
    if (query.status === 'forward-failed')
      where.push(
        "EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = deliveries.id AND a.kind = 'forward' AND (a.status IS NULL OR a.status < 200 OR a.status >= 300))",
      );
    if (query.text !== undefined && query.text !== '') {
      const like = `%${query.text.replace(/[\\%_]/g, '\\$&')}%`;
      const columns = ['type', 'event_id', 'envelope_id', 'path', 'reason', 'CAST(body AS TEXT)'];
      where.push(`(${columns.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
      params.push(...columns.map(() => like));
    }
    const rows = this.reader
      .prepare(
        `SELECT ${SUMMARY_COLUMNS} FROM deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
      )
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

  onKept(listener: (newestId: number) => void): () => void {
    this.keptListeners.add(listener);
    return () => this.keptListeners.delete(listener);
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
    this.keptListeners.clear();
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

  /** Flushes once BATCH_INTERVAL_MS have passed since the last batch went and the writer has kept it. */
  private schedule(): void {
    if (this.timer !== undefined || this.sent > this.kept) return;
    // At most the interval, should the clock be set back meanwhile.
    const wait = Math.min(BATCH_INTERVAL_MS, Math.max(0, this.lastBatchAt + BATCH_INTERVAL_MS - this.now()));
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
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
    const encoded = batches.map((batch) => batch.encoded());
    // The deliveries first written by this batch: read from the file once it is acknowledged.
    const seq = ++this.sent;
    this.lastBatchAt = this.now();
    this.batches.set(seq, batches);
    this.worker.postMessage(
      { seq, batches: encoded, ops: this.ops },
      encoded.flatMap(({ numbers, bytes }) => [numbers, bytes]),
    );
    this.older = undefined;
    this.filling = new DeliveryBatch();
    this.ops = [];
  }

  private acknowledged(seq: number, error?: string): void {
    this.batches.delete(seq);
    for (const [id, unkept] of this.unkeptAttempts) if (unkept.seq <= seq) this.unkeptAttempts.delete(id);
    this.kept = seq;
    if (error !== undefined) this.report(new Error(error));
    // What came while this batch was being written goes next (at once when someone waits for it).
    if (this.waiting.length > 0) this.flush();
    else if (this.queued()) this.schedule();
    if (this.waiting.length > 0)
      this.waiting = this.waiting.filter((waiter) => (waiter.seq <= seq ? (waiter.resolve(), false) : true));
    for (const listener of this.keptListeners) listener(this.newest);
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

/** Makes the schema in a new file, refuses a file of another kind, and drops what is past `keep`. */
function prepareFile(db: SqliteDatabase, file: string, keep: number): void {
  try {
    // The page size first: it is fixed once the file has a header, which WAL mode writes.
    db.exec(`PRAGMA page_size = ${PAGE_SIZE}; PRAGMA journal_mode = WAL`);
  } catch (error) {
    throw new StoreFileError(`${file} is not a SQLite database (${(error as Error).message})`);
  }
  const version = Number(db.prepare('PRAGMA user_version').get()!.user_version);
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()!.n;
  if (version > SCHEMA_VERSION)
    throw new StoreFileError(`${file} was written by a newer sign-cli (schema ${version})`);
  if (version === 0 && Number(tables) > 0)
    throw new StoreFileError(`${file} is another program's SQLite database, not the inspector's`);
  if (version === 0) db.exec(`BEGIN; ${SCHEMA} COMMIT;`);
  const newest = Number(db.prepare('SELECT coalesce(max(id), 0) AS id FROM deliveries').get()!.id);
  if (newest > keep) {
    db.prepare('DELETE FROM attempts WHERE delivery_id <= ?').run(newest - keep);
    db.prepare('DELETE FROM deliveries WHERE id <= ?').run(newest - keep);
  }
}
