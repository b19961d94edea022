/**
 * What every API request goes through before its handler: the API key
 * (401/403 and last use), the per-key rate limit (429 with RateLimit
 * headers), and for keyed POSTs the Idempotency-Key rules; plus the realm
 * checks handlers share (another account's or environment's record does not
 * exist for a key).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canonicalJson } from '../../core/envelope/canonical-json.js';
import type { Scope } from '../../core/endpoints.js';
import { StorageError } from '../../core/errors.js';
import { isoDate } from '../store/days.js';
import { BodyTooLargeError, bearerToken, readBody, sendError, sendJson } from '../http.js';
import { keyRealm, sameRealm } from '../store/realm.js';
import type { RequestContext, SandboxServices } from './services.js';
import {
  idempotencyId,
  type DeliveryRecord,
  type EnvelopeRecord,
  type IdempotencyRecord,
  type StoredKey,
  type StoredResponse,
} from '../store/records.js';

/**
 * How long an Idempotency-Key is remembered unless `sandbox --idempotency-retention` says otherwise
 * (the published interface does not say: docs/service.md, Envelope; Stripe keeps 24 h).
 */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A key's last_used is written to disk at most this often; in memory it is always exact. */
const LAST_USED_PERSIST_MS = 60_000;

/** The request's key, if it is known, unexpired and has the scope; else the 401/403 is sent. */
export function authenticate(
  { store, storageTrouble, realClock }: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  scope: Scope | undefined,
): StoredKey | undefined {
  const token = bearerToken(req);
  if (token === undefined) {
    sendError(
      res,
      401,
      'missing_api_key',
      'send the header Authorization: Bearer <API_KEY>',
      {},
      { 'www-authenticate': 'Bearer' },
    );
    return undefined;
  }
  const key = store.findKey(token);
  if (!key) {
    sendError(
      res,
      401,
      'invalid_api_key',
      'the API key is not known to this service',
      {},
      { 'www-authenticate': 'Bearer error="invalid_token"' },
    );
    return undefined;
  }
  const at = realClock.now();
  if (isoDate(at) > key.expires) {
    sendError(
      res,
      401,
      'expired_api_key',
      `the API key expired on ${key.expires}`,
      {},
      { 'www-authenticate': 'Bearer error="invalid_token"' },
    );
    return undefined;
  }
  const previous = key.last_used ? Date.parse(key.last_used) : 0;
  try {
    if (at - previous >= LAST_USED_PERSIST_MS) store.markKeyUsed(key.id, new Date(at).toISOString());
    else key.last_used = new Date(at).toISOString();
  } catch (error) {
    // A key's last use is bookkeeping: a disk that cannot take it must not refuse the request.
    if (!(error instanceof StorageError)) throw error;
    key.last_used = new Date(at).toISOString();
    storageTrouble(error);
  }
  if (scope && !key.scopes.includes(scope)) {
    sendError(res, 403, 'insufficient_scope', `the API key lacks the scope ${scope}`, {
      required_scope: scope,
    });
    return undefined;
  }
  return key;
}

/** Takes one request from the key's budget; false (and the 429 sent) when it is spent. */
export function rateLimit(
  { limiter, counters, realClock }: SandboxServices,
  key: StoredKey,
  res: ServerResponse,
): boolean {
  const decision = limiter.take(key.id, realClock.now());
  res.setHeader('ratelimit-policy', `"default";q=${decision.limit};w=60`);
  res.setHeader('ratelimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`);
  if (decision.allowed) return true;
  counters.rate_limited++;
  sendError(
    res,
    429,
    'rate_limited',
    `more than ${decision.limit} requests per minute; retry after ${decision.resetSeconds} s`,
    {},
    {
      'retry-after': String(decision.resetSeconds),
    },
  );
  return false;
}

/** The envelope, if the key's account and environment may see it; else 404 (another realm's envelope does not exist for it). */
export function findEnvelope(
  { store }: SandboxServices,
  res: ServerResponse,
  id: string,
  key: StoredKey,
): EnvelopeRecord | undefined {
  const envelope = store.envelopes.get(id);
  if (!envelope || !sameRealm(envelope, key)) {
    sendError(res, 404, 'envelope_not_found', `no envelope with id ${id}`);
    return undefined;
  }
  return envelope;
}

/** A delivery belongs to its envelope's realm. */
export function deliveryVisible(
  { store }: SandboxServices,
  delivery: DeliveryRecord,
  key: StoredKey,
): boolean {
  const envelope = store.envelopes.get(delivery.envelope_id);
  return envelope !== undefined && sameRealm(envelope, key);
}

/**
 * The Idempotency-Key rules every keyed POST shares (create, void, resend), as in the
 * IETF draft: the key is required; the same key with the same request
 * answers the stored response again; with another request, 422; while the
 * first is still being processed, 409. `perform` answers and returns the
 * response to remember, which it must store durably with its change (the
 * record and the change stand or fall together); undefined when nothing changed.
 */
export async function keyed(
  { store, counters, inFlight, realClock, idempotencyRetentionMs }: SandboxServices,
  { req, res, key }: RequestContext,
  what: string,
  fingerprintOf: (body: unknown) => unknown,
  perform: (body: unknown, record: (response: StoredResponse) => IdempotencyRecord) => Promise<void> | void,
): Promise<void> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) {
    sendError(
      res,
      415,
      'unsupported_media_type',
      'send the body as JSON with Content-Type: application/json',
    );
    return;
  }
  const idempotencyKey = req.headers['idempotency-key'];
  if (typeof idempotencyKey !== 'string' || idempotencyKey.trim() === '') {
    sendError(res, 400, 'idempotency_key_required', `send an Idempotency-Key header with every ${what}`);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse((await readBody(req)).toString('utf8'));
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      sendError(res, 413, 'body_too_large', 'the body is larger than 1 MiB');
    else sendError(res, 400, 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
    return;
  }
  const fingerprint = createHash('sha256')
    .update(canonicalJson(fingerprintOf(body)))
    .digest('hex');
  // Per account and environment: a rotated key replays; another environment's key has keys of its own.
  const realm = keyRealm(key);
  const recordId = idempotencyId(realm, idempotencyKey);
  if (inFlight.has(recordId)) {
    sendError(
      res,
      409,
      'idempotency_key_in_flight',
      'a request with this Idempotency-Key is still being processed; retry later',
      {},
      { 'retry-after': '1' },
    );
    return;
  }
  const previous = store.idempotency.get(recordId);
  if (previous && realClock.now() - previous.created_at < idempotencyRetentionMs) {
    if (previous.fingerprint !== fingerprint) {
      sendError(
        res,
        422,
        'idempotency_key_reused',
        'this Idempotency-Key was already used with a different request',
      );
      return;
    }
    counters.replayed++;
    sendJson(res, previous.response.status, previous.response.body, {
      ...previous.response.headers,
      'idempotent-replayed': 'true',
    });
    return;
  }
  inFlight.add(recordId);
  try {
    await perform(body, (response) => ({
      scope: realm,
      key: idempotencyKey,
      fingerprint,
      created_at: realClock.now(),
      response,
    }));
  } finally {
    inFlight.delete(recordId);
  }
}
