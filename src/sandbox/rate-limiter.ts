/**
 * A sliding-window limit per API key: at most `limit` accepted requests in any
 * `windowMs`. Exact (a log of timestamps) because the sandbox exists to tell a
 * client whether it really stays under the spec's 600 per minute.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (0 when allowed with room left). */
  resetSeconds: number;
}

export class SlidingWindowLimiter {
  private readonly log = new Map<string, number[]>();

  constructor(
    private limit: number,
    private readonly windowMs = 60_000,
  ) {}

  setLimit(limit: number): void {
    this.limit = limit;
  }

  take(key: string, now: number): RateDecision {
    let stamps = this.log.get(key);
    if (!stamps) this.log.set(key, (stamps = []));
    const cutoff = now - this.windowMs;
    let expired = 0;
    while (expired < stamps.length && stamps[expired]! <= cutoff) expired++;
    if (expired > 0) stamps.splice(0, expired);
    const resetSeconds = (oldest: number | undefined) =>
      oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    if (stamps.length >= this.limit) {
      return { allowed: false, limit: this.limit, remaining: 0, resetSeconds: resetSeconds(stamps[stamps.length - this.limit]) };
    }
    stamps.push(now);
    const remaining = this.limit - stamps.length;
    return { allowed: true, limit: this.limit, remaining, resetSeconds: remaining === 0 ? resetSeconds(stamps[0]) : 0 };
  }
}
