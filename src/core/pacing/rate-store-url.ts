/**
 * The address of a Redis store (the rate store: `--rate-store`, SIGN_RATE_STORE,
 * `rate_store`; the journal store: `--journal-store`, SIGN_JOURNAL_STORE,
 * `journal_store`): checked and shown, and its failures said, without loading a
 * Redis client, so start-up and `config set` stay light.
 */
import { UsageError } from '../errors.js';

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

/**
 * Query parameters that carry a credential: `?password=` as other Redis clients read it
 * (redis-py, go-redis), and its kin. Their values are masked wherever a store URL is shown.
 */
const SECRET_PARAM = /pass|pwd|auth|token|secret|key/i;
/** The same, for text that does not parse as a URL: `password=<value>` up to the next & or #. */
const SECRET_PARAM_IN_TEXT = /([?&][^=&#]*(?:pass|pwd|auth|token|secret|key)[^=&#]*=)[^&#]*/gi;

/**
 * The URL as it may be shown, the one place a store URL is made safe to print (doctor, journal,
 * errors, --verbose, config): a password (redis://:secret@host) and the value of a credential's
 * query parameter (redis://host/?password=secret) are masked, never printed.
 */
export function showRateStoreUrl(text: string): string {
  try {
    const url = new URL(text);
    const secretParams = [...new Set(url.searchParams.keys())].filter((name) => SECRET_PARAM.test(name));
    if (url.password === '' && secretParams.length === 0) return text;
    if (url.password !== '') url.password = '****';
    for (const name of secretParams) url.searchParams.set(name, '****');
    return url.toString().replace(/%2A%2A%2A%2A/g, '****');
  } catch {
    // Not a URL: hide everything between "//" and the last "@", where a password would be, and
    // the values of credential parameters.
    return text.replace(/\/\/.*@/, '//****@').replace(SECRET_PARAM_IN_TEXT, '$1****');
  }
}

/** The secrets of a store URL (its password, credential query values), for the output's list of secrets to mask. */
export function rateStoreSecrets(text: string): string[] {
  const secrets = new Set<string>();
  try {
    const url = new URL(text);
    if (url.password !== '') secrets.add(decodeURIComponent(url.password));
    for (const [name, value] of url.searchParams)
      if (SECRET_PARAM.test(name) && value !== '') secrets.add(value);
  } catch {
    // not a URL: read it the way a person meant it, below
  }
  // Unencoded, a "/" or "@" in the password confuses URL parsing: everything between the
  // user's ":" and the last "@" is masked too.
  const userinfo = /\/\/[^:/@]*:(.+)@/.exec(text)?.[1];
  if (userinfo !== undefined && secrets.size === 0) secrets.add(userinfo);
  for (const match of text.matchAll(SECRET_PARAM_IN_TEXT)) {
    const value = match[0].slice(match[1]!.length);
    if (value !== '') secrets.add(value);
  }
  return [...secrets];
}

/** Why the store failed, in a few words (never the URL's password). */
export function storeFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' && !message.includes(code) ? `${code} ${message}` : message)
    .replace(/\s+/g, ' ')
    .slice(0, 160);
}
