/**
 * The JSON API's shapes (GET /api/deliveries, GET /api/deliveries/<id>, the replay's answer):
 * snake_case, times in ISO 8601 UTC. Secrets are masked by the server on the whole text.
 */
import type { Attempt, DeliveryRecord, DeliverySummary } from './records.js';
import type { ReplayResult } from './replay.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export const attemptJson = (attempt: Attempt) => ({
  kind: attempt.kind,
  at: iso(attempt.at),
  url: attempt.url,
  status: attempt.status,
  duration_ms: attempt.durationMs,
  answer: attempt.answer,
  error: attempt.error,
});

export const summaryJson = (delivery: DeliverySummary) => ({
  id: delivery.id,
  received_at: iso(delivery.receivedAt),
  method: delivery.method,
  path: delivery.path,
  type: delivery.type,
  event_id: delivery.eventId,
  envelope_id: delivery.envelopeId,
  verified: delivery.verified,
  reason: delivery.reason,
  code: delivery.code,
  duplicate: delivery.delivery > 1,
  delivery: delivery.delivery,
  filtered: delivery.filtered,
  answered: delivery.answered,
  forwards: delivery.attempts.filter((a) => a.kind === 'forward').map(attemptJson),
});

/** The signature's verdict: which secret (masked) and how old the signed timestamp was when it came. */
export function signatureOf(delivery: DeliverySummary, scheme: string, toleranceSeconds: number) {
  return {
    scheme,
    verified: delivery.secret !== null,
    secret: delivery.secret,
    signed_at: delivery.signedAt === null ? null : iso(delivery.signedAt * 1000),
    age_seconds:
      delivery.signedAt === null ? null : Math.round(delivery.receivedAt / 1000 - delivery.signedAt),
    tolerance_seconds: toleranceSeconds,
  };
}

/** The body as text when it is UTF-8, else also its bytes in base64 (the text then holds U+FFFD for what is not). */
export function bodyJson(body: Buffer) {
  const text = body.toString('utf8');
  const utf8 = Buffer.byteLength(text) === body.length && Buffer.from(text, 'utf8').equals(body);
  return { body: text, body_bytes: body.length, ...(utf8 ? {} : { body_base64: body.toString('base64') }) };
}

export function detailJson(delivery: DeliveryRecord, scheme: string, toleranceSeconds: number) {
  const headers: { name: string; value: string }[] = [];
  for (let i = 0; i + 1 < delivery.rawHeaders.length; i += 2)
    headers.push({ name: delivery.rawHeaders[i]!, value: delivery.rawHeaders[i + 1]! });
  return {
    ...summaryJson(delivery),
    http_version: delivery.httpVersion,
    signature: signatureOf(delivery, scheme, toleranceSeconds),
    headers,
    ...bodyJson(delivery.body),
    replays: delivery.attempts.filter((a) => a.kind !== 'forward').map(attemptJson),
  };
}

export const replayJson = (id: number, result: ReplayResult) => ({
  delivery: id,
  edited: result.edited,
  signed: result.signed,
  attempts: result.attempts.map(attemptJson),
});
