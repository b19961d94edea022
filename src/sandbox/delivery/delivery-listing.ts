/**
 * `GET /api/v1/webhook-deliveries` in the sandbox: every delivery with its
 * attempts, newest first, filtered by envelope and state, one page at a time
 * with an opaque cursor (docs/assumptions.md; the published interface shows no
 * such listing: docs/service.md, Endpoints).
 * The cursor names the last delivery of a page, so deliveries made while a
 * client pages through never shift or repeat what it sees.
 */
import { DELIVERY_STATES, type DeliveryState, type WebhookDelivery } from '../../core/webhooks/deliveries.js';
import { encodeCursor, parsePaging } from '../store/listing.js';
import { deliveryEventId, type DeliveryRecord } from '../store/records.js';

export interface DeliveryQuery {
  envelopeId: string | undefined;
  states: DeliveryState[];
  limit: number;
  /** The id of the last delivery of the previous page. */
  after: string | undefined;
}

/** The state a client sees: a pending delivery with a failed attempt behind it is `retrying`. */
export function deliveryState(delivery: DeliveryRecord): DeliveryState {
  if (delivery.status === 'pending') return delivery.attempts > 0 ? 'retrying' : 'pending';
  return delivery.status;
}

/** A delivery as the API shows it: the body and the scheduling bookkeeping left out. */
export function publicDelivery(delivery: DeliveryRecord): WebhookDelivery {
  return {
    object: 'webhook_delivery',
    id: delivery.id,
    event_id: deliveryEventId(delivery),
    event_type: delivery.event_type,
    envelope_id: delivery.envelope_id,
    url: delivery.url,
    status: deliveryState(delivery),
    resend: delivery.resend === true,
    attempt_count: delivery.attempts,
    // A copy: a stored answer (the resend's Idempotency-Key record) must not change with later attempts.
    attempts: (delivery.attempt_log ?? []).map((attempt) => ({ ...attempt })),
    last_status: delivery.last_status,
    last_error: delivery.last_error,
    next_attempt_at: delivery.status === 'pending' ? new Date(delivery.next_at).toISOString() : null,
    created_at: delivery.created_at ?? null,
    finished_at: delivery.finished_at,
  };
}

/** The query string of a listing, checked; a message for a 400 when it is not usable. */
export function parseDeliveryQuery(params: URLSearchParams): DeliveryQuery | string {
  const paging = parsePaging(params, DELIVERY_STATES, 'a delivery state');
  if (typeof paging === 'string') return paging;
  const envelopeId = params.get('envelope_id');
  return { envelopeId: envelopeId === null || envelopeId === '' ? undefined : envelopeId, ...paging };
}

export interface DeliveryListPage {
  object: 'list';
  data: WebhookDelivery[];
  has_more: boolean;
  next_cursor: string | null;
}

/** One page of deliveries, newest (highest seq) first; undefined when the cursor names no delivery. */
export function deliveryPage(
  deliveries: Iterable<DeliveryRecord>,
  query: DeliveryQuery,
): DeliveryListPage | undefined {
  const all: DeliveryRecord[] = [];
  for (const delivery of deliveries)
    if (query.envelopeId === undefined || delivery.envelope_id === query.envelopeId) all.push(delivery);
  all.sort((a, b) => b.seq - a.seq);
  let index = 0;
  if (query.after !== undefined) {
    const at = all.findIndex((d) => d.id === query.after);
    if (at < 0) return undefined;
    index = at + 1;
  }
  const data: DeliveryRecord[] = [];
  for (; index < all.length; index++) {
    const delivery = all[index]!;
    if (query.states.length > 0 && !query.states.includes(deliveryState(delivery))) continue;
    if (data.length === query.limit) break;
    data.push(delivery);
  }
  const more = index < all.length;
  return {
    object: 'list',
    data: data.map(publicDelivery),
    has_more: more,
    next_cursor: more ? encodeCursor(data.at(-1)!.id) : null,
  };
}
