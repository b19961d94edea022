import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  decideRetry,
  isRetryableStatus,
  parseRateLimitDelay,
  parseRetryAfter,
  retryDelay,
} from '../../src/core/pacing/retry.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('retry policy', () => {
  it('retries what may succeed later, never what will not', () => {
    for (const status of [408, 425, 429, 500, 502, 503, 504])
      expect(isRetryableStatus(status, true)).toBe(true);
    for (const status of [400, 401, 403, 404, 405, 413, 415, 422, 501, 505])
      expect(isRetryableStatus(status, true)).toBe(false);
    // 409 means "same Idempotency-Key in flight" only when a key was sent.
    expect(isRetryableStatus(409, true)).toBe(true);
    expect(isRetryableStatus(409, false)).toBe(false);
  });

  it('reads Retry-After as seconds or an HTTP-date', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', NOW)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('-1', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });

  it('reads the IETF RateLimit fields in their several forms and ignores malformed ones', () => {
    expect(parseRateLimitDelay({ ratelimit: '"default";r=0;t=12' })).toBe(12_000);
    expect(parseRateLimitDelay({ ratelimit: 'limit=100, remaining=0, reset=5' })).toBe(5000);
    expect(parseRateLimitDelay({ 'ratelimit-remaining': '0', 'ratelimit-reset': '9' })).toBe(9000);
    // Quota left: the reset time is no reason to wait.
    expect(parseRateLimitDelay({ ratelimit: '"default";r=3;t=12' })).toBeUndefined();
    expect(parseRateLimitDelay({ ratelimit: '"default";r=0;t=soon' })).toBeUndefined();
    expect(parseRateLimitDelay({ ratelimit: 'garbage' })).toBeUndefined();
    expect(parseRateLimitDelay({ 'ratelimit-reset': '-4' })).toBeUndefined();
  });

  it('prefers Retry-After, then RateLimit, then backoff', () => {
    const random = () => 0.5;
    expect(
      retryDelay(1, { 'retry-after': '3', ratelimit: '"d";r=0;t=20' }, NOW, DEFAULT_RETRY_POLICY, random),
    ).toEqual({ delayMs: 3000, source: 'retry-after' });
    expect(
      retryDelay(1, { 'retry-after': 'bogus', ratelimit: '"d";r=0;t=20' }, NOW, DEFAULT_RETRY_POLICY, random),
    ).toEqual({ delayMs: 20_000, source: 'ratelimit' });
    expect(retryDelay(1, {}, NOW, DEFAULT_RETRY_POLICY, random).source).toBe('backoff');
  });

  it('backs off exponentially with jitter, capped', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, policy, () => 0)).toBe(50);
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(3, policy, () => 0)).toBe(200);
    expect(backoffDelay(3, policy, () => 1)).toBe(400);
    expect(backoffDelay(10, policy, () => 1)).toBe(1000);
    expect(backoffDelay(10, policy, () => 0)).toBe(500);
  });
});

describe('decideRetry: one decision for every request', () => {
  const policy = DEFAULT_RETRY_POLICY;
  const half = () => 0.5;
  const response = (
    status: number,
    headers: Record<string, string> = {},
    keyed = true,
    finalConflict = false,
  ) => ({ kind: 'response' as const, status, headers, keyed, finalConflict });
  const network = (code: string | undefined) => ({ kind: 'network' as const, code });

  it.each([
    [
      'a refused connection: three quick looks, 0.1 + 0.2 + 0.4 s',
      network('ECONNREFUSED'),
      [100, 200, 400, undefined],
    ],
    ['a name that does not resolve: not retried', network('ENOTFOUND'), [undefined]],
    ['an unknown failure: not retried', network(undefined), [undefined]],
    [
      'a reset: backoff, as many times as the policy allows',
      network('ECONNRESET'),
      [375, 750, 1500, 3000, 6000, undefined],
    ],
    ['a 503: backoff', response(503), [375, 750, 1500, 3000, 6000, undefined]],
    [
      'a 429 with Retry-After: the server says',
      response(429, { 'retry-after': '7' }),
      [7000, 7000, 7000, 7000, 7000, undefined],
    ],
    ['a 400: final', response(400), [undefined]],
    ['a 409 that is about the resource: final', response(409, {}, true, true), [undefined]],
    ['a 409 without a key: final', response(409, {}, false), [undefined]],
  ])('%s', (_name, outcome, expected) => {
    const delays = expected.map((_, i) => {
      const decision = decideRetry(outcome, i + 1, policy, NOW, half);
      return decision.retry ? decision.delayMs : undefined;
    });
    expect(delays).toEqual(expected);
  });

  it('a server asking for longer than the policy allows ends the retries', () => {
    expect(decideRetry(response(503, { 'retry-after': '600' }), 1, policy, NOW, half)).toEqual({
      retry: false,
    });
  });

  it('--retries 0 means no retry at all, a refusal included', () => {
    const none = { ...policy, maxRetries: 0 };
    expect(decideRetry(network('ECONNREFUSED'), 1, none, NOW, half)).toEqual({ retry: false });
    expect(decideRetry(response(503), 1, none, NOW, half)).toEqual({ retry: false });
  });
});
