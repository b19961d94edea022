/**
 * The local sandbox of the service: same paths and headers as SPEC.md, API
 * keys with environment, scopes and expiry, the 600/min limit, idempotency as
 * in the IETF Idempotency-Key draft, and fault injection for tests.
 * Request rules come from the shared core, so the CLI and the sandbox agree.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCOPES, ENDPOINTS, type Scope } from '../core/endpoints.js';
import { validateEnvelope, type ValueLists } from '../core/envelope.js';
import { BodyTooLargeError, canonicalJson, readBody, sendError, sendJson } from './http.js';
import { newId, randomBase62 } from './ids.js';
import { SlidingWindowLimiter } from './rate-limiter.js';
import { SandboxStore, idempotencyId, type EnvelopeRecord, type StoredKey } from './store.js';
import { FaultPlan, type FaultSettings } from './faults.js';

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

export interface SandboxOptions {
  dataDir: string;
  host?: string;
  port?: number;
  /** Sandbox clock speed for the signing journey (used by later stages). */
  speed?: number;
  /** Fault injection and limits at start-up; `faults.rate_limit` defaults to 600/min. */
  faults?: FaultSettings;
  now?: () => number;
}

export interface RunningSandbox {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
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

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function bootstrap(store: SandboxStore, now: number): void {
  if (!store.isNew) return;
  const key: StoredKey = {
    id: newId('key'),
    name: 'sandbox',
    key: `sk_test_${randomBase62(32)}`,
    environment: 'test',
    scopes: [...SCOPES],
    expires: isoDate(now + 365 * 86_400_000),
    created_at: new Date(now).toISOString(),
    last_used: null,
  };
  store.saveKey(key);
  store.saveSettings(`whsec_${randomBytes(24).toString('base64')}`, key.id);
}

/** Writes shell exports for the sandbox's credentials, readable by the owner only. */
function writeCredentialsFile(dataDir: string, baseUrl: string, apiKey: string, secret: string): void {
  const text = `export SIGN_BASE_URL='${baseUrl}'\nexport SIGN_API_KEY='${apiKey}'\nexport SIGN_WEBHOOK_SECRET='${secret}'\n`;
  writeFileSync(join(dataDir, 'credentials.env'), text, { mode: 0o600 });
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const now = options.now ?? Date.now;
  const store = new SandboxStore(options.dataDir);
  bootstrap(store, now());
  const admin = store.keys.get(store.adminKeyId)!;
  const limiter = new SlidingWindowLimiter(options.faults?.rate_limit ?? DEFAULT_RATE_LIMIT);
  const faults = new FaultPlan(options.faults);
  const inFlight = new Set<string>();
  const counters: Counters = { requests: 0, created: 0, replayed: 0, rate_limited: 0, by_status: {} };

  const count = (res: ServerResponse) =>
    res.on('finish', () => {
      counters.by_status[res.statusCode] = (counters.by_status[res.statusCode] ?? 0) + 1;
    });

  function authenticate(req: IncomingMessage, res: ServerResponse, scope: Scope | undefined): StoredKey | undefined {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      sendError(res, 401, 'missing_api_key', 'send the header Authorization: Bearer <API_KEY>', {}, { 'www-authenticate': 'Bearer' });
      return undefined;
    }
    const key = store.findKey(match[1]!);
    if (!key) {
      sendError(res, 401, 'invalid_api_key', 'the API key is not known to this service', {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
      return undefined;
    }
    if (isoDate(now()) > key.expires) {
      sendError(res, 401, 'expired_api_key', `the API key expired on ${key.expires}`, {}, { 'www-authenticate': 'Bearer error="invalid_token"' });
      return undefined;
    }
    const at = now();
    const previous = key.last_used ? Date.parse(key.last_used) : 0;
    if (at - previous >= LAST_USED_PERSIST_MS) store.markKeyUsed(key.id, new Date(at).toISOString());
    else key.last_used = new Date(at).toISOString();
    if (scope && !key.scopes.includes(scope)) {
      sendError(res, 403, 'insufficient_scope', `the API key lacks the scope ${scope}`, { required_scope: scope });
      return undefined;
    }
    return key;
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

  async function createEnvelope(req: IncomingMessage, res: ServerResponse, key: StoredKey): Promise<void> {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType)) {
      sendError(res, 415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
      return;
    }
    const idempotencyKey = req.headers['idempotency-key'];
    if (typeof idempotencyKey !== 'string' || idempotencyKey.trim() === '') {
      sendError(res, 400, 'idempotency_key_required', 'send an Idempotency-Key header with every create');
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
    const fingerprint = createHash('sha256').update(canonicalJson(body)).digest('hex');
    const recordId = idempotencyId(key.id, idempotencyKey);
    if (inFlight.has(recordId)) {
      sendError(res, 409, 'idempotency_key_in_flight', 'a request with this Idempotency-Key is still being processed; retry later', {}, { 'retry-after': '1' });
      return;
    }
    const previous = store.idempotency.get(recordId);
    if (previous && now() - previous.created_at < IDEMPOTENCY_RETENTION_MS) {
      if (previous.fingerprint !== fingerprint) {
        sendError(res, 422, 'idempotency_key_reused', 'this Idempotency-Key was already used with a different body');
        return;
      }
      counters.replayed++;
      sendJson(res, previous.response.status, previous.response.body, { ...previous.response.headers, 'idempotent-replayed': 'true' });
      return;
    }
    inFlight.add(recordId);
    try {
      await faults.delay();
      const { errors } = validateEnvelope(body, { allowedValues: SANDBOX_VALUES });
      if (errors.length > 0) {
        sendError(res, 422, 'validation_failed', `${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${errors.map((e) => `${e.path || '(body)'} ${e.message}`).join('; ')}`, { errors });
        return;
      }
      const envelope = buildEnvelope(body as Record<string, unknown>, key, now());
      const headers = { location: `${ENDPOINTS.createEnvelope.path}/${envelope.id}` };
      store.saveCreated(envelope, {
        scope: key.id,
        key: idempotencyKey,
        fingerprint,
        created_at: now(),
        response: { status: 201, body: publicEnvelope(envelope), headers },
      });
      counters.created++;
      if (faults.takeDropAfterCommit()) {
        // Committed, but the client never hears of it: the case Idempotency-Key exists for.
        res.socket?.destroy();
        return;
      }
      sendJson(res, 201, publicEnvelope(envelope), headers);
    } finally {
      inFlight.delete(recordId);
    }
  }

  async function getEnvelope(res: ServerResponse, id: string): Promise<void> {
    await faults.delay();
    const envelope = store.envelopes.get(id);
    if (!envelope) {
      sendError(res, 404, 'envelope_not_found', `no envelope with id ${id}`);
      return;
    }
    sendJson(res, 200, publicEnvelope(envelope));
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === '/_sandbox/health') {
      sendJson(res, 200, { ok: true });
      return;
    }
    const header = req.headers.authorization ?? '';
    if (!sameSecret(header, `Bearer ${admin.key}`)) {
      sendError(res, 401, 'admin_key_required', 'sandbox control endpoints need the sandbox\'s own API key');
      return;
    }
    let input: Record<string, unknown> = {};
    if (req.method === 'POST') {
      try {
        const text = (await readBody(req)).toString('utf8');
        input = text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        sendError(res, 400, 'invalid_json', 'the body is not valid JSON');
        return;
      }
    }
    if (path === '/_sandbox/state' && req.method === 'GET') {
      sendJson(res, 200, { envelopes: store.envelopes.size, keys: store.keys.size, ...counters, faults: faults.settings() });
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

  function createKey(input: Record<string, unknown>): StoredKey | string {
    const scopes = input.scopes ?? [...SCOPES];
    if (!Array.isArray(scopes) || !scopes.every((s) => (SCOPES as readonly unknown[]).includes(s))) {
      return `scopes must be a list of: ${SCOPES.join(', ')}`;
    }
    const expires = input.expires ?? isoDate(now() + 90 * 86_400_000);
    if (typeof expires !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(expires)) return 'expires must be a date YYYY-MM-DD';
    const environment = typeof input.environment === 'string' ? input.environment : 'test';
    const key: StoredKey = {
      id: newId('key'),
      name: typeof input.name === 'string' ? input.name : 'key',
      key: `sk_${environment}_${randomBase62(32)}`,
      environment,
      scopes: scopes as string[],
      expires,
      created_at: new Date(now()).toISOString(),
      last_used: null,
    };
    store.saveKey(key);
    return key;
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counters.requests++;
    count(res);
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    if (path.startsWith('/_sandbox/')) return control(req, res, path);

    const envelopeMatch = /^\/api\/v1\/envelopes\/([^/]+)$/.exec(path);
    const isCreate = path === ENDPOINTS.createEnvelope.path;
    if (!isCreate && !envelopeMatch) {
      const hint = path.startsWith('/api/api/') ? ' (the path has /api twice: the base URL should not end in /api)' : '';
      sendError(res, 404, 'not_found', `no endpoint at ${path}${hint}`);
      return;
    }
    const method = isCreate ? 'POST' : 'GET';
    if (req.method !== method) {
      sendError(res, 405, 'method_not_allowed', `use ${method} for ${path}`, {}, { allow: method });
      return;
    }
    if (faults.takeFailBeforeCommit()) {
      sendError(res, faults.failStatus, 'sandbox_fault', 'failure injected by the sandbox before doing anything', {}, { 'retry-after': '0' });
      return;
    }
    const key = authenticate(req, res, isCreate ? ENDPOINTS.createEnvelope.scope : ENDPOINTS.getEnvelope.scope);
    if (!key || !rateLimit(key, res)) return;
    if (isCreate) await createEnvelope(req, res, key);
    else await getEnvelope(res, decodeURIComponent(envelopeMatch![1]!));
  }

  const server = createServer((req, res) => {
    res.setHeader('x-request-id', newId('req'));
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'internal_error', `sandbox error: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  // Slow or half-open clients must not hold sockets forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_SANDBOX_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  writeCredentialsFile(options.dataDir, baseUrl, admin.key, store.webhookSecret);

  return {
    baseUrl,
    apiKey: admin.key,
    webhookSecret: store.webhookSecret,
    dataDir: options.dataDir,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          store.close();
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}

function buildEnvelope(body: Record<string, unknown>, key: StoredKey, now: number): EnvelopeRecord {
  const created = new Date(now).toISOString();
  const signers = (body.signers as Record<string, unknown>[]).map((signer) => ({
    id: newId('sgn'),
    ...signer,
    status: 'pending',
  }));
  const days = typeof body.expires_in_days === 'number' ? body.expires_in_days : undefined;
  // Fields the service owns are never taken from the request.
  const { id: _id, object: _object, status: _status, owner: _owner, ...fields } = body;
  return {
    id: newId('env'),
    object: 'envelope',
    status: 'sent',
    ...fields,
    environment: key.environment,
    signers,
    sequential: body.sequential === true,
    created_at: created,
    updated_at: created,
    expires_at: days === undefined ? null : new Date(now + days * 86_400_000).toISOString(),
    owner: key.id,
  };
}

/** The envelope as the API shows it: internal fields left out. */
function publicEnvelope(envelope: EnvelopeRecord): Record<string, unknown> {
  const { owner: _owner, ...rest } = envelope;
  return rest;
}
