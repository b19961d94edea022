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
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export type JournalState = 'sending' | 'created' | 'failed';

export interface JournalEntry {
  /** The input reference: a path, `path:line` for NDJSON, `-` or `-:line` for stdin. */
  ref: string;
  /** Hash of the input's content, so an edited input is not mistaken for the one journaled. */
  hash: string;
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

  constructor(readonly path: string) {
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (typeof entry.ref === 'string' && typeof entry.key === 'string') this.entries.set(entry.ref, entry);
      } catch {
        // A line torn by a kill mid-write: the entry before it still stands.
      }
    }
    this.resumed = this.entries.size;
  }

  /** What the journal knows of an input, if it is the same content. */
  lookup(ref: string, hash: string): JournalEntry | undefined {
    const entry = this.entries.get(ref);
    return entry && entry.hash === hash ? entry : undefined;
  }

  /** A different content was journaled under this reference (the input was edited since). */
  changed(ref: string, hash: string): boolean {
    const entry = this.entries.get(ref);
    return entry !== undefined && entry.hash !== hash;
  }

  record(entry: JournalEntry): void {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.fd = openSync(this.path, 'a', 0o600);
    }
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    this.entries.set(entry.ref, entry);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Removes the journal once every input is created: nothing is left to resume. */
  discard(): void {
    this.close();
    rmSync(this.path, { force: true });
  }
}
