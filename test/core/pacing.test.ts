import { describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/core/errors.js';
import { RECOVERY_MS, RatePacer, type SharedBudget } from '../../src/core/pacing/pacing.js';
import { FakeClock, InstantClock, settle } from '../helpers/fake-clock.js';

/** Largest number of timestamps inside any window of `windowMs` (half-open). */
function maxInWindow(times: number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

describe('RatePacer', () => {
  it('spaces requests evenly instead of bursting', async () => {
    const clock = new InstantClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      await pacer.acquire();
      times.push(clock.now());
    }
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100);
    for (const gap of gaps) expect(gap).toBeLessThan(102);
  });

  it('never lets more than the rate through in any 60-second window, at 600 and at a custom rate', async () => {
    for (const rate of [600, 90]) {
      const clock = new InstantClock();
      const pacer = new RatePacer({ ratePerMinute: rate, clock });
      const times: number[] = [];
      for (let i = 0; i < rate * 3; i++) {
        await pacer.acquire();
        times.push(clock.now());
      }
      expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(rate);
      // ...and stays close to the rate: three minutes' worth takes a little over three minutes.
      expect(times.at(-1)! - times[0]!).toBeLessThan(3 * 60_000 * 1.02);
    }
  });

  it('paces concurrent callers too', async () => {
    const clock = new FakeClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const times: number[] = [];
    const callers = Array.from({ length: 20 }, () => pacer.acquire().then(() => times.push(clock.now())));
    await clock.runAll();
    await Promise.all(callers);
    times.sort((a, b) => a - b);
    expect(times).toHaveLength(20);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(19 * 100);
  });

  it('holds back every caller after a 429, not just the one that got it', async () => {
    const clock = new FakeClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const start = clock.now();
    await Promise.all([pacer.acquire(), clock.runAll()]);
    // Two callers queue up; then a 429 asks everyone to wait 5 s.
    const times: number[] = [];
    const waiting = [pacer.acquire(), pacer.acquire()].map((p) => p.then(() => times.push(clock.now())));
    await settle();
    pacer.penalize(5000);
    await clock.runAll();
    await Promise.all(waiting);
    for (const t of times) expect(t).toBeGreaterThanOrEqual(start + 5000);
  });

  it('widens the spacing after a 429, and is back to the configured pace within 30 s of the pause ending', async () => {
    const clock = new InstantClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const normal = pacer.intervalMs;
    expect(normal).toBe(pacer.baseIntervalMs);
    // A burst of ten 429s, each asking for 2 s.
    for (let i = 0; i < 10; i++) pacer.penalize(2000);
    expect(pacer.intervalMs).toBeGreaterThan(normal * 3.9);
    expect(pacer.intervalMs).toBeLessThanOrEqual(normal * 4);
    await pacer.acquire();
    expect(clock.now()).toBeGreaterThanOrEqual(1_000_000 + 2000);
    clock.t += RECOVERY_MS / 2;
    expect(pacer.intervalMs).toBeGreaterThan(normal * 1.5);
    expect(pacer.intervalMs).toBeLessThan(normal * 3);
    clock.t += RECOVERY_MS / 2;
    expect(pacer.intervalMs).toBeCloseTo(normal, 5);
  });

  it('keeps every 60-second window under the rate through a burst of 429s and the recovery after it', async () => {
    const clock = new InstantClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      await pacer.acquire();
      times.push(clock.now());
      if (i >= 300 && i < 320) pacer.penalize(1000);
    }
    expect(maxInWindow(times, 60_000)).toBeLessThanOrEqual(600);
    // After the burst, the last 600 requests run at the full pace again.
    const tail = times.slice(-600);
    expect(tail.at(-1)! - tail[0]!).toBeLessThan(60_000 * 1.02);
  });

  it("follows the service's RateLimit fields: nothing left pauses everyone, a lower policy slows, a small budget spreads", () => {
    const clock = new InstantClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const normal = pacer.intervalMs;
    pacer.observe({ ratelimit: '"default";r=40;t=0', 'ratelimit-policy': '"default";q=600;w=60' });
    expect(pacer.intervalMs).toBe(normal);
    // Another runner spends the same key: 10 left for the next 10 s.
    pacer.observe({ ratelimit: '"default";r=10;t=10' });
    expect(pacer.intervalMs).toBe(1000);
    clock.t += 10_000;
    expect(pacer.intervalMs).toBe(normal);
    // The service's own quota is lower than ours.
    pacer.observe({ 'ratelimit-policy': '300;w=60' });
    expect(pacer.intervalMs).toBeCloseTo(normal * 2, 5);
    pacer.observe({ 'ratelimit-policy': '"default";q=900;w=60' });
    expect(pacer.intervalMs).toBe(normal);
  });

  it('pauses until the reset when the service says nothing is left', async () => {
    const clock = new InstantClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const start = clock.now();
    pacer.observe({ ratelimit: 'limit=600, remaining=0, reset=7' });
    await pacer.acquire();
    expect(clock.now() - start).toBe(7000);
  });

  it('gives up a wait for a slot at once when the signal aborts', async () => {
    const clock = new FakeClock();
    const pacer = new RatePacer({ ratePerMinute: 6, clock });
    await Promise.all([pacer.acquire(), clock.runAll()]);
    const controller = new AbortController();
    const waiting = pacer.acquire(controller.signal);
    await settle();
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
  });

  it('rejects a rate that is not a positive number', () => {
    expect(() => new RatePacer({ ratePerMinute: 0 })).toThrow(RangeError);
    expect(() => new RatePacer({ ratePerMinute: Number.NaN })).toThrow(RangeError);
  });
});

/** A shared budget the test controls: slots are granted at once while it is active. */
class TestBudget implements SharedBudget {
  active = true;
  runners = 3;
  readonly taken: number[] = [];
  readonly pauses: number[] = [];
  constructor(private readonly clock: { now(): number }) {}
  async take(): Promise<boolean> {
    if (!this.active) return false;
    this.taken.push(this.clock.now());
    return true;
  }
  pause(delayMs: number): void {
    this.pauses.push(delayMs);
  }
}

describe('RatePacer with a shared budget', () => {
  it('takes every slot from the shared budget too, and passes a 429 on to it', async () => {
    const clock = new InstantClock();
    const shared = new TestBudget(clock);
    const pacer = new RatePacer({ ratePerMinute: 600, clock, shared });
    for (let i = 0; i < 3; i++) await pacer.acquire();
    expect(shared.taken).toHaveLength(3);
    pacer.penalize(2_000);
    expect(shared.pauses).toEqual([2_000]);
  });

  it('once the budget is lost, paces locally at 1/N of the rate, N the runners that shared it', async () => {
    const clock = new InstantClock();
    const shared = new TestBudget(clock);
    const pacer = new RatePacer({ ratePerMinute: 600, clock, shared });
    await pacer.acquire();
    shared.active = false;
    const times: number[] = [];
    for (let i = 0; i < 4; i++) {
      await pacer.acquire();
      times.push(clock.now());
    }
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const gap of gaps) expect(gap).toBeCloseTo(3 * 101, 0);
    expect(shared.taken).toHaveLength(1);
  });

  it('a caller already waiting for its local slot when the budget is lost waits for a slot at the slower pace', async () => {
    const clock = new FakeClock();
    const shared = new TestBudget(clock);
    const pacer = new RatePacer({ ratePerMinute: 600, clock, shared });
    const start = clock.now();
    await pacer.acquire();
    let resolvedAt = 0;
    const waiting = pacer.acquire().then(() => (resolvedAt = clock.now()));
    await settle();
    // Its local slot (101 ms on) was timed for the shared pace; the store goes away meanwhile.
    shared.active = false;
    await clock.runAll();
    await waiting;
    // Not at 101 ms, on top of what the other runners just sent: one fallback interval (3 × 101) after it woke.
    expect(resolvedAt - start).toBeGreaterThanOrEqual(101 + 3 * 101 - 1);
    expect(shared.taken).toHaveLength(1);
  });
  it('when the budget comes back, a caller waiting for a local slot takes a shared one instead, and the pace is the full rate again', async () => {
    const clock = new FakeClock();
    const shared = new TestBudget(clock);
    const pacer = new RatePacer({ ratePerMinute: 600, clock, shared });
    await pacer.acquire();
    shared.active = false;
    const local = pacer.acquire();
    await clock.runAll();
    await local;
    expect(pacer.baseIntervalMs).toBeCloseTo(3 * 101, 0);
    // The next caller waits for a local slot (3 intervals on); the store comes back meanwhile.
    let done = false;
    const waiting = pacer.acquire().then(() => (done = true));
    await settle();
    shared.active = true;
    await clock.runAll();
    await waiting;
    expect(done).toBe(true);
    expect(shared.taken).toHaveLength(2);
    expect(pacer.baseIntervalMs).toBeCloseTo(101, 0);
  });
});
