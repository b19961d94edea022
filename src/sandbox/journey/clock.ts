/**
 * The sandbox clock runs `speed` times real time, so a journey of days (or
 * webhook retries spread over 24 hours) can play out in seconds. It never
 * goes backwards across restarts: it resumes from the latest time on record.
 */
export interface SandboxClock {
  readonly speed: number;
  /** Sandbox time, ms since the epoch. */
  now(): number;
}

export function createSandboxClock(
  speed: number,
  resumeFrom = 0,
  realNow: () => number = Date.now,
): SandboxClock {
  if (!(Number.isFinite(speed) && speed > 0))
    throw new RangeError(`speed must be a positive number, got ${speed}`);
  const realStart = realNow();
  const base = Math.max(realStart, resumeFrom);
  return { speed, now: () => base + (realNow() - realStart) * speed };
}

/** Node timers cannot wait longer than this; longer waits are split. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs tasks at sandbox times, with real timers scaled by the clock's speed. */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly clock: SandboxClock) {}

  at(sandboxTime: number, task: () => void): void {
    if (this.closed) return;
    const realDelay = Math.max(0, (sandboxTime - this.clock.now()) / this.clock.speed);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.closed) return;
        if (realDelay > MAX_TIMER_MS) this.at(sandboxTime, task);
        else task();
      },
      Math.min(realDelay, MAX_TIMER_MS),
    );
    // Pending work must not keep a stopping process alive; state is on disk.
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
