/**
 * A sliding-window limit per API key: at most `limit` accepted requests in any
 * `windowMs`. Exact (a log of timestamps) because the sandbox exists to tell a
 * client whether it really stays under the published 600 per minute
 * (docs/service.md, Limits).
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until a slot frees up (0 when allowed with room left). */
  resetSeconds: number;
}

/** Arrivals kept per key for the peak; a flood beyond this is reported as at least this many. */
const OFFERED_CAP = 100_000;

export class SlidingWindowLimiter {
  private readonly log = new Map<string, number[]>();
  /** Every arrival, refused ones included, per key: what clients put into a window, not what was let through. */
  private readonly offered = new Map<string, number[]>();
  /** The most requests one key sent within any one window (tests: "no window over the limit"). */
  peakOffered = 0;

  constructor(
    private limit: number,
    private readonly windowMs = 60_000,
  ) {}

  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** The times of `key` in `logs` still inside the window ending at `now` (older ones dropped). */
  private inWindow(logs: Map<string, number[]>, key: string, now: number): number[] {
    let stamps = logs.get(key);
    if (!stamps) logs.set(key, (stamps = []));
    const cutoff = now - this.windowMs;
    let expired = 0;
    while (expired < stamps.length && stamps[expired]! <= cutoff) expired++;
    if (expired > 0) stamps.splice(0, expired);
    return stamps;
  }

  private countOffered(key: string, now: number): void {
    const arrivals = this.inWindow(this.offered, key, now);
    if (arrivals.length < OFFERED_CAP) arrivals.push(now);
    this.peakOffered = Math.max(this.peakOffered, arrivals.length);
  }

  take(key: string, now: number): RateDecision {
    this.countOffered(key, now);
    const stamps = this.inWindow(this.log, key, now);
    const resetSeconds = (oldest: number | undefined) =>
      oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    if (stamps.length >= this.limit) {
      return {
        allowed: false,
        limit: this.limit,
        remaining: 0,
        resetSeconds: resetSeconds(stamps[stamps.length - this.limit]),
      };
    }
    stamps.push(now);
    const remaining = this.limit - stamps.length;
    return {
      allowed: true,
      limit: this.limit,
      remaining,
      resetSeconds: remaining === 0 ? resetSeconds(stamps[0]) : 0,
    };
  }
}
