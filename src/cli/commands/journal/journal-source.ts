/**
 * Which journals `sign-cli journal` looks at: the shared store's when one is configured
 * (`--journal-store`, SIGN_JOURNAL_STORE, the `journal_store` setting), else this machine's
 * files. One place, so list, show and forget always agree.
 */
import { join } from 'node:path';
import type { JournalEntry } from '../../../core/journal/journal.js';
import type { JournalInfo, JunkSink } from '../../../core/journal/journal-admin.js';
import { showRateStoreUrl } from '../../../core/pacing/rate-store-url.js';
import type { CommandContext } from '../../context.js';
import { journalRetentionMs, journalStore } from '../../config/journal-store.js';
import { stateDir } from '../envelopes/journal-paths.js';

export interface StoreFlags {
  journalStore?: string;
}

export interface JournalSource {
  /** Where, for messages: the store's URL (password masked) or the journals directory. */
  where: string;
  list(): Promise<JournalInfo[]>;
  entries(journal: JournalInfo): Promise<JournalEntry[]>;
  forget(journal: JournalInfo): Promise<void>;
}

export async function journalSource(ctx: CommandContext, flags: StoreFlags): Promise<JournalSource> {
  // What no run wrote (a key of another type, an entry with an object for its envelope id) is
  // skipped, each once with a warning naming where it is, and the rest is shown.
  const told = new Set<string>();
  const onJunk: JunkSink = ({ where, why }) => {
    if (told.has(where)) return;
    told.add(where);
    ctx.output.warn(`skipped ${where}: ${why}`);
  };
  const store = await journalStore(ctx, flags.journalStore);
  if (store) {
    const admin = await import('../../../core/journal/redis-journal-admin.js');
    return {
      where: showRateStoreUrl(store.url),
      list: () => admin.listRedisJournals(store.url, { onJunk }),
      entries: (journal) => admin.readRedisJournal(store.url, journal.id, { onJunk }),
      forget: (journal) => admin.forgetRedisJournal(store.url, journal.id),
    };
  }
  const admin = await import('../../../core/journal/journal-admin.js');
  const dir = join(stateDir(ctx.env), 'journals');
  const retentionMs = await journalRetentionMs(ctx);
  return {
    where: dir,
    list: () => Promise.resolve(admin.listFileJournals(dir, retentionMs, onJunk)),
    entries: (journal) => Promise.resolve(admin.readFileJournal(journal.location, onJunk)),
    forget: (journal) => Promise.resolve(admin.forgetFileJournal(journal)),
  };
}

/** The option every journal command takes. */
export const STORE_OPTION = [
  '--journal-store <redis-url>',
  'the journals of this Redis store instead of this machine (env SIGN_JOURNAL_STORE)',
] as const;
