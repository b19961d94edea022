/**
 * The sandbox's own endpoints under /_sandbox/ (not part of the service):
 * health, counters and state for tests and benchmarks, fault injection,
 * minting keys of any account and environment, the CA's certificate, OCSP
 * responder, CRL and revocations (ca.ts), and the RFC 3161 timestamp
 * authority. All but health, the CA's public endpoints and the TSA need the
 * sandbox's own key.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SCOPES } from '../../core/endpoints.js';
import { safeEqual } from '../../core/webhooks/webhooks.js';
import { DAY_MS, isoDate } from '../store/days.js';
import { BodyTooLargeError, bearerToken, readBody, sendError, sendJson } from '../http.js';
import { newId, randomBase62 } from '../ids.js';
import { SANDBOX_ACCOUNT, envelopeRealm } from '../store/realm.js';
import type { SandboxServices } from '../http/services.js';
import { type SandboxStore } from '../store/store.js';
import { keyFields, type StoredKey } from '../store/records.js';
import { handleCaEndpoints, handleRevocations } from './ca.js';

type ControlInput =
  { ok: true; input: Record<string, unknown> } | { ok: false; code: string; message: string };

/** The body of a control POST: a JSON object, or nothing. */
async function controlInput(req: IncomingMessage): Promise<ControlInput> {
  if (req.method !== 'POST') return { ok: true, input: {} };
  let parsed: unknown;
  try {
    const text = (await readBody(req)).toString('utf8');
    parsed = text.trim() ? JSON.parse(text) : {};
  } catch {
    return { ok: false, code: 'invalid_json', message: 'the body is not valid JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, code: 'invalid_body', message: 'the body must be a JSON object' };
  return { ok: true, input: parsed as Record<string, unknown> };
}

export async function handleControl(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const { store, counters, limiter, clock, faults, secrets } = services;
  const path = url.pathname;
  if (path === '/_sandbox/health') {
    sendJson(res, 200, { ok: true });
    return;
  }
  // Public, as a CA's certificate is: what its signed copies are checked against.
  if (path === '/_sandbox/ca.pem' && req.method === 'GET') {
    const pem = readFileSync(services.ca.caFile);
    res.writeHead(200, { 'content-type': 'application/x-pem-file', 'content-length': pem.length });
    res.end(pem);
    return;
  }
  // Public, as a TSA is: RFC 3161 requests in, responses out (application/timestamp-query, -reply).
  if (path === '/_sandbox/tsa') {
    await answerTsa(services, req, res);
    return;
  }
  // Public, as a CA's are: what its certificates' AIA and CRL distribution points name.
  if (await handleCaEndpoints(services, req, res, path)) return;
  if (!safeEqual(bearerToken(req) ?? '', secrets.apiKey)) {
    sendError(res, 401, 'admin_key_required', "sandbox control endpoints need the sandbox's own API key");
    return;
  }
  const body = await controlInput(req);
  if (!body.ok) {
    sendError(res, 400, body.code, body.message);
    return;
  }
  const { input } = body;
  if (path === '/_sandbox/state' && req.method === 'GET') {
    const { storage_failures, ...rest } = counters;
    sendJson(res, 200, {
      envelopes: store.envelopes.size,
      keys: store.keys.size,
      ...rest,
      rate_window_peak: limiter.peakOffered,
      storage_failures,
      sandbox_time: new Date(clock.now()).toISOString(),
      speed: clock.speed,
      idempotency_retention_ms: services.idempotencyRetentionMs,
      faults: faults.settings(),
    });
  } else if (path === '/_sandbox/envelopes' && req.method === 'GET') {
    // For tests and benchmarks that count envelopes by content (duplicates show as repeated contract ids).
    const list = [...store.envelopes.values()].map((e) => ({
      id: e.id,
      contract_id: e.contract_id ?? null,
      title: e.title,
      status: e.status,
      created_at: e.created_at,
      realm: envelopeRealm(e),
    }));
    sendJson(res, 200, { object: 'list', data: list });
  } else if (path === '/_sandbox/deliveries' && req.method === 'GET') {
    const envelopeId = url.searchParams.get('envelope_id');
    const list = [...store.deliveries.values()]
      .filter((d) => !envelopeId || d.envelope_id === envelopeId)
      .sort((a, b) => a.seq - b.seq)
      .map(({ body: _body, ...rest }) => ({ ...rest, event_id: rest.event_id ?? rest.id }));
    sendJson(res, 200, { object: 'list', data: list });
  } else if (path === '/_sandbox/faults' && req.method === 'POST') {
    const problem = faults.update(input);
    if (problem) sendError(res, 400, 'invalid_faults', problem);
    else {
      if (typeof input.rate_limit === 'number') limiter.setLimit(input.rate_limit);
      sendJson(res, 200, faults.settings());
    }
  } else if (path === '/_sandbox/revocations') {
    await handleRevocations(services, req, res, input);
  } else if (path === '/_sandbox/keys' && req.method === 'POST') {
    const created = mintKey(store, input, services.realClock.now());
    if (typeof created === 'string') sendError(res, 400, 'invalid_key', created);
    else sendJson(res, 201, created);
  } else {
    sendError(res, 404, 'not_found', `no sandbox control endpoint ${req.method} ${path}`);
  }
}

async function answerTsa(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== 'POST') {
    sendError(
      res,
      405,
      'method_not_allowed',
      'the TSA takes POST with an RFC 3161 request (application/timestamp-query)',
      {},
      { allow: 'POST' },
    );
    return;
  }
  if (!/^application\/timestamp-query\b/i.test(req.headers['content-type'] ?? '')) {
    sendError(
      res,
      415,
      'unsupported_media_type',
      'the TSA takes Content-Type: application/timestamp-query (a DER TimeStampReq)',
    );
    return;
  }
  const { answerTimestampRequest, BadTimestampRequest } = await import('../signing/tsa.js');
  try {
    const now = new Date(services.clock.now());
    const reply = await answerTimestampRequest(
      await services.ca.tsaAt(now),
      await readBody(req, 64 * 1024),
      now,
    );
    res.writeHead(200, { 'content-type': 'application/timestamp-reply', 'content-length': reply.length });
    res.end(reply);
  } catch (error) {
    if (error instanceof BadTimestampRequest) sendError(res, 400, 'invalid_timestamp_request', error.message);
    else if (error instanceof BodyTooLargeError)
      sendError(res, 413, 'body_too_large', 'a TimeStampReq is a few hundred bytes; this one is over 64 KB');
    else throw error;
  }
}

/** A key for tests: checked like any input; the secret is in the answer only (the store keeps its hash). */
function mintKey(
  store: SandboxStore,
  input: Record<string, unknown>,
  now: number,
): Record<string, unknown> | string {
  const scopes = input.scopes ?? [...SCOPES];
  if (!Array.isArray(scopes) || !scopes.every((s) => (SCOPES as readonly unknown[]).includes(s))) {
    return `scopes must be a list of: ${SCOPES.join(', ')}`;
  }
  const expires = input.expires ?? isoDate(now + 90 * DAY_MS);
  // A real calendar date: 9999-99-99 or 2026-02-30 would not survive Date's round trip.
  if (
    typeof expires !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}$/.test(expires) ||
    Number.isNaN(Date.parse(expires)) ||
    isoDate(Date.parse(expires)) !== expires
  ) {
    return 'expires must be a calendar date YYYY-MM-DD';
  }
  if (
    input.environment !== undefined &&
    (typeof input.environment !== 'string' || !/^[a-z]{1,8}$/.test(input.environment))
  ) {
    return 'environment must be 1 to 8 lowercase letters, such as live or test';
  }
  if (
    input.name !== undefined &&
    (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 64)
  ) {
    return 'name must be a string of 1 to 64 characters';
  }
  if (
    input.account !== undefined &&
    (typeof input.account !== 'string' || !/^acct_[A-Za-z0-9_]{1,40}$/.test(input.account))
  ) {
    return 'account must be acct_ and 1 to 40 letters, digits or _, such as acct_second';
  }
  const environment = input.environment ?? 'test';
  const secret = `sk_${environment}_${randomBase62(32)}`;
  const key: StoredKey = {
    id: newId('key'),
    name: input.name ?? 'key',
    ...keyFields(secret),
    environment,
    account: input.account ?? SANDBOX_ACCOUNT,
    scopes: scopes as string[],
    expires,
    created_at: new Date(now).toISOString(),
    last_used: null,
  };
  store.saveKey(key);
  const { key_hash: _hash, key_hint: _hint, ...shown } = key;
  return { ...shown, key: secret };
}
