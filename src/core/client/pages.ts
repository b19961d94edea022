/** Following a listing's cursor page by page, one page held at a time. */
import { OPERATION_LABEL } from './answer-errors.js';
import type { Operation } from '../endpoints.js';
import { UnexpectedResponseError } from '../errors.js';

/** The largest page the sandbox serves; a listing asks for no more. */
export const MAX_PAGE_SIZE = 100;

/**
 * Follows a cursor page by page, yielding items; only one page is held at a
 * time, so any number lists in constant memory. Stops after `limit` items.
 */
export async function* follow<T>(
  operation: Operation,
  options: { limit?: number; pageSize?: number },
  fetchPage: (
    limit: number,
    cursor: string | undefined,
  ) => Promise<{ items: T[]; hasMore: boolean; nextCursor: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  let cursor: string | undefined;
  const seen = new Set<string>();
  while (left > 0) {
    const page = await fetchPage(Math.min(options.pageSize ?? MAX_PAGE_SIZE, left), cursor);
    for (const item of page.items.slice(0, left)) yield item;
    left -= page.items.length;
    if (!page.hasMore || page.nextCursor === null) return;
    // A service handing back a cursor it gave before would page forever.
    if (seen.has(page.nextCursor))
      throw new UnexpectedResponseError(
        `${OPERATION_LABEL[operation]}: the service returned the cursor ${page.nextCursor.slice(0, 40)} twice`,
        200,
        undefined,
        { hint: 'the listing is not advancing; report it to the service' },
      );
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}
