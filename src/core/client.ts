/**
 * SignClient: the one way sign-cli talks to the service. It adds auth and
 * idempotency headers, paces requests under the rate limit, retries what is
 * safe to retry (always with the same Idempotency-Key), and turns failures
 * into the error hierarchy of errors.ts. No terminal I/O: callers observe it
 * through `onTrace`.
 */
import { Agent, request, type Dispatcher } from 'undici';
import type { AuditEntry } from './audit.js';
import { systemClock, type Clock } from './clock.js';
import { baseUrlEndsInApi, fillPath, joinUrl, resolveEndpoint, type Operation, type PathOverrides } from './endpoints.js';
import { validateEnvelope, type ValidateOptions } from './envelope.js';
import {
  ApiError,
  AuthError,
  InterruptedError,
  NetworkError,
  UsageError,
  ValidationError,
  parseErrorBody,
} from './errors.js';
import { checkIdempotencyKey, newIdempotencyKey } from './idempotency.js';
import { maskKey, normalizeListedKeys, type ListedKey } from './keys.js';
import { RatePacer } from './pacing.js';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, retryDelay, backoffDelay, type RetryPolicy, type DelaySource } from './retry.js';
import { USER_AGENT } from './version.js';

export type TraceEvent =
  | { type: 'note'; message: string }
  | { type: 'request'; attempt: number; method: string; url: string; headers: Record<string, string> }
  | { type: 'response'; attempt: number; status: number; durationMs: number; headers: Record<string, string | undefined> }
  | { type: 'retry'; attempt: number; delayMs: number; source: DelaySource; reason: string };

export interface SignClientOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  /** How messages name the key (default: the key masked), e.g. `sk_live_****abcd (profile prod)`. */
  keyLabel?: string;
  /** Per-attempt timeout for connecting, and for headers and body to arrive. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Requests per minute; ignored when `pacer` is given. */
  ratePerMinute?: number;
  /** Share one pacer between clients so they stay under one limit together. */
  pacer?: RatePacer;
  clock?: Clock;
  random?: () => number;
  paths?: PathOverrides;
  validation?: ValidateOptions;
  userAgent?: string;
  dispatcher?: Dispatcher;
  onTrace?: (event: TraceEvent) => void;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string | undefined>;
  data: T;
  attempts: number;
}

export interface CreateEnvelopeResult<T = Record<string, unknown>> {
  envelope: T;
  status: number;
  idempotencyKey: string;
  /** True when the service answered with the stored response of an earlier attempt. */
  replayed: boolean;
  attempts: number;
}

/** Envelope states after which nothing more happens (docs/assumptions.md: SPEC §3 does not show them). */
export const FINAL_STATUSES = ['completed', 'declined', 'failed', 'expired'] as const;

export interface AuditTrail {
  envelope_id: string;
  head_hash: string | null;
  entries: AuditEntry[];
}

export interface RequestOptions {
  params?: Record<string, string>;
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal | undefined;
  /** Read the body as bytes rather than JSON/text. */
  binary?: boolean;
  accept?: string;
}

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const OPERATION_LABEL: Record<Operation, string> = {
  createEnvelope: 'create envelope',
  getEnvelope: 'get envelope',
  downloadSignedCopy: 'download signed copy',
  getAuditTrail: 'get audit trail',
  listApiKeys: 'list API keys',
};

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps socket errors; the useful code may sit on the cause.
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export class SignClient {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly keyLabel: string;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly pacer: RatePacer;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly paths: PathOverrides;
  private readonly validation: ValidateOptions;
  private readonly userAgent: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly onTrace: (event: TraceEvent) => void;
  private notedApiSegment = false;

  constructor(options: SignClientOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.keyLabel = options.keyLabel ?? (options.apiKey ? maskKey(options.apiKey) : '(none)');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.clock = options.clock ?? systemClock;
    this.pacer = options.pacer ?? new RatePacer({ ratePerMinute: options.ratePerMinute, clock: this.clock });
    this.random = options.random ?? Math.random;
    this.paths = options.paths ?? {};
    this.validation = options.validation ?? {};
    this.userAgent = options.userAgent ?? USER_AGENT;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({ connect: { timeout: this.timeoutMs }, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
    this.onTrace = options.onTrace ?? (() => {});
  }

  /** Releases pooled connections. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /**
   * Validates and creates one envelope. The Idempotency-Key (given or fresh)
   * is sent on every attempt, so retries can never create a second envelope.
   */
  async createEnvelope<T = Record<string, unknown>>(
    envelope: unknown,
    options: { idempotencyKey?: string; signal?: AbortSignal | undefined; source?: string } = {},
  ): Promise<CreateEnvelopeResult<T>> {
    const { errors } = validateEnvelope(envelope, this.validation);
    if (errors.length > 0) throw new ValidationError(options.source ?? 'envelope', errors);
    const idempotencyKey = options.idempotencyKey ? checkIdempotencyKey(options.idempotencyKey) : newIdempotencyKey();
    const response = await this.send<T>('createEnvelope', { body: envelope, idempotencyKey, signal: options.signal });
    // SPEC §4.1 does not show the response: a 2xx is a created envelope whatever its body;
    // without an object, the id is taken from the Location header when there is one.
    const data = response.data as unknown;
    const location = response.headers.location?.split('/').filter(Boolean).at(-1);
    const created = data !== null && typeof data === 'object' && !Array.isArray(data) ? data : location ? { id: location } : {};
    return {
      envelope: created as T,
      status: response.status,
      idempotencyKey,
      replayed: response.headers['idempotent-replayed'] === 'true',
      attempts: response.attempts,
    };
  }

  async getEnvelope<T = Record<string, unknown>>(id: string, signal?: AbortSignal): Promise<T> {
    this.checkId(id);
    return (await this.send<T>('getEnvelope', { params: { id }, signal })).data;
  }

  /**
   * Polls an envelope until its status is one of `until` (default: a final
   * state) or `timeoutMs` passes; returns the last envelope seen.
   */
  async waitForEnvelope<T extends { status?: unknown } = Record<string, unknown>>(
    id: string,
    options: { until?: readonly string[]; timeoutMs?: number; intervalMs?: number; signal?: AbortSignal | undefined } = {},
  ): Promise<{ envelope: T; reached: boolean }> {
    const until = options.until ?? FINAL_STATUSES;
    const deadline = this.clock.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const envelope = await this.getEnvelope<T>(id, options.signal);
      if (until.includes(String(envelope.status))) return { envelope, reached: true };
      if (this.clock.now() >= deadline) return { envelope, reached: false };
      await this.clock.sleep(options.intervalMs ?? 1000, options.signal);
    }
  }

  /** The account's API keys as the service lists them (SPEC §2.3), masked; field spellings normalised. */
  async listApiKeys(signal?: AbortSignal): Promise<ListedKey[]> {
    return normalizeListedKeys((await this.send<unknown>('listApiKeys', { signal })).data);
  }

  /** The signed copy (a PDF) of a completed envelope. */
  async downloadSignedCopy(id: string, signal?: AbortSignal): Promise<Buffer> {
    this.checkId(id);
    return (await this.send<Buffer>('downloadSignedCopy', { params: { id }, signal, binary: true, accept: 'application/pdf' })).data;
  }

  /** The audit trail of an envelope; check it with verifyAuditChain(). */
  async getAuditTrail(id: string, signal?: AbortSignal): Promise<AuditTrail> {
    this.checkId(id);
    const data = (await this.send<unknown>('getAuditTrail', { params: { id }, signal })).data;
    // Accept a bare list of entries as well as the sandbox's wrapped form.
    if (Array.isArray(data)) return { envelope_id: id, head_hash: (data.at(-1) as AuditEntry | undefined)?.hash ?? null, entries: data as AuditEntry[] };
    const body = (data ?? {}) as Partial<AuditTrail>;
    return { envelope_id: body.envelope_id ?? id, head_hash: body.head_hash ?? null, entries: Array.isArray(body.entries) ? body.entries : [] };
  }

  private checkId(id: string): void {
    if (id.trim() === '') throw new UsageError('envelope id must not be empty', { hint: 'pass the id printed by `envelopes create`' });
  }

  /** Sends one operation with pacing and retries; returns the parsed 2xx response or throws. */
  async send<T = unknown>(operation: Operation, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const endpoint = resolveEndpoint(operation, this.paths);
    const url = joinUrl(this.baseUrl, fillPath(endpoint.path, options.params));
    this.noteApiSegment(url);
    const headers: Record<string, string> = {
      accept: options.accept ?? 'application/json',
      'user-agent': this.userAgent,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const label = OPERATION_LABEL[operation];
    const keyed = options.idempotencyKey !== undefined;

    for (let attempt = 1; ; attempt++) {
      const retriesLeft = attempt <= this.policy.maxRetries;
      await this.pacer.acquire(options.signal);
      this.onTrace({ type: 'request', attempt, method: endpoint.method, url, headers: this.redacted(headers) });
      const started = this.clock.now();
      let response: Dispatcher.ResponseData;
      let raw: Buffer;
      try {
        response = await request(url, {
          method: endpoint.method,
          headers,
          body,
          dispatcher: this.dispatcher,
          signal: options.signal,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
        raw = Buffer.from(await response.body.arrayBuffer());
      } catch (error) {
        if (options.signal?.aborted) throw new InterruptedError();
        const code = errorCode(error);
        const reason = `${code ?? 'network error'}: ${(error as Error).message}`;
        if (code !== undefined && RETRYABLE_NETWORK_CODES.has(code) && retriesLeft) {
          const delayMs = backoffDelay(attempt, this.policy, this.random);
          this.onTrace({ type: 'retry', attempt, delayMs, source: 'backoff', reason });
          await this.clock.sleep(delayMs, options.signal);
          continue;
        }
        throw new NetworkError(`${label}: could not complete the request to ${new URL(url).origin} (${reason}) after ${attempt} attempt${attempt === 1 ? '' : 's'}`, code, {
          cause: error,
          hint: keyed
            ? `the envelope may or may not exist; re-run with --idempotency-key ${options.idempotencyKey} to finish without a duplicate`
            : 'check that the service is up and the base URL (--base-url, SIGN_BASE_URL) is right; `sign-cli sandbox` starts a local one',
        });
      }
      const responseHeaders = flattenHeaders(response.headers);
      this.onTrace({ type: 'response', attempt, status: response.statusCode, durationMs: this.clock.now() - started, headers: responseHeaders });

      if (response.statusCode >= 200 && response.statusCode < 300) {
        this.pacer.recordSuccess();
        return { status: response.statusCode, headers: responseHeaders, data: decodeBody(raw, responseHeaders, options.binary) as T, attempts: attempt };
      }

      if (isRetryableStatus(response.statusCode, keyed) && retriesLeft) {
        const delay = retryDelay(attempt, responseHeaders, this.clock.now(), this.policy, this.random);
        if (delay.delayMs <= this.policy.maxServerDelayMs) {
          this.onTrace({ type: 'retry', attempt, delayMs: delay.delayMs, source: delay.source, reason: `HTTP ${response.statusCode}` });
          // A 429 is about the shared limit: the pacer holds back every request, this one included.
          if (response.statusCode === 429) this.pacer.penalize(delay.delayMs);
          else await this.clock.sleep(delay.delayMs, options.signal);
          continue;
        }
      }
      throw this.errorFor(operation, response.statusCode, raw.toString('utf8'), responseHeaders, attempt, options.idempotencyKey);
    }
  }

  private noteApiSegment(url: string): void {
    if (this.notedApiSegment || !baseUrlEndsInApi(this.baseUrl)) return;
    this.notedApiSegment = true;
    this.onTrace({
      type: 'note',
      message: `base URL ${this.baseUrl} ends in /api, so requests go to ${new URL(url).pathname} with /api twice (SPEC §4.1: sent as is)`,
    });
  }

  private redacted(headers: Record<string, string>): Record<string, string> {
    if (!this.apiKey || headers.authorization === undefined) return { ...headers };
    return { ...headers, authorization: `Bearer ${maskKey(this.apiKey)}` };
  }

  private errorFor(
    operation: Operation,
    status: number,
    text: string,
    headers: Record<string, string | undefined>,
    attempts: number,
    idempotencyKey: string | undefined,
  ): Error {
    const label = OPERATION_LABEL[operation];
    const info = parseErrorBody(text, headers['content-type']);
    const server = [info.code, info.message].filter(Boolean).join(': ');
    const said = server ? ` ${server}` : '';
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    const key = this.keyLabel;
    const scope = resolveEndpoint(operation, this.paths).scope;
    if (status === 401) {
      return new AuthError(`${label}: HTTP 401${said}; the service did not accept the API key ${key}`, status, {
        hint: 'set a valid key with SIGN_API_KEY, --api-key-file or the active profile; it may be unknown, revoked or expired',
      });
    }
    if (status === 403) {
      return new AuthError(`${label}: HTTP 403${said}; the API key ${key} is not allowed to do this`, status, {
        hint: scope ? `use a key with the scope ${scope}` : 'use a key with the needed scope',
      });
    }
    let hint: string | undefined;
    if (status === 422 && /idempotency/i.test(`${info.code} ${info.message}`)) {
      hint = `the Idempotency-Key ${idempotencyKey ?? ''} was already used with another body; send the original body or use a new key`;
    } else if (status === 404) {
      hint = baseUrlEndsInApi(this.baseUrl)
        ? `the base URL ${this.baseUrl} ends in /api, so the path has /api twice; drop the trailing /api if the service does not expect it`
        : operation === 'createEnvelope' || operation === 'listApiKeys'
          ? 'check the base URL and the endpoint path (config paths)'
          : 'check the id, the base URL and the endpoint path';
    } else if (status === 429) {
      hint = 'the rate limit was still exceeded after retries; lower --rate or try again later';
    } else if (status >= 500) {
      hint = idempotencyKey
        ? `the service failed${tries}; re-run with --idempotency-key ${idempotencyKey} to retry without a duplicate`
        : 'the service failed; try again later';
    }
    return new ApiError(`${label}: HTTP ${status}${said}${tries}`, status, info.code, info.message, {
      ...(hint ? { hint } : {}),
      details: info.details,
    });
  }
}

function decodeBody(raw: Buffer, headers: Record<string, string | undefined>, binary?: boolean): unknown {
  if (binary) return raw;
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  if (/json/i.test(headers['content-type'] ?? '') || /^[[{]/.test(text.trim())) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
