/**
 * Webhook deliveries as the service reports them (`GET /api/v1/webhook-deliveries`)
 * and resends (`POST /api/v1/events/{id}/resend`). The published interface shows
 * neither (docs/service.md, Endpoints): the shapes are sign-cli's and its sandbox's
 * assumption (docs/assumptions.md).
 */
import { isRecord } from '../envelope/records.js';

/**
 * The state of a delivery: `pending` (no attempt yet), `retrying` (an attempt
 * failed, another is scheduled), `delivered` (a 2xx), `failed` (every retry
 * failed; no more attempts).
 */
export const DELIVERY_STATES = ['pending', 'retrying', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The states `webhooks deliveries --failed` asks for: failed for good, and failing still (retrying). */
export const FAILING_STATES: readonly DeliveryState[] = ['failed', 'retrying'];

/** One POST of a delivery and how it ended. */
export interface WebhookDeliveryAttempt {
  /** 1 for the first attempt; the sandbox makes at most 9 (8 retries). */
  attempt: number;
  /** When it started (ISO 8601, the service's clock). */
  started_at: string;
  /** The receiver's HTTP status; null when there was none (connection refused, timeout). */
  status: number | null;
  duration_ms: number;
  /** Why it failed (`HTTP 500`, `ECONNREFUSED: …`); null when it succeeded. */
  error: string | null;
}

/** One delivery of one event to one URL, with every attempt; a resend is a delivery of its own. */
export interface WebhookDelivery {
  object?: 'webhook_delivery';
  /** The delivery's id (`dlv_…`). */
  id: string;
  /** The event it carries, sent as `webhook-id`: the same for the first delivery and every resend. */
  event_id: string;
  event_type?: string;
  envelope_id?: string;
  url?: string;
  status?: DeliveryState | (string & {});
  /** True when made by a resend. */
  resend?: boolean;
  attempt_count?: number;
  attempts?: WebhookDeliveryAttempt[];
  last_status?: number | null;
  last_error?: string | null;
  next_attempt_at?: string | null;
  created_at?: string | null;
  finished_at?: string | null;
  [field: string]: unknown;
}

/** Which deliveries a listing returns. */
export interface DeliveryFilter {
  envelopeId?: string;
  /** Any of these states. */
  status?: readonly string[];
}

/** One page of deliveries, newest first. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  hasMore: boolean;
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A delivery as the service shows it: an object with a string `id` and `event_id`, and `attempts` a list when present. */
export function isWebhookDelivery(value: unknown): value is WebhookDelivery {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    value.id !== '' &&
    typeof value.event_id === 'string' &&
    value.event_id !== '' &&
    (value.attempts === undefined || (Array.isArray(value.attempts) && value.attempts.every(isRecord)))
  );
}

/** Longest `to` URL a resend takes (as for any string field, a sanity cap). */
const MAX_URL_LENGTH = 2048;

/**
 * Why `value` cannot be where a webhook is sent (an absolute http or https URL
 * with a host, as an envelope's `webhook_url`), or undefined when it can.
 */
export function webhookUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be an absolute http(s) URL, such as https://example.com/hooks';
  if (value.length > MAX_URL_LENGTH)
    return `must be at most ${MAX_URL_LENGTH} characters, got ${value.length}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an absolute http(s) URL, such as https://example.com/hooks, got ${JSON.stringify(value.slice(0, 60))}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must use http or https, got ${JSON.stringify(url.protocol.slice(0, 20))}`;
  if (url.hostname === '') return 'must name a host';
  return undefined;
}
