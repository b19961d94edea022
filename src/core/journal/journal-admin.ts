/**
 * Seeing and pruning what create journals hold (`sign-cli journal`): the
 * files of this machine's state directory and the journals of a Redis store
 * (redis-journal.ts), described the same way. Reading never takes a journal
 * or changes it (a run may be writing it); forgetting refuses a journal in use.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { JOURNAL_RETENTION_MS, type JournalEntry, type JournalState } from './journal.js';
import { lockHolder } from './pid-lock.js';

export interface JournalInfo {
  /** What `journal show` and `forget` take: 24 hex digits (a unique prefix also works). */
  id: string;
  /** A file path, or the store's URL (password masked). */
  location: string;
  /** The service and environment, where the journal records them (Redis journals do). */
  service?: string | undefined;
  environment?: string | undefined;
  /** Where its inputs were last seen (a path, `path:line`), for a file journal. */
  example?: string | undefined;
  inputs: number;
  states: Record<JournalState, number>;
  /** Last write, ISO 8601. */
  updated: string;
  /** When it is pruned unless written again, ISO 8601. */
  expires: string;
  /** A run holds it now (its lock, or claims in it). */
  inUse: boolean;
}

/** Something a journal holds that no run wrote (a hand edit, another program's key): where it is, and why it is skipped. */
export interface JournalJunk {
  /** A file's `path:line`, or a store's key (with the field: `<key> <field>`). */
  where: string;
  why: string;
}

/** Told of each piece of junk skipped while reading, so the rest is still read (and a person told once). */
export type JunkSink = (junk: JournalJunk) => void;

const STATES: ReadonlySet<unknown> = new Set(['created', 'sending', 'unknown', 'failed']);
const REQUIRED_TEXT = ['id', 'ref', 'key'] as const;
const OPTIONAL_TEXT = ['envelope_id', 'error', 'fp', 'contract_id', 'at'] as const;

/**
 * Why a parsed value is not a journal entry as runs write it (the first field at fault), or
 * undefined when it is one. What `journal` shows comes from here only: a value of the wrong type
 * (an object for an envelope id, a number for a ref) would break the table or fake its lines.
 */
export function entryProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const fields = value as Record<string, unknown>;
  for (const name of REQUIRED_TEXT)
    if (typeof fields[name] !== 'string') return `its ${name} is not a string`;
  if (!STATES.has(fields.state)) return 'its state is not created, sending, unknown or failed';
  for (const name of OPTIONAL_TEXT)
    if (fields[name] !== undefined && typeof fields[name] !== 'string') return `its ${name} is not a string`;
  return undefined;
}

/**
 * The entries of a journal's text: the latest per input and key fingerprint, in the order first
 * seen. A line that is not an entry is skipped, and told to `onJunk` as `<where>:<line>`.
 */
export function latestEntries(text: string, where = 'journal', onJunk?: JunkSink): JournalEntry[] {
  const latest = new Map<string, JournalEntry>();
  const lines = text.split('\n');
  // A last line without its newline may be a write in progress: not read.
  if (!text.endsWith('\n')) lines.pop();
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      onJunk?.({ where: `${where}:${index + 1}`, why: 'not JSON' });
      return;
    }
    const problem = entryProblem(value);
    if (problem) {
      onJunk?.({ where: `${where}:${index + 1}`, why: problem });
      return;
    }
    const entry = value as JournalEntry;
    latest.set(`${entry.id}\n${entry.fp ?? ''}`, entry);
  });
  return [...latest.values()];
}

/** How many inputs are in each state (an input counts once: its latest entry under any key). */
export function countStates(entries: readonly JournalEntry[]): {
  inputs: number;
  states: Record<JournalState, number>;
} {
  const byInput = new Map<string, JournalState>();
  for (const entry of entries) {
    // Created under any key is created; otherwise the latest seen.
    if (byInput.get(entry.id) !== 'created') byInput.set(entry.id, entry.state);
  }
  const states: Record<JournalState, number> = { created: 0, sending: 0, unknown: 0, failed: 0 };
  for (const state of byInput.values()) states[state]++;
  return { inputs: byInput.size, states };
}

const FILE_NAME = /^create-([0-9a-f]+)\.jsonl$/;

/** The journal files of a state directory's `journals`, newest first; lines that are not entries go to `onJunk`. */
export function listFileJournals(
  dir: string,
  retentionMs = JOURNAL_RETENTION_MS,
  onJunk?: JunkSink,
): JournalInfo[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: JournalInfo[] = [];
  for (const name of names) {
    const id = FILE_NAME.exec(name)?.[1];
    if (!id) continue;
    const path = join(dir, name);
    try {
      const stats = statSync(path);
      const entries = latestEntries(readFileSync(path, 'utf8'), path, onJunk);
      found.push({
        id,
        location: path,
        example: entries.at(-1)?.ref,
        ...countStates(entries),
        updated: new Date(stats.mtimeMs).toISOString(),
        expires: new Date(stats.mtimeMs + retentionMs).toISOString(),
        inUse: fileInUse(path),
      });
    } catch {
      // Gone since the listing, or not readable: not listed.
    }
  }
  return found.sort((a, b) => b.updated.localeCompare(a.updated));
}

/** Whether a live run holds the journal's lock (a killed run's lock is stale: not in use). */
function fileInUse(path: string): boolean {
  return lockHolder(`${path}.lock`) !== undefined;
}

/** The one journal `id` names (a unique prefix of at least 6 digits); a usage error otherwise. */
export function findJournal<T extends { id: string }>(journals: readonly T[], id: string, where: string): T {
  const wanted = id.trim().toLowerCase();
  const exact = journals.find((j) => j.id === wanted);
  if (exact) return exact;
  const matches = wanted.length >= 6 ? journals.filter((j) => j.id.startsWith(wanted)) : [];
  if (matches.length === 1) return matches[0]!;
  throw new UsageError(
    matches.length > 1
      ? `${JSON.stringify(id)} names ${matches.length} journals in ${where}`
      : `no journal ${JSON.stringify(id)} in ${where}`,
    { hint: 'see the ids with `sign-cli journal list`' },
  );
}

/** The entries of a journal file, read without taking it; lines that are not entries go to `onJunk`. */
export function readFileJournal(path: string, onJunk?: JunkSink): JournalEntry[] {
  return latestEntries(readFileSync(path, 'utf8'), path, onJunk);
}

/** Removes a journal file; refused while a run holds it. */
export function forgetFileJournal(journal: JournalInfo): void {
  if (fileInUse(journal.location))
    throw new UsageError(`journal ${journal.id} is in use by a running create`, {
      hint: 'wait for it to finish, then forget it',
    });
  rmSync(journal.location, { force: true });
  rmSync(`${journal.location}.lock`, { force: true });
}
