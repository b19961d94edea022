/**
 * When to retry and how long to wait. Server hints come first (Retry-After,
 * then the IETF RateLimit fields), then capped exponential backoff with jitter.
 */

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking for a longer wait than this ends the retries instead of stalling the run. */
  maxServerDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxServerDelayMs: 120_000,
};

export type DelaySource = 'retry-after' | 'ratelimit' | 'backoff';

/** Statuses worth another try with the same Idempotency-Key. 501 and 505 will not change. */
export function isRetryableStatus(status: number, hasIdempotencyKey: boolean): boolean {
  if (status === 408 || status === 425 || status === 429) return true;
  // 409 means "same key still in flight" only for keyed requests.
  if (status === 409) return hasIdempotencyKey;
  return status >= 500 && status !== 501 && status !== 505;
}

/** Retry-After as delta-seconds or an HTTP-date; undefined when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined; // "1.5", "-3": not valid forms
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function nonNegativeInt(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

export interface RateLimitFields {
  remaining?: number;
  resetSeconds?: number;
  /** The quota and its window from RateLimit-Policy. */
  quota?: number;
  windowSeconds?: number;
}

/**
 * The IETF RateLimit header fields, whichever draft form the service uses:
 * the structured form of draft-ietf-httpapi-ratelimit-headers
 * (`RateLimit: "default";r=0;t=30`, `RateLimit-Policy: "default";q=600;w=60`),
 * the older combined form (`RateLimit: limit=100, remaining=0, reset=30`,
 * `RateLimit-Policy: 100;w=60`) and the separate `RateLimit-Remaining` /
 * `RateLimit-Reset` fields. Malformed fields are ignored.
 */
export function parseRateLimitFields(headers: Record<string, string | undefined>): RateLimitFields {
  const out: RateLimitFields = {};
  const field = headers['ratelimit'];
  if (field) {
    const params = new Map<string, string>();
    for (const match of field.matchAll(/(?:^|[;,\s])(r|t|remaining|reset)\s*=\s*([^;,\s]+)/gi)) {
      params.set(match[1]!.toLowerCase(), match[2]!);
    }
    out.remaining = nonNegativeInt(params.get('r') ?? params.get('remaining'));
    out.resetSeconds = nonNegativeInt(params.get('t') ?? params.get('reset'));
  }
  out.remaining ??= nonNegativeInt(headers['ratelimit-remaining']);
  out.resetSeconds ??= nonNegativeInt(headers['ratelimit-reset']);
  const policy = headers['ratelimit-policy']?.split(',')[0];
  if (policy) {
    out.quota = nonNegativeInt(/(?:^|;)\s*q\s*=\s*(\d+)/i.exec(policy)?.[1] ?? /^\s*(\d+)\s*(?:;|$)/.exec(policy)?.[1]);
    out.windowSeconds = nonNegativeInt(/(?:^|;)\s*w\s*=\s*(\d+)/i.exec(policy)?.[1]);
  }
  return out;
}

/** The wait the IETF RateLimit header fields ask for, in ms, or undefined. */
export function parseRateLimitDelay(headers: Record<string, string | undefined>): number | undefined {
  const { remaining, resetSeconds } = parseRateLimitFields(headers);
  if (resetSeconds !== undefined && (remaining === undefined || remaining === 0)) return resetSeconds * 1000;
  return undefined;
}

/** Exponential backoff capped at maxDelayMs, with "equal jitter": half fixed, half random. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return exponential / 2 + random() * (exponential / 2);
}

export interface RetryDelay {
  delayMs: number;
  source: DelaySource;
}

/** How long to wait before retry number `retry` (1-based). */
export function retryDelay(
  retry: number,
  headers: Record<string, string | undefined>,
  now: number,
  policy: RetryPolicy,
  random: () => number,
): RetryDelay {
  const retryAfter = parseRetryAfter(headers['retry-after'], now);
  if (retryAfter !== undefined) return { delayMs: retryAfter, source: 'retry-after' };
  const rateLimit = parseRateLimitDelay(headers);
  if (rateLimit !== undefined) return { delayMs: rateLimit, source: 'ratelimit' };
  return { delayMs: backoffDelay(retry, policy, random), source: 'backoff' };
}
