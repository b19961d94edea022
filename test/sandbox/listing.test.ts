/** The sandbox's envelope listing: its query, its order and its cursor. */
import { describe, expect, it } from 'vitest';
import { encodeCursor, listPage, parseListQuery } from '../../src/sandbox/store/listing.js';
import type { EnvelopeRecord } from '../../src/sandbox/store/records.js';

const envelopes = Array.from({ length: 25 }, (_, i) => ({
  id: `env_${i}`,
  status: i % 5 === 0 ? 'voided' : 'sent',
  contract_id: `C-${i % 3}`,
  created_at: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
})) as unknown as EnvelopeRecord[];

const query = (text: string) => {
  const parsed = parseListQuery(new URLSearchParams(text));
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

describe('sandbox listing', () => {
  it('pages newest first and the cursor walks every envelope exactly once', () => {
    const seen: string[] = [];
    let cursor = '';
    for (let pages = 0; pages < 10; pages++) {
      const page = listPage(envelopes, query(`limit=7${cursor ? `&cursor=${cursor}` : ''}`))!;
      seen.push(...page.data.map((e) => e.id));
      if (!page.has_more) {
        expect(page.next_cursor).toBeNull();
        break;
      }
      cursor = page.next_cursor!;
    }
    expect(seen).toEqual(envelopes.map((e) => e.id).reverse());
  });

  it('envelopes created while paging do not shift the pages', () => {
    const first = listPage(envelopes, query('limit=10'))!;
    const grown = [...envelopes, { ...envelopes[0]!, id: 'env_new', created_at: '2026-12-01T00:00:00.000Z' }];
    const second = listPage(grown, query(`limit=10&cursor=${first.next_cursor}`))!;
    expect(second.data[0]!.id).toBe('env_14');
  });

  it('filters by status (repeated or comma-separated), contract and creation time', () => {
    expect(listPage(envelopes, query('status=voided&limit=100'))!.data.map((e) => e.id)).toEqual([
      'env_20',
      'env_15',
      'env_10',
      'env_5',
      'env_0',
    ]);
    expect(listPage(envelopes, query('status=voided,sent&limit=100'))!.data).toHaveLength(25);
    expect(
      listPage(envelopes, query('status=voided&status=sent&contract_id=C-1&limit=100'))!.data.every(
        (e) => e.contract_id === 'C-1',
      ),
    ).toBe(true);
    expect(listPage(envelopes, query('created_after=2026-11-01T00:20:00Z'))!.data.map((e) => e.id)).toEqual([
      'env_24',
      'env_23',
      'env_22',
      'env_21',
      'env_20',
    ]);
  });

  it.each([
    ['status=shredded', /status "shredded" is not a state/],
    ['limit=0', /limit must be a whole number from 1 to 100/],
    ['limit=101', /limit/],
    ['limit=abc', /limit/],
    ['created_after=soon', /created_after/],
    ['cursor=bm9wZQ', /cursor is not one this service issued/],
  ])('%s is a 400 with a reason', (text, message) => {
    expect(parseListQuery(new URLSearchParams(text))).toMatch(message);
  });

  it('a well-formed cursor naming no envelope is refused, not an empty page', () => {
    expect(listPage(envelopes, query(`cursor=${encodeCursor('env_gone')}`))).toBeUndefined();
  });
});
