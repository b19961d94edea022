/**
 * The inspector's SQLite file: its tables, the statements its writer runs (sqlite-writer.js, a
 * worker thread, runs them by their index in WRITES), how a batch of deliveries is handed to it
 * (sqlite-batch.ts), and what a row reads back as.
 */
import type { SqliteDatabase, SqliteValue } from './sqlite.js';
import type { Attempt, AttemptKind, DeliveryQuery, DeliveryRecord, DeliverySummary } from './records.js';

/** PRAGMA user_version of the files this code writes; a newer file is refused, not rewritten. */
export const SCHEMA_VERSION = 1;

/** Run once on a new file. Headers are node's rawHeaders joined by newlines (no name or value holds one). */
export const SCHEMA = `
CREATE TABLE deliveries (
  id INTEGER PRIMARY KEY,
  received_at INTEGER NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  http_version TEXT NOT NULL,
  headers TEXT NOT NULL,
  body BLOB NOT NULL,
  verified INTEGER NOT NULL,
  answered INTEGER,
  reason TEXT,
  code TEXT,
  event_id TEXT,
  type TEXT,
  envelope_id TEXT,
  delivery INTEGER NOT NULL,
  filtered INTEGER NOT NULL,
  secret TEXT,
  signed_at INTEGER
);
CREATE TABLE attempts (
  delivery_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  url TEXT NOT NULL,
  status INTEGER,
  duration_ms INTEGER,
  answer TEXT,
  error TEXT
);
CREATE INDEX attempts_by_delivery ON attempts (delivery_id);
PRAGMA user_version = ${SCHEMA_VERSION};
`;

/** Every connection's own settings: WAL commits without waiting for the disk (a crash of the machine may lose the last ones). */
export const CONNECTION_SETUP = 'PRAGMA synchronous = NORMAL;';

/**
 * The page size of a new file: SQLite's largest. A row of the inspector is most of a kilobyte and
 * is written once, at the end of the table, then dropped from its start, so larger pages mean fewer
 * of them to write, log and free per delivery: 25 % less of the writer's CPU per delivery than
 * 4 KB pages (100,000 deliveries in batches of 500, the newest 10,000 kept; a file made before
 * keeps its own).
 */
export const PAGE_SIZE = 65_536;

/**
 * The writer's own: the WAL is copied back into the file once it holds 16 MB (of pages of the
 * file's size), not SQLite's 1,000 pages (4 MB at 4 KB). Fewer, longer checkpoints: 0.7 µs less
 * of the writer's CPU per delivery (3.2 against 3.9, measured as above with 4 KB pages).
 */
export const WAL_CHECKPOINT_BYTES = 16 * 1024 * 1024;

/**
 * What the writer runs, by index (INSERT_DELIVERY for each delivery of a batch, before the rest).
 * A delivery's texts are bound as the UTF-8 bytes the batch holds and made TEXT by SQLite: not
 * decoded into strings only to be encoded again (15 % less of the writer's CPU per delivery).
 */
export const WRITES = [
  `INSERT INTO deliveries (id, received_at, method, path, http_version, headers, body, verified, answered,
     reason, code, event_id, type, envelope_id, delivery, filtered, secret, signed_at)
   VALUES (?, ?, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, ?,
     CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), ?, ?, CAST(? AS TEXT), ?)`,
  'UPDATE deliveries SET answered = ? WHERE id = ?',
  'INSERT INTO attempts (delivery_id, kind, at, url, status, duration_ms, answer, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  'DELETE FROM attempts WHERE delivery_id <= ?',
  'DELETE FROM deliveries WHERE id <= ?',
] as const;
export const INSERT_DELIVERY = 0;
export const SET_ANSWERED = 1;
export const INSERT_ATTEMPT = 2;
export const PRUNE_ATTEMPTS = 3;
export const PRUNE_DELIVERIES = 4;

/** The columns of a line of the list. */
export const SUMMARY_COLUMNS =
  'id, received_at, method, path, verified, answered, reason, code, event_id, type, envelope_id, delivery, filtered, secret, signed_at';

/** The writer's operation that keeps what an app answered. */
export const insertAttemptOp = (id: number, attempt: Attempt): SqliteValue[] => [
  INSERT_ATTEMPT,
  id,
  attempt.kind,
  attempt.at,
  attempt.url,
  attempt.status,
  attempt.durationMs,
  attempt.answer,
  attempt.error,
];

type Row = Record<string, SqliteValue>;
const text = (value: SqliteValue | undefined): string | null =>
  value === null || value === undefined ? null : String(value);
const number = (value: SqliteValue | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

export const attemptOf = (row: Row): Attempt => ({
  kind: String(row.kind) as AttemptKind,
  at: Number(row.at),
  url: String(row.url),
  status: number(row.status),
  durationMs: number(row.duration_ms),
  answer: text(row.answer),
  error: text(row.error),
});

export const summaryOf = (row: Row, attempts: Attempt[]): DeliverySummary => ({
  id: Number(row.id),
  receivedAt: Number(row.received_at),
  method: String(row.method),
  path: String(row.path),
  verified: row.verified === 1 || row.verified === 1n,
  answered: number(row.answered),
  reason: text(row.reason),
  code: text(row.code),
  eventId: text(row.event_id),
  type: text(row.type),
  envelopeId: text(row.envelope_id),
  delivery: Number(row.delivery),
  filtered: row.filtered === 1 || row.filtered === 1n,
  secret: text(row.secret),
  signedAt: number(row.signed_at),
  attempts,
});

export const recordOf = (row: Row, attempts: Attempt[]): DeliveryRecord => {
  const body = row.body as Uint8Array;
  return {
    ...summaryOf(row, attempts),
    httpVersion: String(row.http_version),
    rawHeaders: String(row.headers) === '' ? [] : String(row.headers).split('\n'),
    body: Buffer.from(body.buffer, body.byteOffset, body.byteLength),
  };
};

/**
 * A list query's filters as SQL (the memory store's matchesQuery says the same in code): the
 * WHERE clause, empty for none, and its parameters.
 */
export function filterOf(query: DeliveryQuery): { where: string; params: SqliteValue[] } {
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
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

/** A file the store cannot use: not SQLite, another program's, or a newer sign-cli's. */
export class StoreFileError extends Error {}

/** Makes the schema in a new file, refuses a file of another kind, and drops what is past `keep`. */
export function prepareFile(db: SqliteDatabase, file: string, keep: number): void {
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
