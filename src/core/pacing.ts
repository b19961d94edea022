/**
 * The rate pacer. SPEC §8 allows 600 requests per minute; the pacer spaces
 * requests evenly (one every 60 000 / rate ms) instead of letting them burst,
 * so a run never puts more than `rate` requests in any 60-second window.
 *
 * What the service says about its limit is news about a budget that other
 * runs with the same key may be spending too:
 * - a 429 pauses every caller until its Retry-After (`penalize()`) and widens
 *   the spacing for a while; the widening fades out over RECOVERY_MS once the
 *   pause is over, so one burst of 429s costs seconds, not the rest of the run;
 * - the IETF RateLimit fields (`observe()`): `RateLimit-Policy` with a lower
 *   quota than ours lowers our pace; `RateLimit` with nothing remaining pauses
 *   everyone until its reset; with a little remaining and a reset time, the
 *   rest is spread evenly until then.
 * Spacing is only ever widened beyond the configured rate, never narrowed, so
 * the window property holds whatever the service says.
 */
import { systemClock, type Clock } from './clock.js';
import { parseRateLimitFields } from './retry.js';

export const DEFAULT_RATE_PER_MINUTE = 600;
/** Spacing is widened by this fraction so network jitter cannot squeeze rate+1 requests into a window. */
const SAFETY_MARGIN = 0.01;
const MAX_SLOWDOWN = 4;
const SLOWDOWN_FACTOR = 1.5;
/** After a 429 pause ends, the widened spacing shrinks back to the configured one over this long. */
export const RECOVERY_MS = 30_000;

export interface PacerOptions {
  ratePerMinute?: number;
  clock?: Clock;
}

export class RatePacer {
  readonly ratePerMinute: number;
  private readonly clock: Clock;
  private nextSlot = 0;
  private pausedUntil = 0;
  /** Widening from the last 429, at the moment its pause ends; fades to 1 over RECOVERY_MS. */
  private slowdown = 1;
  /** Spacing the service's own quota asks for (RateLimit-Policy), when slower than ours. */
  private policyIntervalMs = 0;
  /** Spacing that spends what the service says is left evenly until its reset. */
  private budgetIntervalMs = 0;
  private budgetUntil = 0;

  constructor(options: PacerOptions = {}) {
    const rate = options.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE;
    if (!(Number.isFinite(rate) && rate > 0)) throw new RangeError(`rate must be a positive number, got ${rate}`);
    this.ratePerMinute = rate;
    this.clock = options.clock ?? systemClock;
  }

  /** The configured spacing, with the safety margin: what the pacer returns to. */
  get baseIntervalMs(): number {
    return (60_000 / this.ratePerMinute) * (1 + SAFETY_MARGIN);
  }

  /** The 429 widening in force at `now`: full until the pause ends, then fading linearly to 1. */
  private slowdownAt(now: number): number {
    if (this.slowdown <= 1) return 1;
    const fade = Math.min(1, Math.max(0, (now - this.pausedUntil) / RECOVERY_MS));
    const factor = this.slowdown - (this.slowdown - 1) * fade;
    if (fade >= 1) this.slowdown = 1;
    return factor;
  }

  /** Current spacing between two requests, in ms. */
  get intervalMs(): number {
    const now = this.clock.now();
    const budget = now < this.budgetUntil ? this.budgetIntervalMs : 0;
    return Math.max(this.baseIntervalMs * this.slowdownAt(now), this.policyIntervalMs * (1 + SAFETY_MARGIN), budget);
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

  /** Nobody sends before `delayMs` from now. */
  private pause(delayMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + Math.max(0, delayMs));
    this.nextSlot = Math.max(this.nextSlot, this.pausedUntil);
  }

  /** A 429: everyone pauses for `delayMs`, and the spacing widens until RECOVERY_MS after the pause. */
  penalize(delayMs: number): void {
    const current = this.slowdownAt(this.clock.now());
    this.pause(delayMs);
    this.slowdown = Math.min(MAX_SLOWDOWN, current * SLOWDOWN_FACTOR);
  }

  /** Reads the service's RateLimit / RateLimit-Policy fields from any response. */
  observe(headers: Record<string, string | undefined>): void {
    const fields = parseRateLimitFields(headers);
    if (fields.quota !== undefined && fields.windowSeconds !== undefined && fields.quota > 0) {
      const interval = (fields.windowSeconds * 1000) / fields.quota;
      this.policyIntervalMs = interval > 60_000 / this.ratePerMinute ? interval : 0;
    }
    if (fields.remaining === undefined || fields.resetSeconds === undefined || fields.resetSeconds <= 0) return;
    const resetMs = fields.resetSeconds * 1000;
    if (fields.remaining === 0) {
      this.pause(resetMs);
      return;
    }
    this.budgetIntervalMs = resetMs / fields.remaining;
    this.budgetUntil = this.clock.now() + resetMs;
  }
}
