/**
 * The shared rate budget against a real redis-server: several budgets (as
 * several processes would hold) share one sliding window, one spacing and one
 * pause; a lost store is a warning and local pacing at the runner's share.
 * The clock records the waits Redis hands out instead of sleeping them, so a
 * 60-second window is checked without waiting a minute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@redis/client';
import type { Clock } from '../../src/core/clock.js';
import { InterruptedError } from '../../src/core/errors.js';
import { RatePacer } from '../../src/core/pacing/pacing.js';
import {
  BUDGET_WINDOW_MS,
  RedisRateBudget,
  budgetName,
  openRedisBudget,
} from '../../src/core/pacing/shared-budget.js';
import { NO_REDIS, startRedis, type RedisProcess } from '../helpers/redis.js';

const KEY = 'sk_test_sharedbudget0123456789abcdef';

/** Real time; a sleep is recorded and returns at once (after `onSleep`), or really waits with `real`. */
class RecordingClock implements Clock {
  readonly sleeps: number[] = [];
  onSleep: ((ms: number) => Promise<void>) | undefined;
  real = false;
  now(): number {
    return Date.now();
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    await this.onSleep?.(ms);
    if (this.real) await new Promise((resolve) => setTimeout(resolve, ms));
    if (signal?.aborted) throw new InterruptedError();
  }
}

describe.skipIf(NO_REDIS)('shared rate budget (real redis-server)', () => {
  let redis: RedisProcess;
  const open: RedisRateBudget[] = [];
  let run = 0;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(open.map((b) => b.close()));
    await redis?.stop();
  });

  /** `n` budgets for one key, as `n` runners would hold; each test gets its own base URL, hence its own budget. */
  async function runners(
    n: number,
    options: { url?: string; baseUrl?: string; rejoinMs?: number; activeMs?: number } = {},
  ) {
    const baseUrl = options.baseUrl ?? `https://esign.example.com/run-${++run}`;
    const warnings: string[] = [];
    const notes: string[] = [];
    const clocks: RecordingClock[] = [];
    const budgets: RedisRateBudget[] = [];
    for (let i = 0; i < n; i++) {
      const clock = new RecordingClock();
      const budget = await openRedisBudget({
        url: options.url ?? redis.url,
        baseUrl,
        apiKey: KEY,
        clock,
        onWarning: (m) => warnings.push(m),
        onNote: (m) => notes.push(m),
        rejoinMs: options.rejoinMs ?? 60_000,
        ...(options.activeMs === undefined ? {} : { activeMs: options.activeMs }),
      });
      open.push(budget);
      clocks.push(clock);
      budgets.push(budget);
    }
    return { budgets, clocks, warnings, notes };
  }

  it('is named by a hash of the base URL and key, never the key, in Redis too', async () => {
    const name = budgetName('https://esign.example.com', KEY);
    expect(name).toMatch(/^sign-cli:rate:\{[0-9a-f]{32}\}$/);
    expect(name).not.toContain(KEY.slice(8));
    expect(budgetName('https://other.example.com', KEY)).not.toBe(name);
    expect(budgetName('https://esign.example.com', `${KEY}x`)).not.toBe(name);

    const { budgets } = await runners(1);
    expect(await budgets[0]!.take({ limit: 10, intervalMs: 1 })).toBe(true);
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const keys = await raw.sendCommand<string[]>(['KEYS', '*']);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).toMatch(/^sign-cli:rate:\{[0-9a-f]{32}\}:(slots|pause|runners)$/);
        expect(key).not.toContain(KEY.slice(8));
      }
    } finally {
      await raw.close();
    }
  });

  it('gives runners together at most `limit` slots in any 60-second window (the sandbox rule)', async () => {
    const { budgets, clocks } = await runners(3);
    const [a, b, c] = budgets as [RedisRateBudget, RedisRateBudget, RedisRateBudget];
    for (let i = 0; i < 3; i++) expect(await a.take({ limit: 5, intervalMs: 1 })).toBe(true);
    for (let i = 0; i < 2; i++) expect(await b.take({ limit: 5, intervalMs: 1 })).toBe(true);
    // The window is full: the sixth slot, whoever asks, comes a window after the first.
    expect(await c.take({ limit: 5, intervalMs: 1 })).toBe(true);
    const wait = clocks[2]!.sleeps.at(-1)!;
    expect(wait).toBeGreaterThan(BUDGET_WINDOW_MS - 1_000);
    expect(wait).toBeLessThanOrEqual(BUDGET_WINDOW_MS + 10);
    expect(a.runners).toBeGreaterThanOrEqual(1);
    expect(c.runners).toBe(3);
  });

  it('spaces slots evenly across runners, whoever takes them', async () => {
    const { budgets, clocks } = await runners(2);
    const interval = 5_000;
    // Alternate runners: each new slot is one interval after the last, not after the runner's own last.
    for (let i = 0; i < 4; i++)
      expect(await budgets[i % 2]!.take({ limit: 100, intervalMs: interval })).toBe(true);
    const waits = [...clocks[0]!.sleeps, ...clocks[1]!.sleeps].sort((x, y) => x - y);
    // The first slot is now (no sleep); then about 1, 2 and 3 intervals ahead.
    expect(waits).toHaveLength(3);
    waits.forEach((wait, i) => {
      expect(wait).toBeGreaterThan((i + 1) * interval - 500);
      expect(wait).toBeLessThanOrEqual((i + 1) * interval + 5);
    });
  });

  it('a 429 seen by one runner pauses the others until its Retry-After, even one already holding a slot', async () => {
    // Real waits here: a runner checks the pause again when its slot comes.
    const { budgets, clocks } = await runners(2);
    const [a, b] = budgets as [RedisRateBudget, RedisRateBudget];
    clocks[1]!.real = true;
    const pausedAt = Date.now();
    await a.pause(1_500);
    expect(await b.take({ limit: 100, intervalMs: 1 })).toBe(true);
    expect(Date.now() - pausedAt).toBeGreaterThanOrEqual(1_450);
    expect(clocks[1]!.sleeps[0]).toBeGreaterThan(1_000);

    // d holds a slot 1 s ahead; while it waits, c sees a 429 with Retry-After 2 s.
    const {
      budgets: [c, d],
      clocks: [, clockD],
    } = await runners(2);
    clockD!.real = true;
    expect(await d!.take({ limit: 100, intervalMs: 1_000 })).toBe(true);
    let pausedUntil = 0;
    clockD!.onSleep = async () => {
      if (pausedUntil !== 0) return;
      pausedUntil = Date.now() + 2_000;
      await c!.pause(2_000);
    };
    expect(await d!.take({ limit: 100, intervalMs: 1_000 })).toBe(true);
    // d woke at its slot, found the pause, gave the slot back and took one after the pause.
    expect(Date.now()).toBeGreaterThanOrEqual(pausedUntil - 50);
    expect(clockD!.sleeps).toHaveLength(2);
    expect((await d!.peek()).slotsInWindow).toBe(2);
  });

  it('an interrupted wait gives its slot back', async () => {
    const { budgets, clocks } = await runners(1);
    const budget = budgets[0]!;
    expect(await budget.take({ limit: 100, intervalMs: 10_000 })).toBe(true);
    const controller = new AbortController();
    clocks[0]!.onSleep = async () => controller.abort();
    await expect(budget.take({ limit: 100, intervalMs: 10_000 }, controller.signal)).rejects.toBeInstanceOf(
      InterruptedError,
    );
    await expect.poll(async () => (await budget.peek()).slotsInWindow).toBe(1);
  });

  it('an unreachable store is one warning; the pacer paces locally at the full rate', async () => {
    const { budgets, warnings } = await runners(1, { url: 'redis://127.0.0.1:1' });
    const budget = budgets[0]!;
    expect(budget.active).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^rate store redis:\/\/127\.0\.0\.1:1 unreachable \(.*ECONNREFUSED.*\); pacing locally at the full rate$/,
    );
    expect(await budget.take({ limit: 100, intervalMs: 1 })).toBe(false);
    const pacer = new RatePacer({ ratePerMinute: 600, shared: budget });
    const base = pacer.baseIntervalMs;
    await pacer.acquire();
    expect(pacer.baseIntervalMs).toBe(base);
    expect(warnings).toHaveLength(1);
  });

  it('a store that stops answering (a hung host) is lost after the timeout, not waited on', async () => {
    const own = await startRedis();
    try {
      const warnings: string[] = [];
      const budget = await openRedisBudget({
        url: own.url,
        baseUrl: 'https://esign.example.com/hung',
        apiKey: KEY,
        timeoutMs: 300,
        onWarning: (m) => warnings.push(m),
      });
      open.push(budget);
      expect(await budget.take({ limit: 100, intervalMs: 1 })).toBe(true);
      own.child.kill('SIGSTOP');
      const started = Date.now();
      expect(await budget.take({ limit: 100, intervalMs: 1 })).toBe(false);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(warnings).toEqual([
        expect.stringMatching(
          /^rate store redis:\/\/127\.0\.0\.1:\d+ lost \(no answer within 300 ms\); pacing locally at the full rate$/,
        ),
      ]);
      // Closing a budget whose store hangs is bounded too: the run exits.
      own.child.kill('SIGCONT');
      const other = await openRedisBudget({
        url: own.url,
        baseUrl: 'https://esign.example.com/hung',
        apiKey: KEY,
        timeoutMs: 300,
      });
      expect(await other.take({ limit: 100, intervalMs: 1 })).toBe(true);
      own.child.kill('SIGSTOP');
      const closing = Date.now();
      await other.close();
      expect(Date.now() - closing).toBeLessThan(3_000);

      // A host that takes the connection but never answers the handshake: unreachable, not a hang.
      const late: string[] = [];
      const stuck = await openRedisBudget({
        url: own.url,
        baseUrl: 'https://esign.example.com/hung',
        apiKey: KEY,
        timeoutMs: 300,
        onWarning: (m) => late.push(m),
      });
      open.push(stuck);
      expect(stuck.active).toBe(false);
      expect(late).toEqual([
        expect.stringMatching(/ unreachable \(no answer within 300 ms\); pacing locally at the full rate$/),
      ]);
      own.child.kill('SIGCONT');
    } finally {
      own.child.kill('SIGCONT');
      await own.stop('SIGKILL');
    }
  });

  it('a store lost mid-run is one warning per runner; each then paces locally at its share of the rate', async () => {
    const own = await startRedis();
    try {
      const { budgets, warnings } = await runners(3, { url: own.url });
      // Twice round: by the second, every runner has seen the other two.
      for (let round = 0; round < 2; round++)
        for (const budget of budgets) expect(await budget.take({ limit: 600, intervalMs: 1 })).toBe(true);
      const pacer = new RatePacer({ ratePerMinute: 600, shared: budgets[2] });
      const alone = pacer.baseIntervalMs;
      await pacer.acquire();
      await own.stop('SIGKILL');
      // Requests keep going: local slots, at a third of the rate, as three runners shared the budget.
      await pacer.acquire();
      await pacer.acquire();
      expect(budgets[2]!.active).toBe(false);
      expect(pacer.baseIntervalMs).toBeCloseTo(alone * 3, 5);
      await expect.poll(() => warnings.length).toBe(3);
      for (const warning of warnings)
        expect(warning).toMatch(
          /^rate store redis:\/\/127\.0\.0\.1:\d+ lost \(.+\); pacing locally at 1\/3 of the rate, as 3 runners were sharing it$/,
        );
      // While it is down: no second warning, no waiting on Redis.
      expect(await budgets[0]!.take({ limit: 600, intervalMs: 1 })).toBe(false);
      expect(warnings).toHaveLength(3);
    } finally {
      await own.stop('SIGKILL');
    }
  });
  it('rejoins the store in the background after a loss; the pacer takes shared slots again', async () => {
    const { budgets, warnings, notes } = await runners(1, { rejoinMs: 100 });
    const budget = budgets[0]!;
    const pacer = new RatePacer({ ratePerMinute: 600, shared: budget });
    await pacer.acquire();
    // Every client connection dropped by the server (a failover, a proxy restart).
    const raw = createClient({ url: redis.url });
    await raw.connect();
    await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    await raw.close();
    await expect.poll(() => budget.active).toBe(false);
    await pacer.acquire();
    await expect.poll(() => budget.active, { timeout: 5_000 }).toBe(true);
    await pacer.acquire();
    expect(pacer.baseIntervalMs).toBeCloseTo(101, 5);
    expect(warnings).toEqual([expect.stringMatching(/ lost \(.+\); pacing locally at the full rate$/)]);
    expect(notes).toEqual([
      expect.stringMatching(/^rate store redis:\/\/127\.0\.0\.1:\d+ back: sharing the budget again$/),
    ]);
  });

  it('keeps the share of a runner gone silent (it may be pacing alone without the store); a runner that leaves gets none', async () => {
    const { budgets, clocks } = await runners(3, { activeMs: 300 });
    const [a, b, c] = budgets as [RedisRateBudget, RedisRateBudget, RedisRateBudget];
    for (const budget of budgets) expect(await budget.take({ limit: 600, intervalMs: 50 })).toBe(true);
    // Silent for longer than max(activeMs, 3 spacings per runner) = 450 ms.
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Only a is still taking slots: b and c keep their shares, so a's slots come 3 intervals (150 ms) apart, not 50.
    // Both asked at once, in one pipeline: the store's clock barely moves between the two answers, however
    // slowly this machine runs, so the second wait is the spacing itself, not the spacing less a delay here.
    const before = clocks[0]!.sleeps.length;
    const slow = { limit: 600, intervalMs: 50 };
    expect(await Promise.all([a.take(slow), a.take(slow)])).toEqual([true, true]);
    expect(clocks[0]!.sleeps.slice(before)).toEqual([expect.any(Number)]);
    expect(clocks[0]!.sleeps.at(-1)!).toBeGreaterThan(120);
    // b and c finish cleanly: they leave, and a has the whole budget again.
    await b.close();
    await c.close();
    expect((await a.peek()).runners).toBe(1);
  });
});
