/**
 * The journals a Redis store holds (`sign-cli journal` with a store), read and
 * pruned the way journal-admin.ts reads files: every key touched starts with
 * the journals' prefix, so nothing else in a shared Redis is ever read or deleted.
 */
import { createClient, ErrorReply } from '@redis/client';
import { StorageError } from '../errors.js';
import { countStates, entryProblem, type JournalInfo, type JunkSink } from './journal-admin.js';
import type { JournalEntry } from './journal.js';
import { showRateStoreUrl, storeFailure } from '../pacing/rate-store-url.js';
import { JOURNAL_KEY_PREFIX, journalKeys } from './redis-journal-keys.js';

const TIMEOUT_MS = 2_000;

const adminClient = (url: string) =>
  createClient({
    url,
    socket: { connectTimeout: TIMEOUT_MS, reconnectStrategy: false },
    disableOfflineQueue: true,
    commandOptions: { timeout: TIMEOUT_MS },
  });
type AdminClient = ReturnType<typeof adminClient>;

/** Runs `work` with a connection to the store; an unreachable store is a StorageError naming it (password masked). */
export async function withJournalStore<T>(
  url: string,
  work: (client: AdminClient) => Promise<T>,
): Promise<T> {
  const client = adminClient(url);
  client.on('error', () => {});
  const shown = showRateStoreUrl(url);
  try {
    await client.connect();
  } catch (error) {
    throw new StorageError(
      shown,
      (error as { code?: string }).code,
      `journal store ${shown} is unreachable (${storeFailure(error)})`,
      { hint: 'check that Redis is up and the URL is right', cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

/** Every key matching `pattern`, by SCAN (never KEYS: a shared Redis is not blocked). */
async function scan(client: AdminClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: pattern, COUNT: 1000 }))
    found.push(...(Array.isArray(batch) ? batch : [batch as string]));
  return found;
}

/** `{<24 hex>}` of a journal key, without the braces. */
const namespaceOf = (key: string): string | undefined => /\{([0-9a-f]{24})\}/.exec(key)?.[1];

export interface StoreReadOptions {
  /** The journals' key prefix (tests give their own). */
  prefix?: string;
  /** Told of each key or entry skipped as not a journal's; the rest is read. */
  onJunk?: JunkSink;
}

/** The entries hash of one journal: every field a JSON object of entries by key fingerprint. */
function parseEntries(
  fields: Record<string, string>,
  key: string,
  onJunk: JunkSink | undefined,
): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const [id, json] of Object.entries(fields)) {
    let byKey: unknown;
    try {
      byKey = JSON.parse(json);
    } catch {
      onJunk?.({ where: `${key} ${id}`, why: 'not JSON' });
      continue;
    }
    if (typeof byKey !== 'object' || byKey === null || Array.isArray(byKey)) {
      onJunk?.({ where: `${key} ${id}`, why: 'not a JSON object of entries' });
      continue;
    }
    for (const [fp, entry] of Object.entries(byKey as Record<string, unknown>)) {
      const whole = typeof entry === 'object' && entry !== null ? { ...entry, id, fp } : entry;
      const problem = entryProblem(whole);
      if (problem) onJunk?.({ where: `${key} ${id} ${fp}`, why: problem });
      else entries.push(whole as JournalEntry);
    }
  }
  return entries;
}

/**
 * A hash of the store, or undefined when the key holds something else (a string, a list: put
 * there by hand or by another program), told to `onJunk`. Only the server's refusal is junk: a
 * store that cannot be reached still fails the command.
 */
async function hashOf(
  client: AdminClient,
  key: string,
  onJunk: JunkSink | undefined,
): Promise<Record<string, string> | undefined> {
  try {
    return await client.hGetAll(key);
  } catch (error) {
    if (!(error instanceof ErrorReply)) throw error;
    onJunk?.({ where: key, why: `not a journal's hash (${error.message.split(' ')[0]})` });
    return undefined;
  }
}

/** The journals in the store, newest first; a key or entry that is not a journal's is skipped, told to `onJunk`. */
export async function listRedisJournals(url: string, options: StoreReadOptions = {}): Promise<JournalInfo[]> {
  const { prefix = JOURNAL_KEY_PREFIX, onJunk } = options;
  return withJournalStore(url, async (client) => {
    const found: JournalInfo[] = [];
    for (const metaKey of await scan(client, `${prefix}{*}:meta`)) {
      const id = namespaceOf(metaKey);
      if (!id) {
        onJunk?.({ where: metaKey, why: 'not a journal key (its tag is not 24 hex digits)' });
        continue;
      }
      const keys = journalKeys(prefix, `{${id}}`);
      const [meta, fields, ttl, claims] = await Promise.all([
        hashOf(client, metaKey, onJunk),
        hashOf(client, keys.entries, onJunk),
        client.pTTL(metaKey),
        scan(client, `${keys.claims}*`),
      ]);
      // Without its meta a journal has no service or dates to show: skipped (said above).
      if (!meta) continue;
      const updated = Number(meta.updated);
      found.push({
        id,
        location: showRateStoreUrl(url),
        service: meta.service,
        environment: meta.environment === '?' ? undefined : meta.environment,
        ...countStates(fields ? parseEntries(fields, keys.entries, onJunk) : []),
        updated: new Date(Number.isFinite(updated) ? updated : 0).toISOString(),
        expires: new Date(Date.now() + Math.max(0, Number(ttl))).toISOString(),
        inUse: claims.length > 0,
      });
    }
    return found.sort((a, b) => b.updated.localeCompare(a.updated));
  });
}

/** The entries of one journal in the store; an entry (or an entries key) that is not a journal's is told to `onJunk`. */
export async function readRedisJournal(
  url: string,
  id: string,
  options: StoreReadOptions = {},
): Promise<JournalEntry[]> {
  const { prefix = JOURNAL_KEY_PREFIX, onJunk } = options;
  return withJournalStore(url, async (client) => {
    const key = journalKeys(prefix, `{${id}}`).entries;
    const fields = await hashOf(client, key, onJunk);
    return fields ? parseEntries(fields, key, onJunk) : [];
  });
}

/** Deletes one journal from the store: its entries, contracts, meta and any claims left by killed runs. */
export async function forgetRedisJournal(
  url: string,
  id: string,
  prefix = JOURNAL_KEY_PREFIX,
): Promise<void> {
  await withJournalStore(url, async (client) => {
    const keys = journalKeys(prefix, `{${id}}`);
    const claims = await scan(client, `${keys.claims}*`);
    await client.del([keys.entries, keys.contracts, keys.meta, ...claims]);
  });
}

export interface StorePersistence {
  version: string | undefined;
  /** Whether the append-only file is on: without it a restart loses what runners were told was written. */
  appendOnly: boolean;
  /** `appendfsync` when known (CONFIG may be refused on a managed Redis). */
  fsync: string | undefined;
}

/** How the store keeps what it is told, for `doctor`. */
export async function journalStorePersistence(url: string): Promise<StorePersistence> {
  return withJournalStore(url, async (client) => {
    const info = String(await client.sendCommand<string>(['INFO', 'persistence']));
    const server = String(await client.sendCommand<string>(['INFO', 'server']));
    let fsync: string | undefined;
    try {
      const reply = (await client.sendCommand(['CONFIG', 'GET', 'appendfsync'])) as unknown;
      // RESP3 answers a map, RESP2 a flat list.
      const value: unknown = Array.isArray(reply)
        ? (reply as unknown[])[1]
        : (reply as Record<string, unknown> | null)?.appendfsync;
      fsync = typeof value === 'string' ? value : undefined;
    } catch {
      // CONFIG refused (a managed Redis): unknown.
    }
    return {
      version: /redis_version:([^\r\n]+)/.exec(server)?.[1],
      appendOnly: /aof_enabled:1/.test(info),
      fsync,
    };
  });
}
