import type { Clock } from '../../src/core/clock.js';
import { InterruptedError } from '../../src/core/errors.js';

/** A clock whose time moves only when the test says so; sleeps are timers it fires in order. */
export class FakeClock implements Clock {
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;
  readonly sleeps: number[] = [];

  constructor(public t = 1_000_000) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new InterruptedError());
      const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          this.timers = this.timers.filter((t) => t !== timer);
          reject(new InterruptedError());
        },
        { once: true },
      );
    });
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Fires timers in time order until none are left (or `limit` fired), letting promises settle between. */
  async runAll(limit = 1_000_000): Promise<void> {
    await settle();
    for (let fired = 0; this.timers.length > 0 && fired < limit; fired++) {
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.t = Math.max(this.t, next.at);
      next.resolve();
      await settle();
    }
  }
}

/** Lets pending promise callbacks run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A clock that never waits but still moves time forward by each sleep. */
export class InstantClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(public t = 1_000_000) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
  }
}
