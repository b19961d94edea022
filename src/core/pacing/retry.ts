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
    out.quota = nonNegativeInt(
      /(?:^|;)\s*q\s*=\s*(\d+)/i.exec(policy)?.[1] ?? /^\s*(\d+)\s*(?:;|$)/.exec(policy)?.[1],
    );
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

/**
 * Network failures before a connection exists. Nothing reached the service.
 * A refused connection means nothing listens there now: worth a quick second
 * look (a service restarting), not a minute of backoff before saying so.
 */
export const REFUSED_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED']);
/** A name that does not resolve will not resolve in a second either. */
const PERMANENT_NETWORK_CODES: ReadonlySet<string> = new Set(['ENOTFOUND']);
/** Transient network failures, retried with the same Idempotency-Key like a 5xx. */
export const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The waits after a refused connection: 0.1 + 0.2 + 0.4 s, so a refusal is reported within about a second. */
export const REFUSED_DELAYS_MS: readonly number[] = [100, 200, 400];

/** What one attempt ended with: an HTTP status (with its headers) or a network error code. */
export type AttemptOutcome =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string | undefined>;
      keyed: boolean;
      finalConflict: boolean;
    }
  | { kind: 'network'; code: string | undefined };

export type RetryDecision = { retry: false } | { retry: true; delayMs: number; source: DelaySource };

/**
 * THE retry decision of every request of every command (as stripe-node's
 * `_shouldRetry`): after attempt number `attempt` (1-based) ended with
 * `outcome`, send again, and after how long? Pure: the caller brings the
 * clock and the random source, and decides itself whether it was asked to stop.
 */
export function decideRetry(
  outcome: AttemptOutcome,
  attempt: number,
  policy: RetryPolicy,
  now: number,
  random: () => number,
): RetryDecision {
  const no: RetryDecision = { retry: false };
  if (outcome.kind === 'network') {
    const code = outcome.code;
    if (code === undefined || PERMANENT_NETWORK_CODES.has(code)) return no;
    if (REFUSED_CODES.has(code)) {
      const delay = REFUSED_DELAYS_MS[attempt - 1];
      return delay !== undefined && attempt <= policy.maxRetries
        ? { retry: true, delayMs: delay, source: 'backoff' }
        : no;
    }
    if (!RETRYABLE_NETWORK_CODES.has(code) || attempt > policy.maxRetries) return no;
    return { retry: true, delayMs: backoffDelay(attempt, policy, random), source: 'backoff' };
  }
  if (
    attempt > policy.maxRetries ||
    outcome.finalConflict ||
    !isRetryableStatus(outcome.status, outcome.keyed)
  )
    return no;
  const delay = retryDelay(attempt, outcome.headers, now, policy, random);
  // A server asking for a longer wait than the policy allows ends the retries instead of stalling the run.
  return delay.delayMs <= policy.maxServerDelayMs ? { retry: true, ...delay } : no;
}
