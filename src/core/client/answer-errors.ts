/**
 * What an answer means when it is not what was asked for: an error status
 * (401, 403, 404, 409, 422, 429, 5xx) or a 2xx that is not the resource (an
 * HTML page from a wrong base URL). Each error carries a machine reason and
 * neutral advice; the CLI words its own, with its flags (src/cli/help/hints.ts).
 */
import type { ApiResponse } from './wire.js';
import type { Operation } from '../endpoints.js';
import { ApiError, AuthError, UnexpectedResponseError, parseErrorBody } from '../errors.js';
import { isRecord } from '../envelope/records.js';

/** How messages name an operation. */
export const OPERATION_LABEL: Record<Operation, string> = {
  createEnvelope: 'create envelope',
  getEnvelope: 'get envelope',
  downloadSignedCopy: 'download signed copy',
  getAuditTrail: 'get audit trail',
  listEnvelopes: 'list envelopes',
  voidEnvelope: 'void envelope',
  listApiKeys: 'list API keys',
  listDeliveries: 'list webhook deliveries',
  resendEvent: 'resend event',
};

/** What the errors of one client need to know about it. */
export interface AnswerContext {
  baseUrl: string;
  /** How the key is named in messages, always masked. */
  keyLabel: string;
  /** The key's scope for the operation, when the endpoint needs one. */
  scopeOf(operation: Operation): string | undefined;
  /** Server text with the API key masked. */
  scrub(text: string): string;
  /** True when the base URL ends in /api (paths then have it twice). */
  apiTwice: boolean;
}

/** A 2xx that is not what `operation` returns: what came back, and what to check. */
export function unexpectedAnswer(
  context: AnswerContext,
  operation: Operation,
  response: ApiResponse<unknown>,
  expected: string,
  idempotencyKey?: string,
): UnexpectedResponseError {
  const contentType = response.headers['content-type'];
  const data = typeof response.data === 'string' ? context.scrub(response.data) : response.data;
  const sample =
    data === undefined
      ? 'an empty body'
      : typeof data === 'string'
        ? textSample(data)
        : Array.isArray(data)
          ? 'a JSON array'
          : isRecord(data)
            ? `a JSON object without the expected fields (${Object.keys(data).slice(0, 5).join(', ') || 'empty'})`
            : `the JSON value ${JSON.stringify(data).slice(0, 40)}`;
  return notTheService(
    context,
    `${OPERATION_LABEL[operation]}: HTTP ${response.status} (${contentType ?? 'no content type'}) with ${sample}, not ${expected}`,
    response.status,
    contentType,
    idempotencyKey,
  );
}

/** Text an answer held, as errors quote it: one line, its first 60 characters, quoted. */
function textSample(text: string): string {
  return `${JSON.stringify(text.replace(/\s+/g, ' ').trim().slice(0, 60))}${text.length > 60 ? '…' : ''}`;
}

/** An answer that is not the signing service's: the base URL to check, and that sending again is safe when it was keyed. */
function notTheService(
  context: AnswerContext,
  message: string,
  status: number,
  contentType: string | undefined,
  idempotencyKey: string | undefined,
): UnexpectedResponseError {
  const key = idempotencyKey
    ? `; it was sent with Idempotency-Key ${idempotencyKey}: sending it again with that key cannot create a duplicate`
    : '';
  return new UnexpectedResponseError(message, status, contentType, {
    hint: `is ${context.baseUrl} the signing service? check the base URL${key}`,
    reason: 'not_the_service',
    reasonData: { baseUrl: context.baseUrl, idempotencyKey },
  });
}

/**
 * A 409 that says "a request with this Idempotency-Key is still being
 * processed" (the IETF draft's conflict): it carries a Retry-After, or says so
 * in its body. Any other 409 is about the resource and is final.
 */
export function isInFlightConflict(headers: Record<string, string | undefined>, raw: Buffer): boolean {
  if (headers['retry-after'] !== undefined) return true;
  return /idempot|in[ _-]?flight|in[ _-]?progress|concurren|being processed/i.test(
    raw.subarray(0, 2048).toString('utf8'),
  );
}

/** The error for a final non-2xx answer, after any retries. */
export function errorForStatus(
  context: AnswerContext,
  operation: Operation,
  status: number,
  text: string,
  headers: Record<string, string | undefined>,
  attempts: number,
  idempotencyKey: string | undefined,
): Error {
  const label = OPERATION_LABEL[operation];
  // A server may echo the key it was sent (whole, or without its prefix): errors never carry it.
  const info = parseErrorBody(context.scrub(text), headers['content-type']);
  const server = [info.code, info.message].filter(Boolean).join(': ');
  const said = server ? ` ${server}` : '';
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const key = context.keyLabel;
  const scope = context.scopeOf(operation);
  if (status === 401) {
    return new AuthError(`${label}: HTTP 401${said}; the service did not accept the API key ${key}`, status, {
      hint: 'use a valid API key; this one may be unknown, revoked or expired',
      reason: 'key_refused',
    });
  }
  if (status === 403) {
    return new AuthError(`${label}: HTTP 403${said}; the API key ${key} is not allowed to do this`, status, {
      hint: scope ? `use a key with the scope ${scope}` : 'use a key with the needed scope',
      reason: 'scope_missing',
      reasonData: { scope },
    });
  }
  // Not the service's JSON error but a page or text, from a server that is not the signing service
  // (a wrong base URL: a web server, a dev server). A gateway's 502/503/504 page is the service's
  // own proxy saying the service is down: those stay the service's failures.
  const trimmed = text.trim();
  const json = /json/i.test(headers['content-type'] ?? '') || /^[[{]/.test(trimmed);
  if (trimmed !== '' && !json && ![502, 503, 504].includes(status)) {
    const contentType = headers['content-type'];
    return notTheService(
      context,
      `${label}: HTTP ${status} (${contentType ?? 'no content type'}) with ${textSample(context.scrub(trimmed))}${tries}, not like the signing service, whose errors are JSON`,
      status,
      contentType,
      idempotencyKey,
    );
  }
  let hint: string | undefined;
  let reason:
    | 'not_found'
    | 'event_not_found'
    | 'not_voidable'
    | 'not_completed'
    | 'rate_limited'
    | 'server_failed'
    | 'maybe_resent'
    | undefined;
  if (status === 422 && /idempotency/i.test(`${info.code} ${info.message}`)) {
    hint = `the Idempotency-Key ${idempotencyKey ?? ''} was already used with another body; send the original body or use a new key`;
  } else if (status === 404) {
    reason = operation === 'resendEvent' && !context.apiTwice ? 'event_not_found' : 'not_found';
    hint = context.apiTwice
      ? `the base URL ${context.baseUrl} ends in /api, so the path has /api twice; drop the trailing /api if the service does not expect it`
      : operation === 'createEnvelope' || operation === 'listApiKeys' || operation === 'listDeliveries'
        ? 'check the base URL and the endpoint path'
        : operation === 'resendEvent'
          ? 'check the event id (only events sent to a webhook_url can be resent), the base URL and the endpoint path'
          : 'check the id, the base URL and the endpoint path';
  } else if (status === 409 && operation === 'voidEnvelope') {
    reason = 'not_voidable';
    hint = 'only an envelope still under way can be voided; check its state';
  } else if (status === 409 && operation === 'downloadSignedCopy') {
    reason = 'not_completed';
    hint = 'the envelope is not completed yet; wait until it is';
  } else if (status === 429) {
    reason = 'rate_limited';
    hint = 'the rate limit was still exceeded after retries; lower the request rate or try again later';
  } else if (status >= 500) {
    reason = operation === 'resendEvent' ? 'maybe_resent' : 'server_failed';
    hint =
      operation === 'resendEvent'
        ? `the service failed${tries}; the resend may or may not have been queued: the deliveries listing shows whether it was`
        : operation === 'voidEnvelope'
          ? `the service failed${tries}; voiding again is safe (it sends the same Idempotency-Key)`
          : idempotencyKey
            ? `the service failed${tries}; sending it again with Idempotency-Key ${idempotencyKey} cannot create a duplicate`
            : 'the service failed; try again later';
  }
  return new ApiError(`${label}: HTTP ${status}${said}${tries}`, status, info.code, info.message, {
    ...(hint ? { hint } : {}),
    ...(reason ? { reason, reasonData: { idempotencyKey, tries } } : {}),
    details: info.details,
  });
}
