/**
 * API keys as the published interface shows them (docs/service.md, Authentication
 * and keys): masked, with only the leading part and the last four characters
 * visible, plus environment, scopes, last use and expiry.
 * Everything that prints a key goes through maskKey().
 */
import { SCOPES, type Scope } from './endpoints.js';

/**
 * Type prefixes shown in full: Stripe-style `sk_live_`, `pk_test_`, `rk_…_`,
 * and `whsec_`. Anything else counts as secret from the first character.
 */
const PREFIX_RE = /^(?:(?:sk|pk|rk|ak)_(?:live_|test_|prod_|dev_|staging_|sandbox_)?|whsec_)/;
/** Below this many secret characters a key shows no tail at all, so little is ever revealed. */
const MIN_SECRET_FOR_TAIL = 12;
/** Without a type prefix, the first four characters show only on keys at least this long. */
const MIN_LENGTH_FOR_LEAD = 20;
const HIDDEN = '****';
/**
 * How services hide the middle of a key (*, • or …). Letters are never taken for a mask: a real key
 * may contain "xxxx". Written as escapes: the bundle holds no character beyond Latin-1 (scripts/build/build.mjs).
 */
const MASK_RE = /^(.*?)(?:\*+|\u2022+|\u2026|\.{3,})(.{4})$/;

/**
 * The key as the published interface shows it (docs/service.md, Authentication and keys): the
 * leading part and the last four characters.
 */
export function maskKey(key: string): string {
  const value = key.trim();
  const prefix = PREFIX_RE.exec(value)?.[0] ?? '';
  const secret = value.slice(prefix.length);
  if (secret.length < MIN_SECRET_FOR_TAIL) return `${prefix}${HIDDEN}`;
  const lead = prefix || (secret.length >= MIN_LENGTH_FOR_LEAD ? secret.slice(0, 4) : '');
  return `${lead}${HIDDEN}${secret.slice(-4)}`;
}

/** Below this many characters the part after a prefix is not searched for alone (too likely to match ordinary text). */
const MIN_BARE_SECRET = 8;

/**
 * Replaces every occurrence of the given secrets in a text by their masked
 * form: whole, and also the secret part alone (a server may echo a key
 * without its `sk_test_` prefix, or a webhook secret's base64 without
 * `whsec_`), which is masked as `****` and its last four.
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    // includes() first: the common case (no secret in the text) costs one scan and no allocation.
    if (out.includes(secret)) out = out.split(secret).join(maskKey(secret));
    const prefix = PREFIX_RE.exec(secret)?.[0] ?? '';
    const bare = secret.slice(prefix.length);
    if (prefix && bare.length >= MIN_BARE_SECRET && out.includes(bare))
      out = out.split(bare).join(bare.length >= MIN_SECRET_FOR_TAIL ? `${HIDDEN}${bare.slice(-4)}` : HIDDEN);
  }
  return out;
}

/**
 * A key as the service shows it, made safe to print: rebuilt as our own mask
 * (type prefix, ****, last four), so a service that shows too much, or nothing
 * hidden at all, still shows no more than that.
 */
export function displayKey(shown: string): string {
  const match = MASK_RE.exec(shown);
  if (!match) return maskKey(shown);
  const [, head, tail] = match as unknown as [string, string, string];
  return `${PREFIX_RE.exec(head)?.[0] ?? ''}${HIDDEN}${tail}`;
}

/**
 * Whether a masked key (`sk_live_****abcd`, `sk_live_...abcd`) is the given
 * full key: same visible start, same last four characters.
 */
export function maskedKeyMatches(masked: string, fullKey: string): boolean {
  const match = MASK_RE.exec(masked);
  if (!match) return masked === fullKey;
  const [, head, tail] = match as unknown as [string, string, string];
  return (
    fullKey.startsWith(head) && fullKey.endsWith(tail) && fullKey.length >= head.length + tail.length + 4
  );
}

export type ExpiryStatus = 'active' | 'expiring' | 'expired' | 'unknown';

export const EXPIRING_SOON_DAYS = 14;

/**
 * Where a key stands on `now` given its expiry date (YYYY-MM-DD, valid through
 * that day in UTC): days left, and whether it is expired or expiring soon.
 */
export function expiryStatus(
  expires: string | null | undefined,
  now: Date,
  soonDays = EXPIRING_SOON_DAYS,
): { status: ExpiryStatus; daysLeft: number | null } {
  if (!expires || !/^\d{4}-\d{2}-\d{2}/.test(expires)) return { status: 'unknown', daysLeft: null };
  const end = Date.parse(`${expires.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(end)) return { status: 'unknown', daysLeft: null };
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00Z`);
  const daysLeft = Math.round((end - today) / 86_400_000);
  if (daysLeft < 0) return { status: 'expired', daysLeft };
  return { status: daysLeft <= soonDays ? 'expiring' : 'active', daysLeft };
}

/** "just now", "5 minutes ago", "3 days ago", "in 2 hours". */
export function relativeTime(iso: string | null | undefined, now: Date): string {
  if (!iso) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((now.getTime() - then) / 1000);
  const abs = Math.abs(seconds);
  const units: [number, string][] = [
    [365 * 86_400, 'year'],
    [30 * 86_400, 'month'],
    [7 * 86_400, 'week'],
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  if (abs < 45) return 'just now';
  for (const [size, name] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      const text = `${n} ${name}${n === 1 ? '' : 's'}`;
      return seconds >= 0 ? `${text} ago` : `in ${text}`;
    }
  }
  return seconds >= 0 ? '1 minute ago' : 'in 1 minute';
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A key from the service's listing, whatever the spelling of its fields. */
export interface ListedKey {
  name: string;
  environment: string | null;
  /** Masked for display. */
  key: string;
  last_used: string | null;
  expires: string | null;
  scopes: string[] | null;
}

function pick(record: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (record[name] !== undefined && record[name] !== null) return record[name];
  return undefined;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? new Date(value * (value < 1e12 ? 1000 : 1)).toISOString()
      : null;

/**
 * The service's key listing (the published interface shows the fields, not the wire shape:
 * docs/service.md, Authentication and keys):
 * a bare array or `{data|keys|api_keys|items: [...]}`; `last_used`, `lastUsed`,
 * `last used` or `last_used_at`; `expires`, `expires_at`, `expiry`; scopes as
 * an array or a space/comma-separated string. Undefined when the body is no
 * such list (an HTML page, an error object): that is not "no keys".
 */
export function normalizeListedKeys(body: unknown): ListedKey[] | undefined {
  const list = Array.isArray(body)
    ? body
    : body && typeof body === 'object'
      ? (pick(body as Record<string, unknown>, 'data', 'keys', 'api_keys', 'apiKeys', 'items') as
          unknown[] | undefined)
      : undefined;
  if (!Array.isArray(list)) return undefined;
  return list
    .filter((item): item is Record<string, unknown> => Boolean(item) && typeof item === 'object')
    .map((item) => {
      const scopes = pick(item, 'scopes', 'scope', 'permissions');
      const key = text(pick(item, 'key', 'masked_key', 'maskedKey', 'token', 'prefix')) ?? '';
      return {
        name: text(pick(item, 'name', 'label', 'description')) ?? '(unnamed)',
        environment: text(pick(item, 'environment', 'env', 'mode')),
        key: key ? displayKey(key) : '',
        last_used: text(pick(item, 'last_used', 'lastUsed', 'last used', 'last_used_at', 'lastUsedAt')),
        expires:
          text(pick(item, 'expires', 'expires_at', 'expiresAt', 'expiry', 'expiration'))?.slice(0, 10) ??
          null,
        scopes: Array.isArray(scopes)
          ? scopes.map(String)
          : typeof scopes === 'string'
            ? scopes.split(/[\s,]+/).filter(Boolean)
            : null,
      };
    });
}
