/**
 * The rate pacer. SPEC §8 allows 600 requests per minute; the pacer spaces
 * requests evenly (one every 60 000 / rate ms) instead of letting them burst,
 * so a run never puts more than `rate` requests in any 60-second window.
 *
 * A 429 is news about the shared limit, not about one request: `penalize()`
 * pauses every caller until the server's Retry-After and widens the spacing,
 * which then narrows again as requests succeed.
 */
import { systemClock, type Clock } from './clock.js';

export const DEFAULT_RATE_PER_MINUTE = 600;
/** Spacing is widened by this fraction so network jitter cannot squeeze rate+1 requests into a window. */
const SAFETY_MARGIN = 0.01;
const MAX_SLOWDOWN = 8;
const SLOWDOWN_FACTOR = 1.5;
/** Each success takes this much off the slowdown, so recovery is gradual. */
const RECOVERY_STEP = 0.05;

export interface PacerOptions {
  ratePerMinute?: number;
  clock?: Clock;
}

export class RatePacer {
  readonly ratePerMinute: number;
  private readonly clock: Clock;
  private nextSlot = 0;
  private pausedUntil = 0;
  private slowdown = 1;

  constructor(options: PacerOptions = {}) {
    const rate = options.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE;
    if (!(Number.isFinite(rate) && rate > 0)) throw new RangeError(`rate must be a positive number, got ${rate}`);
    this.ratePerMinute = rate;
    this.clock = options.clock ?? systemClock;
  }

  /** Current spacing between two requests, in ms. */
  get intervalMs(): number {
    return (60_000 / this.ratePerMinute) * (1 + SAFETY_MARGIN) * this.slowdown;
  }

  /** Waits for this caller's turn. Every request attempt, retries included, takes one. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const slot = Math.max(now, this.nextSlot, this.pausedUntil);
      this.nextSlot = slot + this.intervalMs;
      if (slot > now) await this.clock.sleep(slot - now, signal);
      // A 429 seen while we slept moves everyone behind the pause.
      if (this.clock.now() >= this.pausedUntil) return;
    }
  }

  /** A 429: nobody sends before `delayMs` from now, and spacing widens. */
  penalize(delayMs: number): void {
    const until = this.clock.now() + Math.max(0, delayMs);
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.nextSlot = Math.max(this.nextSlot, this.pausedUntil);
    this.slowdown = Math.min(MAX_SLOWDOWN, this.slowdown * SLOWDOWN_FACTOR);
  }

  /** A request went through: let the spacing drift back towards the configured rate. */
  recordSuccess(): void {
    if (this.slowdown > 1) this.slowdown = Math.max(1, this.slowdown - RECOVERY_STEP);
  }
}
