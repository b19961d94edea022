import { describe, expect, it, vi } from 'vitest';
import { Scheduler, createSandboxClock } from '../../src/sandbox/journey/clock.js';
import { RETRY_SCHEDULE_MS } from '../../src/sandbox/delivery/deliveries.js';
import { magicBehaviour } from '../../src/sandbox/journey/magic.js';
import { SlidingWindowLimiter } from '../../src/sandbox/http/rate-limiter.js';

describe('sandbox pieces', () => {
  it('retries a delivery up to 8 times within 24 hours (docs/service.md, Events)', () => {
    expect(RETRY_SCHEDULE_MS).toHaveLength(8);
    expect(RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0)).toBeLessThan(24 * 3_600_000);
    expect([...RETRY_SCHEDULE_MS].sort((a, b) => a - b)).toEqual([...RETRY_SCHEDULE_MS]);
  });

  it('runs the clock at its speed and never before a time already on record', () => {
    let real = 1_000_000;
    const clock = createSandboxClock(10, 0, () => real);
    real += 500;
    expect(clock.now()).toBe(1_005_000);
    const resumed = createSandboxClock(1, 9_000_000, () => real);
    expect(resumed.now()).toBe(9_000_000);
    expect(() => createSandboxClock(0)).toThrow(RangeError);
  });

  it('schedules in sandbox time, scaled to real time', () => {
    // Real time is the fake timers' (restored below): 50 s of sandbox time at speed 1000 is due
    // after exactly 50 ms of it, not "soon enough" on whatever machine runs this.
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    try {
      const clock = createSandboxClock(1000);
      const scheduler = new Scheduler(clock);
      let fired = false;
      scheduler.at(clock.now() + 50_000, () => (fired = true));
      vi.advanceTimersByTime(49);
      expect(fired).toBe(false);
      vi.advanceTimersByTime(1);
      expect(fired).toBe(true);
      scheduler.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('recognises the documented magic values', () => {
    expect(magicBehaviour({ email: 'Omar+Decline@example.com' })).toBe('decline');
    expect(magicBehaviour({ phone: '+12025550101' })).toBe('decline');
    expect(magicBehaviour({ email: 'a+verifyfail@example.com' })).toBe('fail_verification');
    expect(magicBehaviour({ phone: '+12025550103' })).toBe('never_view');
    expect(magicBehaviour({ email: 'decline@example.com' })).toBeUndefined();
    expect(magicBehaviour({})).toBeUndefined();
  });

  it('limits per key in an exact sliding window', () => {
    const limiter = new SlidingWindowLimiter(2, 60_000);
    expect(limiter.take('a', 0).allowed).toBe(true);
    expect(limiter.take('a', 10_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(limiter.take('b', 10_000).allowed).toBe(true);
    expect(limiter.take('a', 59_999)).toMatchObject({ allowed: false, resetSeconds: 1 });
    expect(limiter.take('a', 60_000).allowed).toBe(true);
  });

  it('counts the most requests a key offered in one window, refused ones included', () => {
    const limiter = new SlidingWindowLimiter(2, 60_000);
    for (const at of [0, 1_000, 2_000, 3_000]) limiter.take('a', at);
    // Two let through, four offered within one window.
    expect(limiter.peakOffered).toBe(4);
    limiter.take('b', 4_000);
    for (const at of [70_000, 130_001]) limiter.take('a', at);
    expect(limiter.peakOffered).toBe(4);
  });
});
