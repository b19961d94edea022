/**
 * Where `envelopes create` keeps its journal, and for how long: `--journal-store`, then
 * SIGN_JOURNAL_STORE, then the `journal_store` setting (a Redis URL: the journal runners share),
 * else this machine's files; `SIGN_JOURNAL_RETENTION`, then `journal_retention` (default 30 days).
 */
import { JOURNAL_RETENTION_MS } from '../../core/journal/journal-retention.js';
import { parseRateStoreUrl, rateStoreSecrets } from '../../core/pacing/rate-store-url.js';
import type { ConfigFile } from './config-file.js';
import type { Output } from '../render/output.js';
import { parseRetention } from '../flags/since.js';

/** What resolving reads: the environment, the config file, and the output (to mask a password). */
interface Sources {
  env: NodeJS.ProcessEnv;
  loadConfig(): Promise<ConfigFile>;
  output: Output;
}

export interface JournalStoreChoice {
  url: string;
  /** Where it came from: `--journal-store`, `SIGN_JOURNAL_STORE` or `config journal_store`. */
  source: string;
}

/** The shared journal's store, if one is configured; a malformed URL is a usage error naming its source. */
export async function journalStore(
  ctx: Sources,
  flag: string | undefined,
): Promise<JournalStoreChoice | undefined> {
  const given =
    flag !== undefined && flag !== ''
      ? { text: flag, source: '--journal-store' }
      : ctx.env.SIGN_JOURNAL_STORE
        ? { text: ctx.env.SIGN_JOURNAL_STORE, source: 'SIGN_JOURNAL_STORE' }
        : undefined;
  const configured = given
    ? undefined
    : ((await ctx.loadConfig()).get('settings')?.journal_store as string | undefined);
  const chosen = given ?? (configured ? { text: configured, source: 'config journal_store' } : undefined);
  if (!chosen) return undefined;
  for (const secret of rateStoreSecrets(chosen.text)) ctx.output.protect(secret);
  return { url: parseRateStoreUrl(chosen.text, chosen.source), source: chosen.source };
}

/** How long journals are kept after their last write: SIGN_JOURNAL_RETENTION, the `journal_retention` setting, or 30 days. */
export async function journalRetentionMs(ctx: Omit<Sources, 'output'>): Promise<number> {
  const fromEnv = ctx.env.SIGN_JOURNAL_RETENTION;
  if (fromEnv) return parseRetention(fromEnv, 'SIGN_JOURNAL_RETENTION');
  const configured = (await ctx.loadConfig()).get('settings')?.journal_retention;
  return typeof configured === 'string'
    ? parseRetention(configured, 'journal_retention')
    : JOURNAL_RETENTION_MS;
}
