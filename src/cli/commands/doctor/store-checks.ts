/**
 * `doctor`'s checks of the Redis stores, run only when one is configured: the shared rate
 * budget (`--rate-store`) and the shared create journal (`--journal-store`).
 */
import { showRateStoreUrl } from '../../../core/pacing/rate-store-url.js';
import type { CommandContext } from '../../context.js';
import { journalStore } from '../../config/journal-store.js';
import { describe, type Check } from './check.js';

/** When a rate store is configured: does it answer, and who shares the budget of this key? */
export async function rateStoreCheck(
  ctx: CommandContext,
  baseUrl: string,
  apiKey: string | undefined,
): Promise<Check | undefined> {
  let store;
  try {
    store = await ctx.rateStore();
  } catch (error) {
    return { check: 'rate store', status: 'fail', detail: describe(error) };
  }
  if (!store) return undefined;
  const where = `${showRateStoreUrl(store.url)} (from ${store.source})`;
  const { RedisRateBudget } = await import('../../../core/pacing/shared-budget.js');
  const budget = new RedisRateBudget({ url: store.url, baseUrl, apiKey: apiKey ?? '' });
  const started = ctx.io.clock.now();
  try {
    if (!(await budget.connect())) {
      return {
        check: 'rate store',
        status: 'fail',
        detail: `cannot reach ${where}: ${budget.failure}; runs would each pace alone at the full rate, so several at once would get 429s`,
      };
    }
    const peek = await budget.peek();
    const ms = ctx.io.clock.now() - started;
    const runners = `${peek.runners} run${peek.runners === 1 ? '' : 's'} sharing it now`;
    const slots = `${peek.slotsInWindow} request${peek.slotsInWindow === 1 ? '' : 's'}`;
    const paused = peek.pausedMs > 0 ? `; paused ${Math.ceil(peek.pausedMs / 1000)} s more after a 429` : '';
    return {
      check: 'rate store',
      status: 'ok',
      detail: `${where}: Redis ${peek.version ?? '(version unknown)'}, ${ms} ms; this key's budget: ${slots} in the last minute, ${runners}${paused}`,
    };
  } catch (error) {
    return {
      check: 'rate store',
      status: 'fail',
      detail: `${where} answered, but the budget script failed: ${(error as Error).message}`,
    };
  } finally {
    await budget.close();
  }
}

/**
 * When a journal store is configured: does it answer, and does it keep what it is told? A
 * Redis without its append-only file loses, when it restarts, entries runners were told were
 * written: their re-runs would send those inputs again.
 */
export async function journalStoreCheck(ctx: CommandContext): Promise<Check | undefined> {
  let store;
  try {
    store = await journalStore(ctx, undefined);
  } catch (error) {
    return { check: 'journal store', status: 'fail', detail: describe(error) };
  }
  if (!store) return undefined;
  const where = `${showRateStoreUrl(store.url)} (from ${store.source})`;
  const { journalStorePersistence } = await import('../../../core/journal/redis-journal-admin.js');
  const started = ctx.io.clock.now();
  try {
    const kept = await journalStorePersistence(store.url);
    const ms = ctx.io.clock.now() - started;
    const version = `Redis ${kept.version ?? '(version unknown)'}, ${ms} ms`;
    if (!kept.appendOnly)
      return {
        check: 'journal store',
        status: 'warn',
        detail: `${where}: ${version}; it does not persist (appendonly no): a restart loses journal entries, and runs after it could send those inputs again; set appendonly yes`,
      };
    return {
      check: 'journal store',
      status: 'ok',
      detail: `${where}: ${version}, append-only file on${kept.fsync ? ` (appendfsync ${kept.fsync})` : ''}`,
    };
  } catch (error) {
    return {
      check: 'journal store',
      status: 'fail',
      detail: `cannot reach ${where}: ${describe(error)}; envelopes create would stop before sending`,
    };
  }
}
