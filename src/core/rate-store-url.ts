/**
 * The address of a Redis store (the rate store: `--rate-store`, SIGN_RATE_STORE,
 * `rate_store`; the journal store: `--journal-store`, SIGN_JOURNAL_STORE,
 * `journal_store`): checked and shown, and its failures said, without loading a
 * Redis client, so start-up and `config set` stay light.
 */
import { UsageError } from './errors.js';

const SCHEMES = new Set(['redis:', 'rediss:']);

/** A redis:// or rediss:// URL with a host; anything else is a usage error naming where it came from. */
export function parseRateStoreUrl(text: string, source = 'the rate store'): string {
  const hint = 'use redis://host:6379 (or rediss:// for TLS), e.g. redis://127.0.0.1:6379/0';
  const encoding = 'a password with "/", "@" or ":" in it must be percent-encoded (%2F, %40, %3A)';
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(
      `${source} is not a valid URL: ${JSON.stringify(showRateStoreUrl(text.trim()).slice(0, 80))}`,
      { hint: `${hint}; ${encoding}` },
    );
  }
  if (!SCHEMES.has(url.protocol)) {
    throw new UsageError(
      `${source} must be a redis:// or rediss:// URL, got ${JSON.stringify(showRateStoreUrl(text.trim()).slice(0, 80))}`,
      { hint },
    );
  }
  if (url.hostname === '') throw new UsageError(`${source} has no host`, { hint });
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) {
    // A "/" in an unencoded password ends the host early; the rest then reads as a path, so it is never echoed.
    const seen = text.includes('@') ? '' : `, got ${JSON.stringify(url.pathname.slice(0, 40))}`;
    throw new UsageError(`${source}: the path must be a database number such as /0${seen}`, {
      hint: `${hint}; ${encoding}`,
    });
  }
  return url.toString();
}

/** The URL as it may be shown: a password (redis://:secret@host) is masked, never printed. */
export function showRateStoreUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password === '') return text;
    url.password = '****';
    return url.toString();
  } catch {
    // Not a URL: hide everything between "//" and the last "@", where a password would be.
    return text.replace(/\/\/.*@/, '//****@');
  }
}

/** The password part of a store URL, for the output's list of secrets to mask. */
export function rateStorePassword(text: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(text).password);
    if (password !== '') return password;
  } catch {
    // not a URL: read it the way a person meant it, below
  }
  // Unencoded, a "/" or "@" in the password confuses URL parsing: everything between the
  // user's ":" and the last "@" is masked too.
  return /\/\/[^:/@]*:(.+)@/.exec(text)?.[1];
}

/** Why the store failed, in a few words (never the URL's password). */
export function storeFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message)
    .replace(/\s+/g, ' ')
    .slice(0, 160);
}
