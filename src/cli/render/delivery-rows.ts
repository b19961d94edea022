/**
 * Webhook deliveries as table rows for `webhooks deliveries`, and the line
 * `webhooks resend` prints. Pure functions, tested without spawning: the
 * command passes the colours it wants.
 */
import type { WebhookDelivery, WebhookDeliveryAttempt } from '../../core/webhooks/deliveries.js';
import { webhookUrlProblem } from '../../core/webhooks/deliveries.js';
import { UsageError } from '../../core/errors.js';
import { cellText, type Column } from './cell.js';
import { formatTime } from './time.js';

/** Ids, type, state, result (an error included) and time are read by; only the URL gives way. */
export const DELIVERY_COLUMNS: readonly Column[] = [
  { head: 'EVENT', whole: true },
  { head: 'TYPE' },
  { head: 'ENVELOPE', whole: true },
  { head: 'STATE' },
  { head: 'ATTEMPTS' },
  { head: 'LAST RESULT' },
  { head: 'LAST ATTEMPT', whole: true },
  { head: 'URL', cut: true, min: 12 },
];

/** Colours for the state column; identity when colour is off. */
export interface Paint {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
}

const plain: Paint = { green: (t) => t, red: (t) => t, yellow: (t) => t };

/** Text from the service, on one line (escaping of control characters is Output's job). */
const text = cellText;

const lastAttempt = (delivery: WebhookDelivery): WebhookDeliveryAttempt | undefined =>
  Array.isArray(delivery.attempts) ? delivery.attempts.at(-1) : undefined;

/**
 * How the last attempt ended: the receiver's status when it answered 2xx, else
 * the error (`HTTP 500`, `ECONNREFUSED: …`); `-` before any attempt.
 */
export function lastResult(delivery: WebhookDelivery): string {
  const last = lastAttempt(delivery);
  const status = last ? last.status : delivery.last_status;
  const error = last ? last.error : delivery.last_error;
  if (error) return text(error);
  if (typeof status === 'number') return String(status);
  return '-';
}

/** The state, marked when the delivery is a resend; coloured by how it stands. */
export function stateCell(delivery: WebhookDelivery, paint: Paint = plain): string {
  const state = text(delivery.status) || 'unknown';
  const shown = delivery.resend === true ? `${state} (resend)` : state;
  if (state === 'delivered') return paint.green(shown);
  if (state === 'failed') return paint.red(shown);
  if (state === 'retrying') return paint.yellow(shown);
  return shown;
}

export function deliveryRow(delivery: WebhookDelivery, paint: Paint = plain): string[] {
  const attempts =
    typeof delivery.attempt_count === 'number'
      ? delivery.attempt_count
      : Array.isArray(delivery.attempts)
        ? delivery.attempts.length
        : 0;
  const last = lastAttempt(delivery);
  return [
    text(delivery.event_id),
    text(delivery.event_type),
    text(delivery.envelope_id),
    stateCell(delivery, paint),
    String(attempts),
    lastResult(delivery),
    last ? formatTime(last.started_at) || '-' : '-',
    text(delivery.url),
  ];
}

/** What `webhooks resend` prints: `resent evt_… to <url>: delivery dlv_…`. */
export function resendLine(eventId: string, delivery: WebhookDelivery): string {
  return `resent ${text(delivery.event_id || eventId)} to ${text(delivery.url) || 'its URL'}: delivery ${text(delivery.id)}`;
}

/** `--to`, checked before anything is sent: an absolute http(s) URL, else a usage error (exit 2). */
export function parseResendTarget(value: string): string {
  const problem = webhookUrlProblem(value);
  if (problem)
    throw new UsageError(`--to ${problem}`, {
      hint: 'e.g. --to http://127.0.0.1:4020/hooks (a `webhooks listen` on this machine)',
    });
  return value;
}
