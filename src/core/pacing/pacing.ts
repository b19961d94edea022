/**
 * The rate pacer. The published interface allows 600 requests per minute
 * (docs/service.md, Limits); the pacer spaces requests evenly (one every
 * 60 000 / rate ms) instead of letting them burst, so a run never puts more
 * than `rate` requests in any 60-second window.
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
 *
 * Other processes with the same key are reached through a SharedBudget
 * (core/pacing/shared-budget.ts, Redis): each request takes its local slot, then a
 * slot in the shared budget. While the shared budget is lost, local pacing
 * carries on at the share of the rate this process had.
 */
import { systemClock, type Clock } from '../clock.js';
import { parseRateLimitFields } from './retry.js';

export const DEFAULT_RATE_PER_MINUTE = 600;
/** Spacing is widened by this fraction so network jitter cannot squeeze rate+1 requests into a window. */
const SAFETY_MARGIN = 0.01;
const MAX_SLOWDOWN = 4;
const SLOWDOWN_FACTOR = 1.5;
/** After a 429 pause ends, the widened spacing shrinks back to the configured one over this long. */
export const RECOVERY_MS = 30_000;

/** What a request asks of a shared budget: the rate it paces to, as a window limit and a spacing. */
export interface SlotRequest {
  /** At most this many slots in any 60-second window. */
  limit: number;
  /** At least this long between two slots, whoever takes them. */
  intervalMs: number;
}

/** A rate budget several processes take slots from (core/pacing/shared-budget.ts keeps one in Redis). */
export interface SharedBudget {
  /** False once the store is unreachable or lost: the pacer paces locally from then on. */
  readonly active: boolean;
  /** Runners seen sharing the budget in the last window (1 when unknown). */
  readonly runners: number;
  /** Waits for a shared slot. True: send now. False: the store is lost (take a local slot instead). */
  take(request: SlotRequest, signal?: AbortSignal): Promise<boolean>;
  /** A 429 seen here: every process sharing the budget waits `delayMs` (never rejects). */
  pause(delayMs: number): Promise<void> | void;
}

export interface PacerOptions {
  ratePerMinute?: number;
  clock?: Clock;
  /** Take every slot from this shared budget too (`--rate-store`). */
  shared?: SharedBudget | undefined;
}

export class RatePacer {
  readonly ratePerMinute: number;
  private readonly clock: Clock;
  private readonly shared: SharedBudget | undefined;
  /** Runners that shared the budget when it was lost: local pacing takes 1/N of the rate while it is. */
  private fallbackShare = 1;
  private sharedLost = false;
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
    if (!(Number.isFinite(rate) && rate > 0))
      throw new RangeError(`rate must be a positive number, got ${rate}`);
    this.ratePerMinute = rate;
    this.clock = options.clock ?? systemClock;
    this.shared = options.shared;
  }

  /** The configured spacing, with the safety margin: what the pacer returns to. */
  get baseIntervalMs(): number {
    return (60_000 / this.ratePerMinute) * (1 + SAFETY_MARGIN) * (this.sharedLost ? this.fallbackShare : 1);
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
    return Math.max(
      this.baseIntervalMs * this.slowdownAt(now),
      this.policyIntervalMs * (1 + SAFETY_MARGIN),
      budget,
    );
  }

  /** Waits for this caller's turn. Every request attempt, retries included, takes one. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (this.shared && !this.shared.active && !this.sharedLost) this.goLocal(this.shared.runners);
      // The store came back (the budget rejoined it): slots come from it again, at the full rate.
      else if (this.shared?.active && this.sharedLost) this.sharedLost = false;
      const localOnly = this.shared === undefined || this.sharedLost;
      await this.acquireLocal(signal);
      if (localOnly) {
        // Rejoined while this caller waited: its slot was timed for the local pace, on top of
        // the shared slots the others are taking; it takes a shared one instead.
        if (this.shared?.active) continue;
        return;
      }
      // Lost while this caller waited for its local slot: that slot was timed for
      // the shared pace, so it starts over at the slower local one.
      if (!this.shared.active) continue;
      const request = { limit: this.ratePerMinute, intervalMs: this.intervalMs };
      if (await this.shared.take(request, signal)) return;
      // Lost while waiting for a shared slot: the same, a local slot at the fallback pace,
      // so the callers that were waiting do not all send at once.
    }
  }

  /**
   * The shared budget is gone: this process takes its share of the rate
   * alone, starting one (slower) interval from now. Its own schedule had been
   * running behind the shared one, so picking it up where it was would send at
   * once, on top of what the others just sent in their shared slots.
   */
  private goLocal(runners: number): void {
    this.sharedLost = true;
    this.fallbackShare = Math.max(1, runners);
    // Alone (or never connected), there is no one else's recent slot to keep clear of.
    if (runners > 1) this.nextSlot = Math.max(this.nextSlot, this.clock.now() + this.intervalMs);
  }

  private async acquireLocal(signal?: AbortSignal): Promise<void> {
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
    // Fire and forget: the retry waits on this process's own pause; the others learn of it at their next slot.
    void this.shared?.pause(delayMs);
  }

  /** Reads the service's RateLimit / RateLimit-Policy fields from any response. */
  observe(headers: Record<string, string | undefined>): void {
    const fields = parseRateLimitFields(headers);
    if (fields.quota !== undefined && fields.windowSeconds !== undefined && fields.quota > 0) {
      const interval = (fields.windowSeconds * 1000) / fields.quota;
      this.policyIntervalMs = interval > 60_000 / this.ratePerMinute ? interval : 0;
    }
    if (fields.remaining === undefined || fields.resetSeconds === undefined || fields.resetSeconds <= 0)
      return;
    const resetMs = fields.resetSeconds * 1000;
    if (fields.remaining === 0) {
      this.pause(resetMs);
      return;
    }
    this.budgetIntervalMs = resetMs / fields.remaining;
    this.budgetUntil = this.clock.now() + resetMs;
  }
}
