/**
 * Where a shared create journal lives in Redis (redis-journal.ts explains the
 * journal): the prefix every key starts with, one journal's keys, and the
 * client that reaches them.
 */
import { createHash } from 'node:crypto';
import { createClient } from '@redis/client';
import { journalScript } from './redis-journal-script.js';

/** Every key of every journal starts with this, so a Redis shared with other applications is safe. */
export const JOURNAL_KEY_PREFIX = 'sign-cli:journal:';

/** The journal's Redis name for a service and environment (hash tag included). */
export function journalNamespace(service: string, environment: string | null): string {
  const digest = createHash('sha256')
    .update(`sign-cli create journal\n${service}\n${environment ?? '?'}`)
    .digest('hex')
    .slice(0, 24);
  return `{${digest}}`;
}

/** The Redis keys of one journal. */
export function journalKeys(prefix: string, ns: string) {
  const base = `${prefix}${ns}`;
  return {
    entries: `${base}:entries`,
    contracts: `${base}:contracts`,
    meta: `${base}:meta`,
    claims: `${base}:claim:`,
  };
}

export type JournalClient = ReturnType<typeof createJournalClient>;

/** The client of one journal store, with the journal's script. */
export function createJournalClient(url: string, timeoutMs: number, opened: () => boolean) {
  return createClient({
    url,
    socket: {
      connectTimeout: timeoutMs,
      // Once open, it reconnects in the background, so an outcome can be recorded when the store
      // returns; before, a refused connection is the answer (the run fails before sending).
      reconnectStrategy: (retries: number, cause: Error) =>
        opened() ? Math.min(100 * retries, 1_000) : cause,
    },
    // A command never waits in a queue for a lost store: it fails, and the run says so.
    disableOfflineQueue: true,
    scripts: { journal: journalScript },
  });
}
