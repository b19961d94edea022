/**
 * `--limit` and `--all` of the listing commands (`envelopes list`, `webhooks
 * deliveries`): how many to show, and whether there were more. One more than
 * shown is asked of the service, so "there are more" is said only when there are.
 */
import { UsageError } from '../../core/errors.js';
import { parseIntegerOption } from './values.js';

/** How many to show: undefined with --all; a usage error when both are given. */
export function listLimit(
  options: { all?: boolean; limit?: string },
  noun: string,
  defaultLimit: number,
): number | undefined {
  if (options.all && options.limit !== undefined) {
    throw new UsageError('--all and --limit do not go together', {
      hint: `drop --limit to list every ${noun}, or --all to list a few`,
    });
  }
  return options.all
    ? undefined
    : options.limit === undefined
      ? defaultLimit
      : parseIntegerOption('--limit', options.limit, 1);
}

/** What to ask the service for: one more than shown, to know whether there are more. */
export const askFor = (limit: number | undefined): { limit?: number } =>
  limit === undefined ? {} : { limit: limit + 1 };

/** The first `limit` items (all when undefined); `seen.more` says whether there was another. */
export async function* upTo<T>(
  items: AsyncIterable<T>,
  limit: number | undefined,
  seen: { more: boolean },
): AsyncGenerator<T, void, undefined> {
  let count = 0;
  for await (const item of items) {
    if (count === limit) {
      seen.more = true;
      return;
    }
    count++;
    yield item;
  }
}

/** The footer of a listing cut at `count`: within 80 columns (72 at 10,000), as every line of our own words. */
export const moreLine = (count: number): string =>
  `showing the newest ${count}; more with --limit <n>, or every one with --all`;
