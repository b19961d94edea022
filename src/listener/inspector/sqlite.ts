/**
 * node:sqlite, where the Node running sign-cli has it: Node 22.13 and later, and 24 (22.5 to
 * 22.12 only behind --experimental-sqlite, which sign-cli does not pass; Node 20 not at all).
 * Loaded at run time through process.getBuiltinModule, so that no build or start-up on a Node
 * without it ever asks for it. On Node 22 it is still marked experimental: its one warning
 * (printed once, to stderr, by Node itself) is kept from the listener's output.
 */

/** What the inspector uses of node:sqlite (@types/node 20 does not describe the module). */
export interface SqliteStatement {
  run(...params: SqliteValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqliteValue[]): Record<string, SqliteValue> | undefined;
  all(...params: SqliteValue[]): Record<string, SqliteValue>[];
}

export type SqliteValue = string | number | bigint | null | Uint8Array;

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

export interface SqliteModule {
  DatabaseSync: new (path: string, options?: { timeout?: number }) => SqliteDatabase;
}

/** Node's own words for the module, kept from stderr once (Node 22: "SQLite is an experimental feature…"). */
const isSqliteWarning = (warning: unknown, type: unknown): boolean =>
  type === 'ExperimentalWarning' && /sqlite/i.test(String(warning));

let loaded: SqliteModule | null | undefined;

/** node:sqlite, or undefined on a Node that does not have it. */
export function loadSqlite(): SqliteModule | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  // Put back as it was (the very function, not a bound copy) once the module is loaded.
  const original = Object.getOwnPropertyDescriptor(process, 'emitWarning')!;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (!isSqliteWarning(warning, type)) emitWarning(warning, ...rest);
  };
  try {
    loaded = (process.getBuiltinModule?.('node:sqlite') as SqliteModule | undefined) ?? null;
  } catch {
    loaded = null;
  } finally {
    Object.defineProperty(process, 'emitWarning', original);
  }
  return loaded ?? undefined;
}
