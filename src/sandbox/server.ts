/**
 * The local sandbox of the service: the paths and headers of SPEC.md, API
 * keys with environment, scopes and expiry, the 600/min limit, idempotency as
 * in the IETF Idempotency-Key draft, the signing journey with signed webhooks,
 * the signed copy and the audit trail, and fault injection for tests.
 * Request rules come from the shared core, so the CLI and the sandbox agree.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { canonicalJson } from '../core/canonical-json.js';
import { ENDPOINTS, SCOPES, type Operation, type Scope } from '../core/endpoints.js';
import { isRecord, validateEnvelope, type ValueLists } from '../core/envelope.js';
import { StorageError, type FieldIssue } from '../core/errors.js';
import { ed25519PublicKeyOf, newEd25519KeyPair, newStandardSecret, safeEqual, signStandard } from '../core/webhooks.js';
import { Scheduler, createSandboxClock, type SandboxClock } from './clock.js';
import { webhookUrlProblem } from '../core/deliveries.js';
import { Deliverer } from './deliveries.js';
import { deliveryPage, parseDeliveryQuery, publicDelivery } from './delivery-listing.js';
import { FaultPlan, type FaultSettings } from './faults.js';
import { BodyTooLargeError, readBody, sendError, sendJson } from './http.js';
import { newId, randomBase62 } from './ids.js';
import { JourneyEngine, TERMINAL } from './journey.js';
import { listPage, parseListQuery } from './listing.js';
import { SlidingWindowLimiter } from './rate-limiter.js';
import { signedCopyPdf } from './signed-copy.js';
import { CREDENTIALS_FILE, readCredentialsFile, writeCredentialsFile, type Credentials } from './credentials-file.js';
import { SANDBOX_ACCOUNT, accountOf, envelopeRealm, keyRealm, sameRealm } from './realm.js';
import {
  SandboxStore,
  hashSecret,
  idempotencyId,
  keyFields,
  type DeliveryRecord,
  type EnvelopeRecord,
  type IdempotencyRecord,
  type SignerRecord,
  type StoredKey,
  type StoredResponse,
} from './store.js';

/** The values this sandbox accepts for the fields SPEC.md leaves open (docs/assumptions.md). */
export const SANDBOX_VALUES: ValueLists = {
  signature_level: ['simple', 'advanced', 'qualified'],
  channel: ['email', 'whatsapp'],
  verification: ['uae_pass', 'nafath', 'sms_otp', 'email_otp'],
  locale: ['ar', 'en', 'fr', 'de', 'es', 'tr', 'ur', 'hi'],
};

export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_RATE_LIMIT = 600;
/** How long an Idempotency-Key is remembered (SPEC §4.1 does not say; Stripe keeps 24 h). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** A key's last_used is written to disk at most this often; in memory it is always exact. */
const LAST_USED_PERSIST_MS = 60_000;
const DAY_MS = 86_400_000;
const VOID_REASON_MAX = 500;

export interface SandboxOptions {
  dataDir: string;
  /** How deliveries are signed: HMAC `v1` with the whsec_ secret (default), or Ed25519 `v1a`. */
  signing?: 'hmac' | 'ed25519';
  /** Values to accept beyond SANDBOX_VALUES for the fields SPEC.md leaves open (`sandbox --accept`). */
  accept?: ValueLists;
  host?: string;
  port?: number;
  /** Sandbox clock speed relative to real time (journey steps, expiry, webhook retries). */
  speed?: number;
  /** Fault injection and limits at start-up; `faults.rate_limit` defaults to 600/min. */
  faults?: FaultSettings;
  /** Told when the state cannot be written (a full disk): at most once a minute, and when writing works again. */
  onWarning?: (message: string) => void;
}

export interface RunningSandbox {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  /** With `signing: 'ed25519'`: the `whpk_` key receivers verify deliveries with. */
  webhookPublicKey?: string;
  /** Things to tell the person who started it: skipped log lines, re-issued credentials. */
  notices: string[];
  dataDir: string;
  server: Server;
  close(): Promise<void>;
}

interface Counters {
  requests: number;
  created: number;
  replayed: number;
  rate_limited: number;
  by_status: Record<string, number>;
}

interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  key: StoredKey;
  params: string[];
}

interface Route {
  operation: Operation;
  method: string;
  pattern: RegExp;
  handle(ctx: RequestContext): Promise<void> | void;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Limits SPEC §8 leaves open; the sandbox's choice (docs/assumptions.md), enforced as the server. */
export const SANDBOX_LIMITS = { expires_in_days: 3650, signers: 100, title: 500 } as const;

function sandboxBounds(body: unknown): FieldIssue[] {
  if (!body || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  if (typeof b.expires_in_days === 'number' && b.expires_in_days > SANDBOX_LIMITS.expires_in_days) {
    issues.push({ path: 'expires_in_days', message: `must be at most ${SANDBOX_LIMITS.expires_in_days} on this service` });
  }
  if (Array.isArray(b.signers) && b.signers.length > SANDBOX_LIMITS.signers) {
    issues.push({ path: 'signers', message: `at most ${SANDBOX_LIMITS.signers} signers on this service` });
  }
  if (typeof b.title === 'string' && b.title.length > SANDBOX_LIMITS.title) {
    issues.push({ path: 'title', message: `at most ${SANDBOX_LIMITS.title} characters on this service` });
  }
  return issues;
}

/** SANDBOX_VALUES widened with the values a user accepted (`--accept`, the sandbox.accept setting). */
export function acceptedValues(extra: ValueLists = {}): ValueLists {
  const lists: Record<string, readonly string[]> = { ...SANDBOX_VALUES };
  for (const [field, values] of Object.entries(extra)) lists[field] = [...new Set([...(lists[field] ?? []), ...(values ?? [])])];
  return lists as ValueLists;
}

/** The 422 for a value outside the lists says how to widen them, without editing code. */
const widenHint = (field: string, value: string): string =>
  `this sandbox accepts more with \`sign-cli sandbox --accept ${field}=${value}\` or \`sign-cli config set sandbox.accept.${field} ${value}\``;

/** `/api/v1/envelopes/{id}` -> a regular expression with one capture per parameter. */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '([^/]+)');
  return new RegExp(`^${escaped}$`);
}


/**
 * The sandbox's own key and webhook secret. The log holds only their hashes,
 * so they come from credentials.env (or, once, from an older log that held
 * them in clear). A new data dir gets fresh ones; if credentials.env was lost,
 * new ones are issued (the old ones cannot be recovered from hashes) and a
 * notice says so.
 */
function credentials(store: SandboxStore, dataDir: string, now: number, notices: string[]): Credentials {
  if (store.isNew) {
    const apiKey = `sk_test_${randomBase62(32)}`;
    const key: StoredKey = {
      id: newId('key'),
      name: 'sandbox',
      ...keyFields(apiKey),
      environment: 'test',
      scopes: [...SCOPES],
      expires: isoDate(now + 365 * DAY_MS),
      created_at: new Date(now).toISOString(),
      last_used: null,
    };
    const webhookSecret = newStandardSecret();
    store.saveKey(key);
    store.saveSettings(hashSecret(webhookSecret), key.id);
    return { apiKey, webhookSecret };
  }
  const admin = store.keys.get(store.adminKeyId);
  if (!admin) throw new Error(`${join(dataDir, 'state.jsonl')} names no usable sandbox key; move the data dir away to start afresh`);
  const saved = readCredentialsFile(dataDir);
  const candidates = [saved.apiKey, store.clearSecrets.keys.get(admin.id)];
  let apiKey = candidates.find((k) => k !== undefined && hashSecret(k) === admin.key_hash);
  if (apiKey === undefined) {
    apiKey = `sk_test_${randomBase62(32)}`;
    store.saveKey({ ...admin, ...keyFields(apiKey) });
    notices.push(`${CREDENTIALS_FILE} did not hold the sandbox key, and the state keeps only its hash: a new key was issued`);
  }
  let webhookSecret = [saved.webhookSecret, store.clearSecrets.webhookSecret].find((s) => s !== undefined && hashSecret(s) === store.webhookSecretHash);
  if (webhookSecret === undefined) {
    webhookSecret = newStandardSecret();
    store.saveSettings(hashSecret(webhookSecret), admin.id);
    notices.push(`${CREDENTIALS_FILE} did not hold the webhook secret, and the state keeps only its hash: a new secret was issued (update your listener)`);
  }
  return { apiKey, webhookSecret };
}

/**
 * The Ed25519 signing key (`--signing ed25519`): the one in credentials.env,
 * else a new one (with a notice when the data dir is not new: receivers need
 * the new public key).
 */
function ed25519SigningKey(dataDir: string, isNew: boolean, notices: string[]): string {
  const saved = readCredentialsFile(dataDir).signingKey;
  if (saved) {
    try {
      ed25519PublicKeyOf(saved);
      return saved;
    } catch {
      // unusable: a new one below
    }
  }
  if (!isNew) notices.push(`${CREDENTIALS_FILE} held no Ed25519 signing key: a new key pair was made (give receivers the new webhook_public_key)`);
  return newEd25519KeyPair().secretKey;
}

function buildEnvelope(body: Record<string, unknown>, key: StoredKey, now: number): EnvelopeRecord {
  const created = new Date(now).toISOString();
  // Validated by the core rules before this point, so name and channel are strings.
  const signers = (body.signers as Record<string, unknown>[]).map(
    (signer): SignerRecord => ({ id: newId('sgn'), ...(signer as { name: string; channel: string }), status: 'pending', next_at: null }),
  );
  const days = typeof body.expires_in_days === 'number' ? body.expires_in_days : undefined;
  // Fields the service owns are never taken from the request.
  const { id: _id, object: _object, status: _status, owner: _owner, account: _account, environment: _environment, ...fields } = body;
  return {
    id: newId('env'),
    object: 'envelope',
    status: 'sent',
    ...fields,
    environment: key.environment,
    account: accountOf(key),
    signers,
    sequential: body.sequential === true,
    created_at: created,
    updated_at: created,
    expires_at: days === undefined ? null : new Date(now + days * DAY_MS).toISOString(),
    owner: key.id,
  };
}

/** The envelope as the API shows it: bookkeeping fields left out. */
function publicEnvelope(envelope: EnvelopeRecord): Record<string, unknown> {
  const { owner: _owner, account: _account, ...rest } = envelope;
  return { ...rest, signers: envelope.signers.map(({ next_at: _next, ...signer }) => signer) };
}

/** A key as SPEC §2.3 lists it: masked, with its environment, scopes, last use and expiry. */
function listedKey(key: StoredKey): Record<string, unknown> {
  return {
    name: key.name,
    environment: key.environment,
    key: key.key_hint,
    last_used: key.last_used,
    expires: key.expires,
    scopes: key.scopes,
  };
}

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const store = new SandboxStore(options.dataDir);
  const allowed = acceptedValues(options.accept);
  const clock: SandboxClock = createSandboxClock(options.speed ?? 1, store.latestTime);
  const notices = [...store.problems];
  const secrets = credentials(store, options.dataDir, Date.now(), notices);
  if (options.signing === 'ed25519') secrets.signingKey = ed25519SigningKey(options.dataDir, store.isNew, notices);
  const limiter = new SlidingWindowLimiter(options.faults?.rate_limit ?? DEFAULT_RATE_LIMIT);
  const faults = new FaultPlan(options.faults);
  const scheduler = new Scheduler(clock);
  /**
   * The state cannot be written (a full disk): requests get 503 with
   * Retry-After, timers try again later; said at most once a minute.
   */
  let storageFailures = 0;
  let lastStorageWarning = 0;
  const storageTrouble = (error: StorageError): void => {
    storageFailures++;
    if (Date.now() - lastStorageWarning < 60_000) return;
    lastStorageWarning = Date.now();
    options.onWarning?.(`${error.message}; answering 503 and trying again until it can write (${error.hint ?? ''})`);
  };
  const deliverer = new Deliverer(store, clock, scheduler, (id, timestamp, body) => ({ ...signStandard(secrets.signingKey ?? secrets.webhookSecret, id, timestamp, body) }), storageTrouble);
  const journey = new JourneyEngine(store, clock, scheduler, (deliveries) => deliverer.enqueue(deliveries), storageTrouble);
  const inFlight = new Set<string>();
  const counters: Counters = { requests: 0, created: 0, replayed: 0, rate_limited: 0, by_status: {} };

  function authenticate(req: IncomingMessage, res: ServerResponse, scope: Scope | undefined): StoredKey | undefined {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match) {
      sendError(res, 401, 'missing_api_key', 'send the header Authorization: Bearer <API_KEY>', {}, { 'www-authenticate': 'Bearer' });
      return undefined;
    }
    const key = store.findKey(match[1]!);
    if (!key) {
      sendError(res, 401, 'invalid_api_key', 'the API key is not known to this service', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
      return undefined;
    }
    const at = Date.now();
    if (isoDate(at) > key.expires) {
      sendError(res, 401, 'expired_api_key', `the API key expired on ${key.expires}`, {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
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
      sendError(res, 403, 'insufficient_scope', `the API key lacks the scope ${scope}`, { required_scope: scope });
      return undefined;
    }
    return key;
  }

  /** A delivery belongs to its envelope's realm. */
  function deliveryVisible(delivery: DeliveryRecord, key: StoredKey): boolean {
    const envelope = store.envelopes.get(delivery.envelope_id);
    return envelope !== undefined && sameRealm(envelope, key);
  }

  function rateLimit(key: StoredKey, res: ServerResponse): boolean {
    const decision = limiter.take(key.id, Date.now());
    res.setHeader('ratelimit-policy', `"default";q=${decision.limit};w=60`);
    res.setHeader('ratelimit', `"default";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (decision.allowed) return true;
    counters.rate_limited++;
    sendError(res, 429, 'rate_limited', `more than ${decision.limit} requests per minute; retry after ${decision.resetSeconds} s`, {}, {
      'retry-after': String(decision.resetSeconds),
    });
    return false;
  }

  /** The envelope, if the key's account and environment may see it; else 404 (another realm's envelope does not exist for it). */
  function findEnvelope(res: ServerResponse, id: string, key: StoredKey): EnvelopeRecord | undefined {
    const envelope = store.envelopes.get(id);
    if (!envelope || !sameRealm(envelope, key)) {
      sendError(res, 404, 'envelope_not_found', `no envelope with id ${id}`);
      return undefined;
    }
    return envelope;
  }

  /**
   * The Idempotency-Key rules every keyed POST shares (create, void, resend), as in the
   * IETF draft: the key is required; the same key with the same request
   * answers the stored response again; with another request, 422; while the
   * first is still being processed, 409. `perform` answers and returns the
   * response to remember, which it must store durably with its change (the
   * record and the change stand or fall together); undefined when nothing changed.
   */
  async function keyed(
    { req, res, key }: RequestContext,
    what: string,
    fingerprintOf: (body: unknown) => unknown,
    perform: (body: unknown, record: (response: StoredResponse) => IdempotencyRecord) => Promise<void> | void,
  ): Promise<void> {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) {
      sendError(res, 415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
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
      if (error instanceof BodyTooLargeError) sendError(res, 413, 'body_too_large', 'the body is larger than 1 MiB');
      else sendError(res, 400, 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
      return;
    }
    const fingerprint = createHash('sha256').update(canonicalJson(fingerprintOf(body))).digest('hex');
    // Per account and environment: a rotated key replays; another environment's key has keys of its own.
    const realm = keyRealm(key);
    const recordId = idempotencyId(realm, idempotencyKey);
    if (inFlight.has(recordId)) {
      sendError(res, 409, 'idempotency_key_in_flight', 'a request with this Idempotency-Key is still being processed; retry later', {}, { 'retry-after': '1' });
      return;
    }
    const previous = store.idempotency.get(recordId);
    if (previous && Date.now() - previous.created_at < IDEMPOTENCY_RETENTION_MS) {
      if (previous.fingerprint !== fingerprint) {
        sendError(res, 422, 'idempotency_key_reused', 'this Idempotency-Key was already used with a different request');
        return;
      }
      counters.replayed++;
      sendJson(res, previous.response.status, previous.response.body, { ...previous.response.headers, 'idempotent-replayed': 'true' });
      return;
    }
    inFlight.add(recordId);
    try {
      await perform(body, (response) => ({ scope: realm, key: idempotencyKey, fingerprint, created_at: Date.now(), response }));
    } finally {
      inFlight.delete(recordId);
    }
  }

  function createEnvelope(ctx: RequestContext): Promise<void> {
    const { res, key } = ctx;
    // The body alone: records written before void existed keep matching.
    return keyed(ctx, 'create', (body) => body, async (body, remember) => {
      await faults.delay();
      // Fields the spec does not name are ignored, not refused (SPEC.md is silent; docs/assumptions.md).
      const { errors } = validateEnvelope(body, { allowedValues: allowed, widenHint, allowUnknownFields: true });
      errors.push(...sandboxBounds(body));
      if (errors.length > 0) {
        const summary = errors.map((e) => `${e.path || '(body)'} ${e.message}`).join('; ');
        sendError(res, 422, 'validation_failed', `${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${summary}`, { errors });
        return;
      }
      const envelope = buildEnvelope(body as Record<string, unknown>, key, clock.now());
      const step = journey.begin(envelope, key);
      const shown = publicEnvelope(envelope);
      const headers = { location: `${ENDPOINTS.createEnvelope.path}/${envelope.id}` };
      store.saveCreated(envelope, remember({ status: 201, body: shown, headers }), step.audit, step.deliveries);
      journey.started(envelope, step);
      counters.created++;
      if (faults.takeDropAfterCommit()) {
        // Committed, but the client never hears of it: the case Idempotency-Key exists for.
        res.socket?.destroy();
        return;
      }
      sendJson(res, 201, shown, headers);
    });
  }

  /** POST /api/v1/envelopes/{id}/void {"reason"}: stops an envelope under way (docs/assumptions.md). */
  function voidEnvelope(ctx: RequestContext): Promise<void> {
    const { res, key, params } = ctx;
    const id = params[0]!;
    return keyed(ctx, 'void', (body) => ({ void: id, body }), (body, remember) => {
      const reason = isRecord(body) ? body.reason : undefined;
      if (typeof reason !== 'string' || reason.trim() === '' || reason.length > VOID_REASON_MAX) {
        sendError(res, 422, 'validation_failed', `reason must be a non-empty string of at most ${VOID_REASON_MAX} characters`, {
          errors: [{ path: 'reason', message: 'required: why the envelope is voided' }],
        });
        return;
      }
      const envelope = findEnvelope(res, id, key);
      if (!envelope) return;
      if (TERMINAL.has(envelope.status)) {
        sendError(res, 409, 'envelope_final', `the envelope is already ${envelope.status}; only an envelope still under way can be voided`, { envelope_status: envelope.status });
        return;
      }
      const stored = structuredClone(envelope);
      const step = journey.void(envelope, reason, key);
      const shown = publicEnvelope(envelope);
      try {
        store.saveVoided(envelope, remember({ status: 200, body: shown, headers: {} }), step.audit, step.deliveries);
      } catch (error) {
        // Not on disk, so not voided: the envelope is as it was, and the client is told to retry (503).
        Object.assign(envelope, stored);
        throw error;
      }
      journey.delivered(step);
      sendJson(res, 200, shown);
    });
  }

  /** GET /api/v1/envelopes: newest first, filtered, one page at a time (listing.ts). */
  function listEnvelopes({ req, res, key }: RequestContext): void {
    const query = parseListQuery(new URL(req.url ?? '/', 'http://sandbox').searchParams);
    if (typeof query === 'string') {
      sendError(res, 400, 'invalid_query', query);
      return;
    }
    const page = listPage([...store.envelopes.values()].filter((envelope) => sameRealm(envelope, key)), query);
    if (!page) sendError(res, 400, 'invalid_query', 'cursor names no envelope of this service; start again without it');
    else sendJson(res, 200, { ...page, data: page.data.map(publicEnvelope) });
  }

  /** GET /api/v1/webhook-deliveries: every delivery with its attempts, newest first (delivery-listing.ts). */
  function listDeliveries({ req, res, key }: RequestContext): void {
    const query = parseDeliveryQuery(new URL(req.url ?? '/', 'http://sandbox').searchParams);
    if (typeof query === 'string') {
      sendError(res, 400, 'invalid_query', query);
      return;
    }
    const page = deliveryPage([...store.deliveries.values()].filter((delivery) => deliveryVisible(delivery, key)), query);
    if (!page) sendError(res, 400, 'invalid_query', 'cursor names no delivery of this service; start again without it');
    else sendJson(res, 200, page);
  }

  /**
   * POST /api/v1/events/{id}/resend {"to"?}: a new delivery (its own `dlv_…`
   * id) of the same event: the same body under the same `webhook-id`, signed
   * afresh at each attempt, to the event's URL or `to`. It has its own queue,
   * so it starts at once rather than behind the envelope's pending events, and
   * it retries like any delivery. An Idempotency-Key as for create and void.
   */
  function resendEvent(ctx: RequestContext): Promise<void> {
    const { res, params, key } = ctx;
    const eventId = params[0]!;
    return keyed(ctx, 'resend', (body) => ({ resend: eventId, body }), (body, remember) => {
      if (!isRecord(body)) {
        sendError(res, 422, 'validation_failed', 'the body must be a JSON object: {} or {"to": "<url>"}', { errors: [{ path: '', message: 'must be a JSON object' }] });
        return;
      }
      const extra = Object.keys(body).find((name) => name !== 'to');
      if (extra !== undefined) {
        sendError(res, 422, 'validation_failed', `unknown field ${JSON.stringify(extra.slice(0, 40))}; a resend takes only "to"`, { errors: [{ path: extra.slice(0, 40), message: 'unknown field' }] });
        return;
      }
      const problem = body.to === undefined ? undefined : webhookUrlProblem(body.to);
      if (problem) {
        sendError(res, 422, 'validation_failed', `to ${problem}`, { errors: [{ path: 'to', message: problem }] });
        return;
      }
      const original = store.deliveriesOfEvent(eventId)[0];
      if (!original || !deliveryVisible(original, key)) {
        sendError(res, 404, 'event_not_found', `no webhook delivery of event ${eventId}; only events sent to a webhook_url can be resent`);
        return;
      }
      const now = clock.now();
      const delivery: DeliveryRecord = {
        id: newId('dlv'),
        event_id: eventId,
        seq: store.nextDeliverySeq(),
        envelope_id: original.envelope_id,
        event_type: original.event_type,
        url: typeof body.to === 'string' ? body.to : original.url,
        body: original.body,
        status: 'pending',
        attempts: 0,
        attempt_log: [],
        next_at: now,
        last_status: null,
        last_error: null,
        finished_at: null,
        created_at: new Date(now).toISOString(),
        resend: true,
      };
      const shown = publicDelivery(delivery);
      store.saveResent(delivery, remember({ status: 202, body: shown, headers: {} }));
      deliverer.enqueue([delivery]);
      sendJson(res, 202, shown);
    });
  }

  const routes: Route[] = [
    { operation: 'createEnvelope', method: 'POST', pattern: pathPattern(ENDPOINTS.createEnvelope.path), handle: createEnvelope },
    { operation: 'listDeliveries', method: 'GET', pattern: pathPattern(ENDPOINTS.listDeliveries.path), handle: listDeliveries },
    { operation: 'resendEvent', method: 'POST', pattern: pathPattern(ENDPOINTS.resendEvent.path), handle: resendEvent },
    { operation: 'listEnvelopes', method: 'GET', pattern: pathPattern(ENDPOINTS.listEnvelopes.path), handle: listEnvelopes },
    { operation: 'voidEnvelope', method: 'POST', pattern: pathPattern(ENDPOINTS.voidEnvelope.path), handle: voidEnvelope },
    {
      operation: 'getEnvelope',
      method: 'GET',
      pattern: pathPattern(ENDPOINTS.getEnvelope.path),
      handle: async ({ res, params, key }) => {
        await faults.delay();
        const envelope = findEnvelope(res, params[0]!, key);
        if (envelope) sendJson(res, 200, publicEnvelope(envelope));
      },
    },
    {
      operation: 'downloadSignedCopy',
      method: 'GET',
      pattern: pathPattern(ENDPOINTS.downloadSignedCopy.path),
      handle: async ({ res, params, key }) => {
        const envelope = findEnvelope(res, params[0]!, key);
        if (!envelope) return;
        if (envelope.status !== 'completed') {
          sendError(res, 409, 'envelope_not_completed', `the envelope is ${envelope.status}; a signed copy exists once every signer has signed`, { envelope_status: envelope.status });
          return;
        }
        const pdf = await signedCopyPdf(envelope, store.audits.get(envelope.id) ?? []);
        res.writeHead(200, {
          'content-type': 'application/pdf',
          'content-length': pdf.length,
          'content-disposition': `attachment; filename="${envelope.id}-signed.pdf"`,
        });
        res.end(pdf);
      },
    },
    {
      operation: 'getAuditTrail',
      method: 'GET',
      pattern: pathPattern(ENDPOINTS.getAuditTrail.path),
      handle: ({ res, params, key }) => {
        const envelope = findEnvelope(res, params[0]!, key);
        if (!envelope) return;
        const entries = store.audits.get(envelope.id) ?? [];
        sendJson(res, 200, { envelope_id: envelope.id, hash_algorithm: 'sha256', head_hash: entries.at(-1)?.hash ?? null, entries });
      },
    },
    {
      operation: 'listApiKeys',
      method: 'GET',
      pattern: pathPattern(ENDPOINTS.listApiKeys.path),
      // The account's keys, of every environment (a dashboard shows test and live keys side by side).
      handle: ({ res, key }) => sendJson(res, 200, { object: 'list', data: [...store.keys.values()].filter((k) => accountOf(k) === accountOf(key)).map(listedKey) }),
    },
  ];

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname;
    if (path === '/_sandbox/health') {
      sendJson(res, 200, { ok: true });
      return;
    }
    if (!safeEqual(req.headers.authorization ?? '', `Bearer ${secrets.apiKey}`)) {
      sendError(res, 401, 'admin_key_required', "sandbox control endpoints need the sandbox's own API key");
      return;
    }
    let input: Record<string, unknown> = {};
    if (req.method === 'POST') {
      let parsed: unknown;
      try {
        const text = (await readBody(req)).toString('utf8');
        parsed = text.trim() ? JSON.parse(text) : {};
      } catch {
        sendError(res, 400, 'invalid_json', 'the body is not valid JSON');
        return;
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        sendError(res, 400, 'invalid_body', 'the body must be a JSON object');
        return;
      }
      input = parsed as Record<string, unknown>;
    }
    if (path === '/_sandbox/state' && req.method === 'GET') {
      sendJson(res, 200, {
        envelopes: store.envelopes.size,
        keys: store.keys.size,
        ...counters,
        rate_window_peak: limiter.peakOffered,
        storage_failures: storageFailures,
        sandbox_time: new Date(clock.now()).toISOString(),
        speed: clock.speed,
        faults: faults.settings(),
      });
    } else if (path === '/_sandbox/envelopes' && req.method === 'GET') {
      // For tests and benchmarks that count envelopes by content (duplicates show as repeated contract ids).
      const list = [...store.envelopes.values()].map((e) => ({ id: e.id, contract_id: e.contract_id ?? null, title: e.title, status: e.status, created_at: e.created_at, realm: envelopeRealm(e) }));
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
    } else if (path === '/_sandbox/keys' && req.method === 'POST') {
      const created = createKey(input);
      if (typeof created === 'string') sendError(res, 400, 'invalid_key', created);
      else sendJson(res, 201, created);
    } else {
      sendError(res, 404, 'not_found', `no sandbox control endpoint ${req.method} ${path}`);
    }
  }

  /** A key for tests: checked like any input; the secret is in the answer only (the store keeps its hash). */
  function createKey(input: Record<string, unknown>): Record<string, unknown> | string {
    const scopes = input.scopes ?? [...SCOPES];
    if (!Array.isArray(scopes) || !scopes.every((s) => (SCOPES as readonly unknown[]).includes(s))) {
      return `scopes must be a list of: ${SCOPES.join(', ')}`;
    }
    const expires = input.expires ?? isoDate(Date.now() + 90 * DAY_MS);
    // A real calendar date: 9999-99-99 or 2026-02-30 would not survive Date's round trip.
    if (typeof expires !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(expires) || Number.isNaN(Date.parse(expires)) || isoDate(Date.parse(expires)) !== expires) {
      return 'expires must be a calendar date YYYY-MM-DD';
    }
    if (input.environment !== undefined && (typeof input.environment !== 'string' || !/^[a-z]{1,8}$/.test(input.environment))) {
      return 'environment must be 1 to 8 lowercase letters, such as live or test';
    }
    if (input.name !== undefined && (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 64)) {
      return 'name must be a string of 1 to 64 characters';
    }
    if (input.account !== undefined && (typeof input.account !== 'string' || !/^acct_[A-Za-z0-9_]{1,40}$/.test(input.account))) {
      return 'account must be acct_ and 1 to 40 letters, digits or _, such as acct_second';
    }
    const environment = (input.environment as string | undefined) ?? 'test';
    const secret = `sk_${environment}_${randomBase62(32)}`;
    const key: StoredKey = {
      id: newId('key'),
      name: (input.name as string | undefined) ?? 'key',
      ...keyFields(secret),
      environment,
      account: (input.account as string | undefined) ?? SANDBOX_ACCOUNT,
      scopes: scopes as string[],
      expires,
      created_at: new Date().toISOString(),
      last_used: null,
    };
    store.saveKey(key);
    const { key_hash: _hash, key_hint: _hint, ...shown } = key;
    return { ...shown, key: secret };
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counters.requests++;
    res.on('finish', () => {
      counters.by_status[res.statusCode] = (counters.by_status[res.statusCode] ?? 0) + 1;
    });
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname.startsWith('/_sandbox/')) return control(req, res, url);

    const matches = routes.map((r) => ({ route: r, match: r.pattern.exec(url.pathname) })).filter((m) => m.match);
    if (matches.length === 0) {
      const hint = url.pathname.startsWith('/api/api/') ? ' (the path has /api twice: the base URL should not end in /api)' : '';
      sendError(res, 404, 'not_found', `no endpoint at ${url.pathname}${hint}`);
      return;
    }
    const found = matches.find((m) => m.route.method === req.method);
    if (!found) {
      const allowed = matches.map((m) => m.route.method).join(', ');
      sendError(res, 405, 'method_not_allowed', `use ${allowed} for ${url.pathname}`, {}, { allow: allowed });
      return;
    }
    if (faults.takeFailBeforeCommit()) {
      sendError(res, faults.failStatus, 'sandbox_fault', 'failure injected by the sandbox before doing anything', {}, { 'retry-after': '0' });
      return;
    }
    const key = authenticate(req, res, ENDPOINTS[found.route.operation].scope);
    if (!key || !rateLimit(key, res)) return;
    let params: string[];
    try {
      params = found.match!.slice(1).map((p) => decodeURIComponent(p));
    } catch {
      sendError(res, 400, 'invalid_path', `the path ${url.pathname} has a malformed %-escape`);
      return;
    }
    await found.route.handle({ req, res, key, params });
  }

  const server = createServer((req, res) => {
    res.setHeader('x-request-id', newId('req'));
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else if (error instanceof StorageError) {
        // Nothing was acknowledged, nothing changed: the same request later (same Idempotency-Key) is safe.
        storageTrouble(error);
        sendError(res, 503, 'storage_unavailable', `the sandbox cannot write its state: ${error.message}; retry later`, {}, { 'retry-after': '5' });
      } else sendError(res, 500, 'internal_error', `sandbox error: ${(error as Error).message}`);
    });
  });
  // Slow or half-open clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;

  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_SANDBOX_PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Port taken: the secrets just made (a new data dir) are kept for the next start, which
    // could not read them back from the hashes in the state; and the data dir is released.
    const requested = `http://${host.includes(':') ? `[${host}]` : host}:${options.port ?? DEFAULT_SANDBOX_PORT}`;
    writeCredentialsFile(options.dataDir, requested, secrets);
    scheduler.close();
    store.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  writeCredentialsFile(options.dataDir, baseUrl, secrets);
  // Work left when the sandbox last stopped carries on where it was.
  journey.resumeAll();
  deliverer.resume();

  return {
    baseUrl,
    apiKey: secrets.apiKey,
    webhookSecret: secrets.webhookSecret,
    ...(secrets.signingKey ? { webhookPublicKey: ed25519PublicKeyOf(secrets.signingKey) } : {}),
    notices,
    dataDir: options.dataDir,
    server,
    close: async () => {
      scheduler.close();
      await deliverer.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
