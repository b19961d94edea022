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
 * One journal serves one service and environment (its file name says which),
 * and each entry names the key it was sent with by a fingerprint: an envelope
 * created under another key (a rotated one, another account's) counts only
 * once the service shows it to this run's key (bulk.ts asks, once per key).
 *
 * Lines are appended with write(2) and no fsync: the page cache survives the
 * death of the process; after a machine crash, the keys (derived from the
 * body) still protect every request that was sent, within the service's key
 * retention (see docs/assumptions.md).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppendLog, readLog } from './append-log.js';
import { StorageError } from '../errors.js';
import { storageError } from '../fs-errors.js';
import { checkPrivateDirectory, checkPrivateFile } from './ownership.js';
import { LockedError, takePidLock } from './pid-lock.js';
import { JOURNAL_RETENTION_MS } from './journal-retention.js';

/**
 * `sending`: on the wire, outcome unknown (a crash left it); `unknown`: the
 * request may have reached the service but no answer says what happened
 * (timeout, reset, 5xx, a 2xx that was not an envelope); `failed`: the service
 * certainly created nothing (refused, invalid, nothing sent); `created`.
 */
export type JournalState = 'sending' | 'unknown' | 'created' | 'failed';

// Apart, so the CLI can name the default without loading the journal (start-up).
export { JOURNAL_RETENTION_MS };

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
  /**
   * keyFingerprint() of the API key it was sent with: what an earlier run
   * created counts for this run only if this run's key sees it (the same
   * account and environment). Absent in journals written before keys were told apart.
   */
  fp?: string;
  /** The input's contract_id, on `created` entries: an edited input for the same contract is named. */
  contract_id?: string;
  /** When it was recorded (ISO 8601), on `created` entries. */
  at?: string;
}

/** The latest `created` entry under `fingerprint` for each contract_id, from journal text. */
function contractIndex(entries: Iterable<JournalEntry>): Map<string, JournalEntry> {
  const index = new Map<string, JournalEntry>();
  for (const entry of entries)
    if (entry.state === 'created' && typeof entry.contract_id === 'string')
      index.set(entry.contract_id, entry);
  return index;
}

/**
 * The contracts a journal records as created under `fingerprint`, read without
 * taking the journal (a dry run looks; it does not run).
 */
export function createdContracts(path: string, fingerprint: string): Map<string, JournalEntry> {
  let text: string;
  try {
    text = existsSync(path) ? readLog(path, { noFollow: true }) : '';
  } catch {
    return new Map();
  }
  const entries: JournalEntry[] = [];
  for (const line of text.split('\n')) {
    try {
      const entry = line.trim() ? (JSON.parse(line) as JournalEntry) : undefined;
      if (entry && typeof entry.id === 'string' && (entry.fp ?? '') === fingerprint) entries.push(entry);
    } catch {
      // Not a journal line: skipped, as the journal itself skips it.
    }
  }
  return contractIndex(entries);
}

/** What the journal knows of one input: under this run's key, and under other keys. */
export interface JournalLookup {
  own: JournalEntry | undefined;
  /** The latest entry under each other key (or none recorded), oldest key first. */
  others: JournalEntry[];
}

/** What taking an input says: what the journal knows of it, and whether this run may send it. */
export interface JournalTake extends JournalLookup {
  /** Another runner holds the input now (a shared journal): it is not this run's to send yet. */
  busy?: boolean;
  /** Another runner held it, and the entry changed meanwhile: it is that runner's outcome. */
  waited?: boolean;
  /** With `busy`: what the journal held then (opaque), to pass back as `seen` when waiting for it. */
  seen?: string;
}

/**
 * What a bulk run needs of a journal: this file's (one machine, under a
 * lock) or a shared one in Redis (redis-journal.ts), so both mean the same.
 * A method may answer at once or with a promise.
 */
export interface Journal {
  /** True for a journal runners share: what it records as created was created elsewhere. */
  readonly shared: boolean;
  /**
   * Takes an input for this run and says what is known of it. A shared journal
   * claims it (a lease, renewed until release); `wait` waits for another
   * runner's claim to end instead of answering `busy`.
   */
  take(
    id: string,
    options?: { wait?: boolean; signal?: AbortSignal | undefined; seen?: string | undefined },
  ): JournalTake | Promise<JournalTake>;
  /** Records an entry under this run's key; throws a StorageError when it cannot. */
  record(entry: JournalEntry): void | Promise<void>;
  /** Gives a taken input back (its outcome recorded, or nothing sent). */
  release(id: string): void | Promise<void>;
  /** The envelope an earlier input created for `contractId` under this run's key, if any. */
  createdFor(contractId: string): JournalEntry | undefined | Promise<JournalEntry | undefined>;
}

export class CreateJournal implements Journal {
  readonly shared = false;
  /** Entries written under this run's key. */
  private readonly entries = new Map<string, JournalEntry>();
  /** Entries written under other keys (a rotated key, another account's, a key from before fingerprints), by input, then by key. */
  private readonly foreign = new Map<string, Map<string, JournalEntry>>();
  private readonly log: AppendLog;
  /** Entries found when the journal was opened: this command ran before. */
  readonly resumed: number;
  /** Of those, the ones whose outcome is in doubt: this run finishes an interrupted one. */
  readonly unfinished: number;
  private readonly unlock: () => void;

  /**
   * `fingerprint`: keyFingerprint() of the key this run sends with.
   * Throws LockedError while another run of the same command holds the journal.
   */
  constructor(
    readonly path: string,
    readonly fingerprint = '',
    /** A journal of the same command from before journals were kept per environment: read, never written. */
    legacyPath?: string,
    /** A fix the caller knows of, added to storage errors (the CLI: `--journal <file>`). */
    extraFix?: string,
  ) {
    const dir = dirname(path);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw storageError(error, dir, 'make the directory of the journal', extraFix);
    }
    // Nothing another user can write is trusted: their lines would decide what is "already created".
    checkPrivateDirectory(dir);
    checkPrivateFile(path);
    this.log = new AppendLog(path, { sync: false, what: 'the journal', ...(extraFix ? { extraFix } : {}) });
    try {
      this.unlock = takePidLock(
        `${path}.lock`,
        (pid) =>
          `the same command is already running (pid ${pid}); running it twice at once could send envelopes twice`,
      );
    } catch (error) {
      if (error instanceof LockedError) throw error;
      throw storageError(error, `${path}.lock`, 'take the lock of the journal', extraFix);
    }
    let text: string;
    try {
      const legacy =
        legacyPath !== undefined && legacyPath !== path && existsSync(legacyPath)
          ? readLog(legacyPath, { noFollow: true })
          : '';
      text = `${legacy}\n${readLog(path, { noFollow: true })}`;
      // Before anything is sent: a journal that cannot be written is found now, not mid-run.
      this.log.open();
      this.log.probe();
    } catch (error) {
      this.unlock();
      throw error instanceof StorageError ? error : storageError(error, path, 'open the journal', extraFix);
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as JournalEntry;
        if (typeof entry.id !== 'string' || typeof entry.key !== 'string') continue;
        const fp = typeof entry.fp === 'string' ? entry.fp : '';
        if (fp === this.fingerprint) this.entries.set(entry.id, entry);
        else {
          const byKey = this.foreign.get(entry.id) ?? new Map<string, JournalEntry>();
          byKey.set(fp, entry);
          this.foreign.set(entry.id, byKey);
        }
      } catch {
        // Not a journal line (a hand edit?): skipped; the entries around it still stand.
      }
    }
    this.resumed = this.entries.size + this.foreign.size;
    this.unfinished = [
      ...this.entries.values(),
      ...[...this.foreign.values()].flatMap((byKey) => [...byKey.values()]),
    ].filter(inDoubt).length;
  }

  private contractsIndex: Map<string, JournalEntry> | undefined;

  /** The envelope an earlier input of this journal created for `contractId` under this run's key, if any. */
  createdFor(contractId: string): JournalEntry | undefined {
    this.contractsIndex ??= contractIndex(this.entries.values());
    return this.contractsIndex.get(contractId);
  }

  /** What the journal knows of an input, under this run's key and under others. */
  lookup(id: string): JournalLookup {
    return { own: this.entries.get(id), others: [...(this.foreign.get(id)?.values() ?? [])] };
  }

  /** The file is this run's alone (its lock): every input is this run's to send. */
  take(id: string): JournalTake {
    return this.lookup(id);
  }

  release(): void {}

  /** Records an entry under this run's key; throws a StorageError (the disk is full…) with nothing half-written. */
  record(entry: JournalEntry): void {
    const line = { ...entry, fp: this.fingerprint };
    this.log.append(`${JSON.stringify(line)}\n`);
    this.entries.set(entry.id, line);
    if (line.state === 'created' && line.contract_id !== undefined)
      this.contractsIndex?.set(line.contract_id, line);
  }

  close(): void {
    this.log.close();
    this.unlock();
  }
}

/** Removes journals untouched for `retentionMs` (30 days by default); a journal in use is written to, so never old. */
export function pruneJournals(dir: string, now: number, retentionMs = JOURNAL_RETENTION_MS): void {
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
      if (now - statSync(path).mtimeMs > retentionMs) rmSync(path, { force: true });
    } catch {
      // Gone already, or not ours to remove: nothing to prune.
    }
  }
}
