/**
 * How SignClient reads the service's 2xx answers: a created envelope (its id
 * in the body or a Location header; whether it was a replay), a page of a
 * listing (the sandbox's `{data, has_more, next_cursor}` or a bare array), an
 * audit trail, a signed copy. Apart from the class because each reading is a pure function
 * of the answer: what is not what was asked for becomes an error
 * (answer-errors.ts) here, and the class keeps to what it sends.
 */
import { unexpectedAnswer, type AnswerContext } from './answer-errors.js';
import type { AuditEntry } from '../envelope/audit.js';
import type { AuditTrail, CreateEnvelopeResult, EnvelopePage } from './client-types.js';
import { isWebhookDelivery, type DeliveryPage } from '../webhooks/deliveries.js';
import type { Envelope } from '../envelope/schema.js';
import { isRecord } from '../envelope/records.js';
import type { ApiResponse } from './wire.js';

/** The answer to createEnvelope, sent under `idempotencyKey`, as the result the client returns. */
export function createdEnvelope<T extends Envelope = Envelope>(
  answers: AnswerContext,
  response: ApiResponse<unknown>,
  idempotencyKey: string,
): CreateEnvelopeResult<T> {
  // The published interface does not show the response (docs/service.md, Envelope). A created
  // envelope is a JSON object with an id, or a Location header naming one; any other 2xx (an
  // HTML page, an empty body) is not a success.
  const data = response.data;
  const location = response.headers.location?.split(/[?#]/, 1)[0]!.split('/').filter(Boolean).at(-1);
  const body = isRecord(data) ? data : undefined;
  const id =
    body && (typeof body.id === 'string' || typeof body.id === 'number') && String(body.id) !== ''
      ? body.id
      : undefined;
  if (id === undefined && !location) {
    throw unexpectedAnswer(
      answers,
      'createEnvelope',
      response,
      'an envelope (a JSON object with an id, or a Location header)',
      idempotencyKey,
    );
  }
  const created = body ? (id === undefined ? { ...body, id: location } : body) : { id: location };
  const replayed = response.headers['idempotent-replayed'] === 'true';
  return {
    envelope: created as T,
    status: response.status,
    idempotencyKey,
    replayed,
    existed: replayed && !response.earlierAttemptMayHaveActed,
    attempts: response.attempts,
  };
}

/** One page of envelopes from the answer to listEnvelopes. */
export function envelopePage<T extends Envelope = Envelope>(
  answers: AnswerContext,
  response: ApiResponse<unknown>,
): EnvelopePage<T> {
  const data = response.data;
  // The sandbox's shape ({object: "list", data, has_more, next_cursor}), or a bare array (one page, nothing more).
  if (Array.isArray(data) && data.every(isRecord))
    return { envelopes: data as T[], hasMore: false, nextCursor: null };
  if (!isRecord(data) || !Array.isArray(data.data) || !data.data.every(isRecord)) {
    throw unexpectedAnswer(
      answers,
      'listEnvelopes',
      response,
      'a list of envelopes (a JSON object with data)',
    );
  }
  const cursor = typeof data.next_cursor === 'string' && data.next_cursor !== '' ? data.next_cursor : null;
  const hasMore = data.has_more === true;
  // More pages with no way to ask for them would be an endless loop or a silent cut: neither.
  if (hasMore && cursor === null)
    throw unexpectedAnswer(answers, 'listEnvelopes', response, 'a next_cursor with has_more');
  return { envelopes: data.data as T[], hasMore, nextCursor: cursor };
}

/** One page of webhook deliveries from the answer to listDeliveries. */
export function deliveryPage(answers: AnswerContext, response: ApiResponse<unknown>): DeliveryPage {
  const data = response.data;
  if (Array.isArray(data) && data.every(isWebhookDelivery))
    return { deliveries: data, hasMore: false, nextCursor: null };
  if (!isRecord(data) || !Array.isArray(data.data) || !data.data.every(isWebhookDelivery)) {
    throw unexpectedAnswer(
      answers,
      'listDeliveries',
      response,
      'a list of webhook deliveries (a JSON object with data, each with an id and an event_id)',
    );
  }
  const cursor = typeof data.next_cursor === 'string' && data.next_cursor !== '' ? data.next_cursor : null;
  const hasMore = data.has_more === true;
  if (hasMore && cursor === null)
    throw unexpectedAnswer(answers, 'listDeliveries', response, 'a next_cursor with has_more');
  return { deliveries: data.data, hasMore, nextCursor: cursor };
}

/** The audit trail of envelope `id` from the answer to getAuditTrail. */
export function auditTrail(answers: AnswerContext, id: string, response: ApiResponse<unknown>): AuditTrail {
  const data = response.data;
  // Accept a bare list of entries as well as the sandbox's wrapped form; anything else is not a trail.
  // A bare list carries no head hash of its own: its last entry's would vouch for itself.
  if (Array.isArray(data)) return { envelope_id: id, head_hash: null, entries: data as AuditEntry[] };
  if (!isRecord(data) || !Array.isArray(data.entries))
    throw unexpectedAnswer(answers, 'getAuditTrail', response, 'an audit trail (a JSON object with entries)');
  // Fields the service adds (hash_algorithm, …) are kept: `audit --json` shows the trail as served.
  const body = data as Partial<AuditTrail> & Record<string, unknown>;
  return {
    ...body,
    envelope_id: body.envelope_id ?? id,
    head_hash: typeof body.head_hash === 'string' ? body.head_hash : null,
    entries: body.entries!,
  };
}

/** The signed copy from the answer to downloadSignedCopy, when it is a PDF. */
export function signedCopy(answers: AnswerContext, response: ApiResponse<Buffer>): Buffer {
  // A PDF starts with its header (ISO 32000: "%PDF-" within the first 1024 bytes) and ends with %%EOF.
  const pdf = response.data;
  const header = pdf.subarray(0, 1024).indexOf('%PDF-');
  if (header < 0 || !pdf.subarray(-1024).includes('%%EOF')) {
    throw unexpectedAnswer(
      answers,
      'downloadSignedCopy',
      { ...response, data: pdf.subarray(0, 200).toString('utf8') },
      'a PDF',
    );
  }
  return pdf;
}
