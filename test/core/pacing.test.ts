import { describe, expect, it } from 'vitest';
import { RatePacer } from '../../src/core/pacing.js';
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

  it('widens the spacing after a 429 and recovers as requests succeed', async () => {
    const clock = new InstantClock();
    const pacer = new RatePacer({ ratePerMinute: 600, clock });
    const normal = pacer.intervalMs;
    pacer.penalize(0);
    expect(pacer.intervalMs).toBeGreaterThan(normal * 1.4);
    for (let i = 0; i < 20; i++) pacer.recordSuccess();
    expect(pacer.intervalMs).toBeCloseTo(normal, 5);
  });

  it('rejects a rate that is not a positive number', () => {
    expect(() => new RatePacer({ ratePerMinute: 0 })).toThrow(RangeError);
    expect(() => new RatePacer({ ratePerMinute: Number.NaN })).toThrow(RangeError);
  });
});
