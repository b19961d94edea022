/**
 * The create journal: what lets a re-run of `envelopes create` answer
 * "already created" without sending, and resume what was cut short.
 *
 * Before an envelope is sent, the journal records its input and the
 * Idempotency-Key it carries; after the service answers, the outcome. A run
 * killed at any moment (SIGKILL included) leaves "sending" entries, the keys
 * in doubt: the re-run sends those inputs again with the same keys (the
 * service replays what it already created) and skips what is recorded as
 * created. A finished run's journal is kept (pruned after JOURNAL_RETENTION_MS,
 * well past the service's key retention), so running the same command again
 * later reports what it already created instead of notifying the signers
 * twice; `--new` is the deliberate way to create again.
 *
 * Lines are appended with write(2) and no fsync: the page cache survives the
 * death of the process; after a machine crash, the keys (derived from the
 * body) still protect every request that was sent, within the service's key
 * retention (see docs/assumptions.md).
 */
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readLog, writeAll } from './append-log.js';
import { takePidLock } from './pid-lock.js';

/**
 * `sending`: on the wire, outcome unknown (a crash left it); `unknown`: the
 * request may have reached the service but no answer says what happened
 * (timeout, reset, 5xx, a 2xx that was not an envelope); `failed`: the service
 * certainly created nothing (refused, invalid, nothing sent); `created`.
 */
export type JournalState = 'sending' | 'unknown' | 'created' | 'failed';

/** Finished journals are kept this long after their last write, then pruned. */
export const JOURNAL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Whether the input may exist under the entry's key: only that key may be used to send it again. */
export function inDoubt(entry: JournalEntry | undefined): boolean {
  return entry?.state === 'sending' || entry?.state === 'unknown';
}

export interface JournalEntry {
  /**
   * What identifies an input across runs: its content hash and how many
   * inputs with the same content came before it (`<sha256>#<n>`). Content,
   * not position, so a renamed path, a moved line or an added file cannot
   * make a created envelope look new.
   */
  id: string;
  /** Where the input was last seen (a path, `path:line`), for people reading the journal. */
  ref: string;
  key: string;
  state: JournalState;
  envelope_id?: string;
  error?: string;
}

export class CreateJournal {
  private readonly entries = new Map<string, JournalEntry>();
  private fd: number | undefined;
  /** Entries found when the journal was opened: this command ran before. */
  readonly resumed: number;
  /** Of those, the ones whose outcome is in doubt: this run finishes an interrupted one. */
  readonly unfinished: number;
  private readonly unlock: () => void;

  /** Throws LockedError while another run of the same command holds the journal. */
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.unlock = takePidLock(`${path}.lock`, (pid) => `the same command is already running (pid ${pid}); running it twice at once could send envelopes twice`);
    for (const line of readLog(path).split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (typeof entry.id === 'string' && typeof entry.key === 'string') this.entries.set(entry.id, entry);
      } catch {
        // Not a journal line (a hand edit?): skipped; the entries around it still stand.
      }
    }
    this.resumed = this.entries.size;
    this.unfinished = [...this.entries.values()].filter(inDoubt).length;
  }

  /** What the journal knows of an input. */
  lookup(id: string): JournalEntry | undefined {
    return this.entries.get(id);
  }

  record(entry: JournalEntry): void {
    this.fd ??= openSync(this.path, 'a', 0o600);
    writeAll(this.fd, `${JSON.stringify(entry)}\n`);
    this.entries.set(entry.id, entry);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.unlock();
  }
}

/** Removes journals (and stale locks) untouched for JOURNAL_RETENTION_MS; a journal in use is written to, so never old. */
export function pruneJournals(dir: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!/^create-[0-9a-f]+\.jsonl$/.test(name)) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs > JOURNAL_RETENTION_MS) rmSync(path, { force: true });
    } catch {
      // Gone already, or not ours to remove: nothing to prune.
    }
  }
}
