/**
 * SignClient: the one way sign-cli talks to the service. It adds auth and
 * idempotency headers, paces requests under the rate limit, retries what is
 * safe to retry (always with the same Idempotency-Key), and turns failures
 * into the error hierarchy of errors.ts. No terminal I/O: callers observe it
 * through `onTrace`.
 */
import { rmSync } from 'node:fs';
import { Agent, request, type Dispatcher } from 'undici';
import type { AuditEntry } from './audit.js';
import { isWebhookDelivery, webhookUrlProblem, type DeliveryFilter, type DeliveryPage, type WebhookDelivery } from './deliveries.js';
import { systemClock, type Clock } from './clock.js';
import { baseUrlEndsInApi, fillPath, joinUrl, resolveEndpoint, type Operation, type PathOverrides } from './endpoints.js';
import { isRecord, validateEnvelope, type Envelope, type EnvelopeInput, type ValidateOptions } from './envelope.js';
import { normalizeEnvelope } from './normalize.js';
import { AnswerTooLargeError, MAX_FILE_BYTES, MAX_JSON_ANSWER_BYTES, readBounded, writeBounded, type FileAnswer } from './answer-body.js';
import {
  ApiError,
  AuthError,
  InterruptedError,
  NetworkError,
  StorageError,
  UnexpectedResponseError,
  UsageError,
  ValidationError,
  parseErrorBody,
} from './errors.js';
import { checkIdempotencyKey, contentHash, derivedIdempotencyKey, newIdempotencyKey } from './idempotency.js';
import { maskKey, normalizeListedKeys, redactSecrets, type ListedKey } from './keys.js';
import { RatePacer, type SharedBudget } from './pacing.js';
import { FINAL_STATUSES } from './states.js';
import { DEFAULT_RETRY_POLICY, decideRetry, type RetryPolicy, type DelaySource } from './retry.js';
import { describeNetworkError } from './network-errors.js';
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
  /** Share the rate with other processes too (core/shared-budget.ts); ignored when `pacer` is given. */
  sharedBudget?: SharedBudget | undefined;
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
  /**
   * Whether an earlier attempt of this call may have acted on the service: it
   * went out and no answer says it did nothing (a lost answer, a 5xx). A
   * replay after such an attempt may be of this call's own work.
   */
  earlierAttemptMayHaveActed: boolean;
}

export interface CreateEnvelopeResult<T = Envelope> {
  envelope: T;
  status: number;
  idempotencyKey: string;
  /** True when the service answered with the stored response of an earlier request with this key. */
  replayed: boolean;
  /**
   * True when the envelope existed before this call: a replay that no attempt
   * of this call can have caused (another run's request, or a re-run's). A
   * replay after this call's own lost answer is this call's creation.
   */
  existed: boolean;
  attempts: number;
}

export { FINAL_STATUSES } from './states.js';

/** Which envelopes a listing returns (docs/assumptions.md: SPEC.md shows no listing). */
export interface EnvelopeFilter {
  /** Any of these states. */
  status?: readonly string[];
  contractId?: string;
  /** Created at or after this time (ISO 8601). */
  createdAfter?: string;
}

/** One page of a listing, newest first. */
export interface EnvelopePage<T = Envelope> {
  envelopes: T[];
  hasMore: boolean;
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** The largest page the sandbox serves; a listing asks for no more. */
export const MAX_PAGE_SIZE = 100;

export interface AuditTrail {
  envelope_id: string;
  /** The sandbox says `sha256`; absent when the service does not say. */
  hash_algorithm?: string;
  head_hash: string | null;
  entries: AuditEntry[];
}

export interface RequestOptions {
  params?: Record<string, string>;
  /** Query string parameters; an array repeats the name, undefined leaves it out. */
  query?: Record<string, string | readonly string[] | undefined>;
  body?: unknown;
  idempotencyKey?: string;
  /** Aborts everything, the request on the wire included. */
  signal?: AbortSignal | undefined;
  /**
   * Stops sending: no new attempt starts once it aborts (a wait for a pacer
   * slot or a retry ends at once), but an attempt already on the wire is
   * awaited, so its outcome is known. Ctrl-C during a create.
   */
  stop?: AbortSignal | undefined;
  /** Called just before each attempt goes on the wire (the create journal records "sending" here). */
  beforeAttempt?: (attempt: number) => void;
  /** Read the body as bytes rather than JSON/text. */
  binary?: boolean;
  /**
   * Stream a 2xx body into this file (bounded, MAX_FILE_BYTES) instead of
   * memory; the answer's data is then a FileAnswer. Each attempt rewrites it.
   */
  toFile?: string;
  accept?: string;
}

/** Failures before a connection exists: the request cannot have reached the service. */
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);


const OPERATION_LABEL: Record<Operation, string> = {
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

/** Ctrl-C (or a caller's abort) during a request: says whether anything had gone on the wire. */
function interrupted(sent: boolean): InterruptedError {
  return new InterruptedError(sent ? 'interrupted' : 'interrupted before the request was sent', { sent });
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
    this.pacer = options.pacer ?? new RatePacer({ ratePerMinute: options.ratePerMinute, clock: this.clock, shared: options.sharedBudget });
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
  async createEnvelope<T extends Envelope = Envelope>(
    envelope: EnvelopeInput,
    options: {
      idempotencyKey?: string;
      signal?: AbortSignal | undefined;
      stop?: AbortSignal | undefined;
      beforeAttempt?: (attempt: number) => void;
      source?: string;
    } = {},
  ): Promise<CreateEnvelopeResult<T>> {
    // As a person means it: NFC, trimmed, e-mail domains in lower case (normalize.ts).
    envelope = normalizeEnvelope(envelope);
    const { errors } = validateEnvelope(envelope, this.validation);
    if (errors.length > 0) throw new ValidationError(options.source ?? 'envelope', errors);
    const idempotencyKey = options.idempotencyKey ? checkIdempotencyKey(options.idempotencyKey) : newIdempotencyKey();
    const response = await this.send<T>('createEnvelope', {
      body: envelope,
      idempotencyKey,
      signal: options.signal,
      stop: options.stop,
      ...(options.beforeAttempt ? { beforeAttempt: options.beforeAttempt } : {}),
    });
    // SPEC §4.1 does not show the response. A created envelope is a JSON object with an id, or
    // a Location header naming one; any other 2xx (an HTML page, an empty body) is not a success.
    const data = response.data as unknown;
    const location = response.headers.location?.split(/[?#]/, 1)[0]!.split('/').filter(Boolean).at(-1);
    const body = isRecord(data) ? data : undefined;
    const id = body && (typeof body.id === 'string' || typeof body.id === 'number') && String(body.id) !== '' ? body.id : undefined;
    if (id === undefined && !location) {
      throw this.unexpected('createEnvelope', response, 'an envelope (a JSON object with an id, or a Location header)', idempotencyKey);
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

  async getEnvelope<T extends Envelope = Envelope>(id: string, signal?: AbortSignal): Promise<T> {
    this.checkId(id);
    const response = await this.send<unknown>('getEnvelope', { params: { id }, signal });
    if (!isRecord(response.data) || response.data.id === undefined || response.data.id === null) {
      throw this.unexpected('getEnvelope', response, 'an envelope (a JSON object with an id)');
    }
    return response.data as T;
  }

  /**
   * Polls an envelope until its status is one of `until` (default: a final
   * state) or `timeoutMs` passes; returns the last envelope seen.
   */
  async waitForEnvelope<T extends Envelope = Envelope>(
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

  /** One page of envelopes, newest first; see {@link envelopes} to follow the cursor. */
  async listEnvelopes<T extends Envelope = Envelope>(
    filter: EnvelopeFilter = {},
    options: { limit?: number; cursor?: string | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<EnvelopePage<T>> {
    const response = await this.send<unknown>('listEnvelopes', {
      query: {
        status: filter.status,
        contract_id: filter.contractId,
        created_after: filter.createdAfter,
        limit: options.limit === undefined ? undefined : String(options.limit),
        cursor: options.cursor,
      },
      signal: options.signal,
    });
    const data = response.data;
    // The sandbox's shape ({object: "list", data, has_more, next_cursor}), or a bare array (one page, nothing more).
    if (Array.isArray(data) && data.every(isRecord)) return { envelopes: data as T[], hasMore: false, nextCursor: null };
    if (!isRecord(data) || !Array.isArray(data.data) || !data.data.every(isRecord)) {
      throw this.unexpected('listEnvelopes', response, 'a list of envelopes (a JSON object with data)');
    }
    const cursor = typeof data.next_cursor === 'string' && data.next_cursor !== '' ? data.next_cursor : null;
    const hasMore = data.has_more === true;
    // More pages with no way to ask for them would be an endless loop or a silent cut: neither.
    if (hasMore && cursor === null) throw this.unexpected('listEnvelopes', response, 'a next_cursor with has_more');
    return { envelopes: data.data as T[], hasMore, nextCursor: cursor };
  }

  /**
   * Every envelope matching `filter`, newest first, following the cursor page
   * by page: only one page is held at a time, so any number lists in constant
   * memory. Stops after `limit` envelopes when given.
   */
  envelopes<T extends Envelope = Envelope>(
    filter: EnvelopeFilter = {},
    options: { limit?: number; pageSize?: number; signal?: AbortSignal | undefined } = {},
  ): AsyncGenerator<T, void, undefined> {
    return follow('listEnvelopes', options, async (limit, cursor) => {
      const page = await this.listEnvelopes<T>(filter, { limit, cursor, signal: options.signal });
      return { items: page.envelopes, hasMore: page.hasMore, nextCursor: page.nextCursor };
    });
  }

  /**
   * One page of webhook deliveries (each with its attempts), newest first;
   * see {@link deliveries} to follow the cursor. `status` takes the states of
   * DELIVERY_STATES (`failed`, `retrying`, …).
   */
  async listDeliveries(
    filter: DeliveryFilter = {},
    options: { limit?: number; cursor?: string | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<DeliveryPage> {
    const response = await this.send<unknown>('listDeliveries', {
      query: {
        envelope_id: filter.envelopeId,
        status: filter.status && filter.status.length > 0 ? filter.status.join(',') : undefined,
        limit: options.limit === undefined ? undefined : String(options.limit),
        cursor: options.cursor,
      },
      signal: options.signal,
    });
    const data = response.data;
    if (Array.isArray(data) && data.every(isWebhookDelivery)) return { deliveries: data, hasMore: false, nextCursor: null };
    if (!isRecord(data) || !Array.isArray(data.data) || !data.data.every(isWebhookDelivery)) {
      throw this.unexpected('listDeliveries', response, 'a list of webhook deliveries (a JSON object with data, each with an id and an event_id)');
    }
    const cursor = typeof data.next_cursor === 'string' && data.next_cursor !== '' ? data.next_cursor : null;
    const hasMore = data.has_more === true;
    if (hasMore && cursor === null) throw this.unexpected('listDeliveries', response, 'a next_cursor with has_more');
    return { deliveries: data.data, hasMore, nextCursor: cursor };
  }

  /** Every delivery matching `filter`, newest first, page by page (constant memory); at most `limit`. */
  deliveries(
    filter: DeliveryFilter = {},
    options: { limit?: number; pageSize?: number; signal?: AbortSignal | undefined } = {},
  ): AsyncGenerator<WebhookDelivery, void, undefined> {
    return follow('listDeliveries', options, async (limit, cursor) => {
      const page = await this.listDeliveries(filter, { limit, cursor, signal: options.signal });
      return { items: page.deliveries, hasMore: page.hasMore, nextCursor: page.nextCursor };
    });
  }

  /**
   * Asks the service to deliver an event again: a new delivery of the same
   * body under the same `webhook-id` (so receivers de-duplicate it), with a
   * fresh timestamp and signature, to the event's URL or to `to`. A resend is
   * deliberately repeatable, so each call gets a fresh random Idempotency-Key
   * (unless one is given), the same on every retry of that call.
   */
  async resendEvent(
    eventId: string,
    options: { to?: string | undefined; idempotencyKey?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<WebhookDelivery> {
    if (eventId.trim() === '') throw new UsageError('event id must not be empty', { hint: 'pass an event id (evt_…) shown by `sign-cli webhooks deliveries`' });
    const problem = options.to === undefined ? undefined : webhookUrlProblem(options.to);
    if (problem) throw new UsageError(`--to ${problem}`);
    const idempotencyKey = options.idempotencyKey ? checkIdempotencyKey(options.idempotencyKey) : newIdempotencyKey();
    const response = await this.send<unknown>('resendEvent', {
      params: { id: eventId },
      body: options.to === undefined ? {} : { to: options.to },
      idempotencyKey,
      signal: options.signal,
    });
    if (!isWebhookDelivery(response.data)) throw this.unexpected('resendEvent', response, 'the new delivery (a JSON object with an id and an event_id)');
    return response.data;
  }

  /**
   * Voids an envelope still under way. The Idempotency-Key is derived from the
   * id and the reason, so a retry or a re-run after a lost answer gets the
   * first answer back rather than a 409.
   */
  async voidEnvelope<T extends Envelope = Envelope>(
    id: string,
    reason: string,
    options: { idempotencyKey?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<T> {
    this.checkId(id);
    if (reason.trim() === '') throw new UsageError('a reason is required to void an envelope', { hint: 'pass --reason "<why>"' });
    const idempotencyKey = options.idempotencyKey ? checkIdempotencyKey(options.idempotencyKey) : derivedIdempotencyKey(contentHash({ void: id, reason }));
    const response = await this.send<unknown>('voidEnvelope', { params: { id }, body: { reason }, idempotencyKey, signal: options.signal });
    if (!isRecord(response.data) || response.data.id === undefined || response.data.id === null) {
      throw this.unexpected('voidEnvelope', response, 'the voided envelope (a JSON object with an id)', idempotencyKey);
    }
    return response.data as T;
  }

  /** The account's API keys as the service lists them (SPEC §2.3), masked; field spellings normalised. */
  async listApiKeys(signal?: AbortSignal): Promise<ListedKey[]> {
    const response = await this.send<unknown>('listApiKeys', { signal });
    const keys = normalizeListedKeys(response.data);
    if (keys === undefined) throw this.unexpected('listApiKeys', response, 'a JSON list of API keys');
    return keys;
  }

  /** The signed copy (a PDF) of a completed envelope. */
  async downloadSignedCopy(id: string, signal?: AbortSignal): Promise<Buffer> {
    this.checkId(id);
    const response = await this.send<Buffer>('downloadSignedCopy', { params: { id }, signal, binary: true, accept: 'application/pdf' });
    // A PDF starts with its header (ISO 32000: "%PDF-" within the first 1024 bytes) and ends with %%EOF.
    const pdf = response.data;
    const header = pdf.subarray(0, 1024).indexOf('%PDF-');
    if (header < 0 || !pdf.subarray(-1024).includes('%%EOF')) {
      throw this.unexpected('downloadSignedCopy', { ...response, data: pdf.subarray(0, 200).toString('utf8') }, 'a PDF');
    }
    return pdf;
  }

  /**
   * Streams the signed copy into `path` (never held in memory; refused past
   * MAX_FILE_BYTES), then checks it is a PDF; a file that is not one is
   * removed. The caller renames it into place.
   */
  async downloadSignedCopyTo(id: string, path: string, signal?: AbortSignal): Promise<FileAnswer> {
    this.checkId(id);
    const response = await this.send<FileAnswer>('downloadSignedCopy', { params: { id }, signal, binary: true, accept: 'application/pdf', toFile: path });
    const file = response.data;
    if (file.head.indexOf('%PDF-') < 0 || !file.tail.includes('%%EOF')) {
      rmSync(path, { force: true });
      throw this.unexpected('downloadSignedCopy', { ...response, data: file.head.subarray(0, 200).toString('utf8') }, 'a PDF');
    }
    return file;
  }

  /** The audit trail of an envelope; check it with verifyAuditChain(). */
  async getAuditTrail(id: string, signal?: AbortSignal): Promise<AuditTrail> {
    this.checkId(id);
    const response = await this.send<unknown>('getAuditTrail', { params: { id }, signal });
    const data = response.data;
    // Accept a bare list of entries as well as the sandbox's wrapped form; anything else is not a trail.
    // A bare list carries no head hash of its own: its last entry's would vouch for itself.
    if (Array.isArray(data)) return { envelope_id: id, head_hash: null, entries: data as AuditEntry[] };
    if (!isRecord(data) || !Array.isArray(data.entries)) throw this.unexpected('getAuditTrail', response, 'an audit trail (a JSON object with entries)');
    // Fields the service adds (hash_algorithm, …) are kept: `audit --json` shows the trail as served.
    const body = data as Partial<AuditTrail> & Record<string, unknown>;
    return { ...body, envelope_id: body.envelope_id ?? id, head_hash: typeof body.head_hash === 'string' ? body.head_hash : null, entries: body.entries! };
  }

  private checkId(id: string): void {
    if (id.trim() === '') throw new UsageError('envelope id must not be empty', { hint: 'pass the id printed by `envelopes create`' });
  }

  /** Sends one operation with pacing and retries; returns the parsed 2xx response or throws. */
  async send<T = unknown>(operation: Operation, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const endpoint = resolveEndpoint(operation, this.paths);
    const url = withQuery(joinUrl(this.baseUrl, fillPath(endpoint.path, options.params)), options.query);
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

    const stop = options.stop;
    const waitSignal = stop && options.signal ? AbortSignal.any([stop, options.signal]) : (stop ?? options.signal);
    /** Whether any attempt may have reached the service (anything but a failure to connect). */
    let sent = false;
    let mayHaveActed = false;
    const stopped = () => stop?.aborted === true || options.signal?.aborted === true;

    for (let attempt = 1; ; attempt++) {
      try {
        await this.pacer.acquire(waitSignal);
      } catch (error) {
        throw stopped() ? interrupted(sent) : error;
      }
      if (stopped()) throw interrupted(sent);
      options.beforeAttempt?.(attempt);
      this.onTrace({ type: 'request', attempt, method: endpoint.method, url, headers: this.redacted(headers) });
      const started = this.clock.now();
      // --timeout bounds the attempt whole: connect, headers and the body, however slowly it trickles.
      const deadline = AbortSignal.timeout(this.timeoutMs);
      const attemptSignal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      let response: Dispatcher.ResponseData;
      let raw: Buffer | undefined;
      let file: FileAnswer | undefined;
      try {
        response = await request(url, {
          method: endpoint.method,
          headers,
          body,
          dispatcher: this.dispatcher,
          signal: attemptSignal,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
        const length = response.headers['content-length'];
        if (options.toFile && response.statusCode >= 200 && response.statusCode < 300) file = await writeBounded(response.body, length, options.toFile);
        else raw = await readBounded(response.body, length, options.binary && response.statusCode < 300 ? MAX_FILE_BYTES : MAX_JSON_ANSWER_BYTES);
      } catch (error) {
        // An answer past the bound is not an answer to wait for again: refused, whatever its status.
        if (error instanceof AnswerTooLargeError) {
          throw new UnexpectedResponseError(`${label}: ${error.message}, far more than it can be`, 0, undefined, {
            hint: `is ${this.baseUrl} the signing service? check --base-url, SIGN_BASE_URL or the profile's base URL`,
          });
        }
        if (error instanceof StorageError) throw error;
        const timedOut = deadline.aborted && options.signal?.aborted !== true;
        const code = timedOut ? 'ETIMEDOUT' : errorCode(error);
        if (code === undefined || !NOT_CONNECTED_CODES.has(code)) {
          sent = true;
          // It went out and no answer came back: it may have done its work.
          mayHaveActed = true;
        }
        if (options.signal?.aborted) throw new InterruptedError('interrupted', { sent });
        const reason = timedOut ? `no complete answer within ${this.timeoutMs / 1000} s` : describeNetworkError(code, (error as Error).message, url);
        const decision = decideRetry({ kind: 'network', code }, attempt, this.policy, this.clock.now(), this.random);
        if (decision.retry && !stopped()) {
          this.onTrace({ type: 'retry', attempt, delayMs: decision.delayMs, source: decision.source, reason });
          await this.sleepUnlessStopped(decision.delayMs, waitSignal, sent);
          continue;
        }
        const tries = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
        if (!sent) {
          throw new NetworkError(`${label}: could not connect to ${new URL(url).origin} (${reason}); nothing was sent (${tries})`, code, {
            cause: error,
            nothingSent: true,
            hint: 'check that the service is up and the base URL (--base-url, SIGN_BASE_URL) is right; `sign-cli sandbox` starts a local one',
          });
        }
        throw new NetworkError(`${label}: could not complete the request to ${new URL(url).origin} (${reason}) after ${tries}`, code, {
          cause: error,
          hint: operation === 'resendEvent'
            ? 'the resend may or may not have been queued; `sign-cli webhooks deliveries` shows whether it was'
            : keyed
            ? `the envelope may or may not exist; sending it again with Idempotency-Key ${options.idempotencyKey} finishes it without a duplicate`
            : 'check that the service is up and the base URL (--base-url, SIGN_BASE_URL) is right; `sign-cli sandbox` starts a local one',
        });
      }
      sent = true;
      const responseHeaders = flattenHeaders(response.headers);
      this.onTrace({ type: 'response', attempt, status: response.statusCode, durationMs: this.clock.now() - started, headers: responseHeaders });
      this.pacer.observe(responseHeaders);

      if (response.statusCode >= 200 && response.statusCode < 300) {
        return {
          status: response.statusCode,
          headers: responseHeaders,
          data: (file ?? decodeBody(raw!, responseHeaders, options.binary)) as T,
          attempts: attempt,
          earlierAttemptMayHaveActed: mayHaveActed,
        };
      }

      // Not a 2xx: the body was read into memory (only a 2xx goes to a file).
      const errorBody = raw ?? Buffer.alloc(0);
      // A 409 about the state of things (voiding a completed envelope) will not change; only "same key in flight" will.
      const finalConflict = response.statusCode === 409 && !isInFlightConflict(responseHeaders, errorBody);
      // A 5xx (or 408, 425) says nothing of what was done; a 429 or an in-flight 409 says nothing was.
      if (response.statusCode >= 500 || response.statusCode === 408 || response.statusCode === 425) mayHaveActed = true;
      const decision = decideRetry(
        { kind: 'response', status: response.statusCode, headers: responseHeaders, keyed, finalConflict },
        attempt,
        this.policy,
        this.clock.now(),
        this.random,
      );
      if (decision.retry && !stopped()) {
        this.onTrace({ type: 'retry', attempt, delayMs: decision.delayMs, source: decision.source, reason: `HTTP ${response.statusCode}` });
        // A 429 is about the shared limit: the pacer holds back every request, this one included.
        if (response.statusCode === 429) this.pacer.penalize(decision.delayMs);
        else await this.sleepUnlessStopped(decision.delayMs, waitSignal, sent);
        continue;
      }
      throw this.errorFor(operation, response.statusCode, errorBody.toString('utf8'), responseHeaders, attempt, options.idempotencyKey);
    }
  }

  /** A wait between attempts; an interrupt ends it and the request (nothing new is sent). */
  private async sleepUnlessStopped(ms: number, signal: AbortSignal | undefined, sent: boolean): Promise<void> {
    try {
      await this.clock.sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw interrupted(sent);
      throw error;
    }
  }

  /** Text from the server with the API key masked, whole or without its prefix. */
  private scrub(text: string): string {
    return this.apiKey ? redactSecrets(text, [this.apiKey]) : text;
  }

  /** A 2xx that is not what `operation` returns: what came back, and what to check. */
  private unexpected(operation: Operation, response: ApiResponse<unknown>, expected: string, idempotencyKey?: string): UnexpectedResponseError {
    const contentType = response.headers['content-type'];
    const data = typeof response.data === 'string' ? this.scrub(response.data) : response.data;
    const sample =
      data === undefined ? 'an empty body'
      : typeof data === 'string' ? `${JSON.stringify(data.replace(/\s+/g, ' ').trim().slice(0, 60))}${data.length > 60 ? '…' : ''}`
      : Array.isArray(data) ? 'a JSON array'
      : isRecord(data) ? `a JSON object without the expected fields (${Object.keys(data).slice(0, 5).join(', ') || 'empty'})`
      : `the JSON value ${JSON.stringify(data).slice(0, 40)}`;
    const key = idempotencyKey ? `; it was sent with Idempotency-Key ${idempotencyKey}: sending it again with that key cannot create a duplicate` : '';
    return new UnexpectedResponseError(
      `${OPERATION_LABEL[operation]}: HTTP ${response.status} (${contentType ?? 'no content type'}) with ${sample}, not ${expected}`,
      response.status,
      contentType,
      { hint: `is ${this.baseUrl} the signing service? check --base-url, SIGN_BASE_URL or the profile's base URL${key}` },
    );
  }

  private noteApiSegment(url: string): void {
    if (this.notedApiSegment || !baseUrlEndsInApi(this.baseUrl)) return;
    this.notedApiSegment = true;
    this.onTrace({
      type: 'note',
      message: `base URL ${this.baseUrl} ends in /api, so requests go to ${new URL(url).pathname} with /api twice (paths are appended to the base URL as they are)`,
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
    // A server may echo the key it was sent (whole, or without its prefix): errors never carry it.
    const info = parseErrorBody(this.scrub(text), headers['content-type']);
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
        : operation === 'createEnvelope' || operation === 'listApiKeys' || operation === 'listDeliveries'
          ? 'check the base URL and the endpoint path (config paths)'
          : operation === 'resendEvent'
            ? 'check the event id (`sign-cli webhooks deliveries` lists the events delivered), the base URL and the endpoint path'
            : 'check the id, the base URL and the endpoint path';
    } else if (status === 409 && operation === 'voidEnvelope') {
      hint = 'only an envelope still under way can be voided; check its state with `sign-cli envelopes get`';
    } else if (status === 409 && operation === 'downloadSignedCopy') {
      hint = 'the envelope is not completed yet; add --wait to wait for it (or check its state with `sign-cli envelopes get`)';
    } else if (status === 429) {
      hint = 'the rate limit was still exceeded after retries; lower --rate or try again later';
    } else if (status >= 500) {
      hint = operation === 'resendEvent'
        ? `the service failed${tries}; the resend may or may not have been queued: \`sign-cli webhooks deliveries\` shows whether it was`
        : operation === 'voidEnvelope'
        ? `the service failed${tries}; re-running the same command is safe (it sends the same Idempotency-Key)`
        : idempotencyKey
        ? `the service failed${tries}; sending it again with Idempotency-Key ${idempotencyKey} cannot create a duplicate`
        : 'the service failed; try again later';
    }
    return new ApiError(`${label}: HTTP ${status}${said}${tries}`, status, info.code, info.message, {
      ...(hint ? { hint } : {}),
      details: info.details,
    });
  }
}

/**
 * A 409 that says "a request with this Idempotency-Key is still being
 * processed" (the IETF draft's conflict): it carries a Retry-After, or says so
 * in its body. Any other 409 is about the resource and is final.
 */
function isInFlightConflict(headers: Record<string, string | undefined>, raw: Buffer): boolean {
  if (headers['retry-after'] !== undefined) return true;
  return /idempot|in[ _-]?flight|in[ _-]?progress|concurren|being processed/i.test(raw.subarray(0, 2048).toString('utf8'));
}

/**
 * Follows a cursor page by page, yielding items; only one page is held at a
 * time, so any number lists in constant memory. Stops after `limit` items.
 */
async function* follow<T>(
  operation: Operation,
  options: { limit?: number; pageSize?: number },
  fetchPage: (limit: number, cursor: string | undefined) => Promise<{ items: T[]; hasMore: boolean; nextCursor: string | null }>,
): AsyncGenerator<T, void, undefined> {
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  let cursor: string | undefined;
  const seen = new Set<string>();
  while (left > 0) {
    const page = await fetchPage(Math.min(options.pageSize ?? MAX_PAGE_SIZE, left), cursor);
    for (const item of page.items.slice(0, left)) yield item;
    left -= page.items.length;
    if (!page.hasMore || page.nextCursor === null) return;
    // A service handing back a cursor it gave before would page forever.
    if (seen.has(page.nextCursor)) throw new UnexpectedResponseError(`${OPERATION_LABEL[operation]}: the service returned the cursor ${page.nextCursor.slice(0, 40)} twice`, 200, undefined, { hint: 'the listing is not advancing; report it to the service' });
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}

function withQuery(url: string, query: RequestOptions['query']): string {
  if (!query) return url;
  const parsed = new URL(url);
  for (const [name, value] of Object.entries(query)) {
    for (const item of value === undefined ? [] : typeof value === 'string' ? [value] : value) parsed.searchParams.append(name, item);
  }
  return parsed.toString();
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
