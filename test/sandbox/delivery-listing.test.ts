/** The sandbox's delivery listing: its query, its order, its states and its cursor. */
import { describe, expect, it } from 'vitest';
import {
  deliveryPage,
  deliveryState,
  parseDeliveryQuery,
  publicDelivery,
} from '../../src/sandbox/delivery/delivery-listing.js';
import { encodeCursor } from '../../src/sandbox/store/listing.js';
import type { DeliveryRecord } from '../../src/sandbox/store/records.js';

const record = (seq: number, fields: Partial<DeliveryRecord> = {}): DeliveryRecord => ({
  id: `dlv_${seq}`,
  event_id: `evt_${seq}`,
  seq,
  envelope_id: seq % 2 === 0 ? 'env_even' : 'env_odd',
  event_type: 'signer.signed',
  url: 'http://127.0.0.1:4020/hooks',
  body: '{}',
  status: 'delivered',
  attempts: 1,
  attempt_log: [
    { attempt: 1, started_at: '2026-11-21T10:00:00.000Z', status: 200, duration_ms: 2, error: null },
  ],
  next_at: 0,
  last_status: 200,
  last_error: null,
  finished_at: '2026-11-21T10:00:00.000Z',
  created_at: '2026-11-21T10:00:00.000Z',
  ...fields,
});

const query = (text: string) => {
  const parsed = parseDeliveryQuery(new URLSearchParams(text));
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

describe('sandbox delivery listing', () => {
  it('pages newest first (by creation order, whatever the map order) and the cursor walks every delivery once', () => {
    const all = Array.from({ length: 25 }, (_, i) => record(i + 1)).reverse();
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 5; page++) {
      const result = deliveryPage(all, query(`limit=10${cursor ? `&cursor=${cursor}` : ''}`))!;
      seen.push(...result.data.map((d) => d.id));
      if (!result.has_more) break;
      cursor = result.next_cursor!;
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `dlv_${25 - i}`));
  });

  it('filters by envelope and by state; has_more only when another match follows', () => {
    const all = [
      record(1, { status: 'failed', attempts: 9 }),
      record(2, { status: 'pending', attempts: 0, attempt_log: [] }),
      record(3, { status: 'pending', attempts: 2 }),
      record(4),
    ];
    expect(deliveryPage(all, query('status=failed,retrying'))!.data.map((d) => [d.id, d.status])).toEqual([
      ['dlv_3', 'retrying'],
      ['dlv_1', 'failed'],
    ]);
    expect(deliveryPage(all, query('status=pending'))!.data.map((d) => d.id)).toEqual(['dlv_2']);
    expect(deliveryPage(all, query('envelope_id=env_even'))!.data.map((d) => d.id)).toEqual([
      'dlv_4',
      'dlv_2',
    ]);
    const first = deliveryPage(all, query('status=failed&status=retrying&limit=1'))!;
    expect(first).toMatchObject({ has_more: true });
    expect(
      deliveryPage(all, query(`status=failed,retrying&limit=1&cursor=${first.next_cursor}`)),
    ).toMatchObject({ has_more: false, next_cursor: null });
    expect(deliveryPage(all, query('status=delivered&limit=1'))).toMatchObject({ has_more: false });
  });

  it('refuses a bad query with a message, and a cursor naming no delivery', () => {
    expect(parseDeliveryQuery(new URLSearchParams('status=lost'))).toMatch(
      /not a delivery state; use pending, retrying, delivered, failed/,
    );
    expect(parseDeliveryQuery(new URLSearchParams('limit=101'))).toMatch(
      /limit must be a whole number from 1 to 100/,
    );
    expect(parseDeliveryQuery(new URLSearchParams('cursor=garbage'))).toMatch(
      /cursor is not one this service issued/,
    );
    expect(deliveryPage([record(1)], query(`cursor=${encodeCursor('dlv_404')}`))).toBeUndefined();
  });

  it('shows a delivery without its body; older records (no event_id, no attempt log) still show', () => {
    const shown = publicDelivery(record(7, { resend: true }));
    expect(shown).toMatchObject({
      object: 'webhook_delivery',
      id: 'dlv_7',
      event_id: 'evt_7',
      status: 'delivered',
      resend: true,
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(shown).not.toHaveProperty('body');
    const legacy = {
      ...record(8),
      id: 'evt_legacy',
      event_id: undefined,
      attempt_log: undefined,
      created_at: undefined,
      status: 'pending',
      attempts: 3,
      next_at: Date.parse('2026-11-21T11:00:00Z'),
    } as DeliveryRecord;
    expect(publicDelivery(legacy)).toMatchObject({
      id: 'evt_legacy',
      event_id: 'evt_legacy',
      status: 'retrying',
      attempts: [],
      created_at: null,
      next_attempt_at: '2026-11-21T11:00:00.000Z',
    });
    expect(deliveryState(legacy)).toBe('retrying');
  });

  it('the attempts shown are a copy: a stored answer does not change with later attempts', () => {
    const live = record(9);
    const shown = publicDelivery(live);
    live.attempt_log!.push({
      attempt: 2,
      started_at: '2026-11-21T10:00:05.000Z',
      status: 200,
      duration_ms: 1,
      error: null,
    });
    expect(shown.attempts).toHaveLength(1);
  });
});
