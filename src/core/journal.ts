/**
 * The create journal: what makes re-running `envelopes create` safe.
 *
 * Before an envelope is sent, the journal records its input and the
 * Idempotency-Key it will carry; after the service answers, it records the
 * outcome. A run killed at any moment (SIGKILL included) leaves a journal
 * whose "sending" entries name the keys in doubt: the re-run sends those
 * inputs again with the same keys (the service replays what it already
 * created), skips what is recorded as created, and gives fresh keys to the
 * rest. A run that created everything deletes its journal, so running the
 * same command again later creates new envelopes, as a user expects.
 *
 * Lines are appended with write(2) and no fsync: the page cache survives the
 * death of the process; after a machine crash, the keys still protect every
 * request that was sent (within the service's key retention; see
 * docs/assumptions.md).
 */
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { readLog, writeAll } from './append-log.js';
import { takePidLock } from './pid-lock.js';

export type JournalState = 'sending' | 'created' | 'failed';

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
  /** Entries found when the journal was opened: this run resumes an earlier one. */
  readonly resumed: number;
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

  /** Removes the journal once every input is created: nothing is left to resume. */
  discard(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    // Deleted before the lock goes, so no run can start in between and resume a finished journal.
    rmSync(this.path, { force: true });
    this.unlock();
  }
}
