/**
 * SignClient: the one way sign-cli talks to the service, as a library too.
 * Resource methods (create, get, list, void, keys, deliveries, the signed
 * copy, the audit trail) over one transport (transport.ts) that adds auth and
 * idempotency headers, paces requests under the rate limit and retries what
 * is safe to retry. Answers that are not what was asked for become errors
 * (answer-errors.ts). No terminal I/O: callers observe it through `onTrace`.
 */
import { rmSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import { proxyFor, proxyVariable, showProxyUrl } from './proxy.js';
import { createDispatcher } from './proxy-dispatcher.js';
import type { FileAnswer } from './answer-body.js';
import { unexpectedAnswer } from './answer-errors.js';
import type { AuditEntry } from './audit.js';
import {
  isWebhookDelivery,
  webhookUrlProblem,
  type DeliveryFilter,
  type DeliveryPage,
  type WebhookDelivery,
} from './deliveries.js';
import { systemClock, type Clock } from './clock.js';
import type { Operation } from './endpoints.js';
import {
  isRecord,
  validateEnvelope,
  type Envelope,
  type EnvelopeInput,
  type ValidateOptions,
} from './envelope.js';
import { UnexpectedResponseError, UsageError, ValidationError } from './errors.js';
import { checkIdempotencyKey, contentHash, derivedIdempotencyKey, newIdempotencyKey } from './idempotency.js';
import { maskKey, normalizeListedKeys, type ListedKey } from './keys.js';
import { normalizeEnvelope } from './normalize.js';
import { RatePacer } from './pacing.js';
import { follow } from './pages.js';
import { DEFAULT_RETRY_POLICY } from './retry.js';
import { FINAL_STATUSES } from './states.js';
import { Transport, type ApiResponse, type RawRequest, type RequestOptions } from './transport.js';
import { USER_AGENT } from './version.js';

export type { ApiResponse, RawRequest, RequestOptions, TraceEvent } from './transport.js';
export type {
  AuditTrail,
  CreateEnvelopeResult,
  EnvelopeFilter,
  EnvelopePage,
  SignClientOptions,
} from './client-types.js';
import type {
  AuditTrail,
  CreateEnvelopeResult,
  EnvelopeFilter,
  EnvelopePage,
  SignClientOptions,
} from './client-types.js';
export { MAX_PAGE_SIZE } from './pages.js';
export { FINAL_STATUSES } from './states.js';

export class SignClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly clock: Clock;
  private readonly validation: ValidateOptions;

  constructor(options: SignClientOptions) {
    this.baseUrl = options.baseUrl;
    const timeoutMs = options.timeoutMs ?? 30_000;
    this.clock = options.clock ?? systemClock;
    this.validation = options.validation ?? {};
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      createDispatcher(options.proxy ?? {}, {
        connectMs: timeoutMs,
        headersMs: timeoutMs,
        bodyMs: timeoutMs,
      });
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      keyLabel: options.keyLabel ?? (options.apiKey ? maskKey(options.apiKey) : '(none)'),
      timeoutMs,
      policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      pacer:
        options.pacer ??
        new RatePacer({
          ratePerMinute: options.ratePerMinute,
          clock: this.clock,
          shared: options.sharedBudget,
        }),
      clock: this.clock,
      random: options.random ?? Math.random,
      paths: options.paths ?? {},
      userAgent: options.userAgent ?? USER_AGENT,
      dispatcher: this.dispatcher,
      onTrace: options.onTrace ?? (() => {}),
    });
    const proxy = options.dispatcher ? undefined : proxyFor(options.baseUrl, options.proxy ?? {});
    if (proxy)
      options.onTrace?.({
        type: 'note',
        message: `requests go through the proxy ${showProxyUrl(proxy)} (${proxyVariable(options.baseUrl)})`,
      });
  }

  /** Sends one operation with pacing and retries; returns the parsed 2xx response or throws (transport.ts). */
  send<T = unknown>(operation: Operation, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    return this.transport.send<T>(operation, options);
  }

  /** A 2xx that is not what `operation` returns. */
  private unexpected(
    operation: Operation,
    response: ApiResponse<unknown>,
    expected: string,
    idempotencyKey?: string,
  ): UnexpectedResponseError {
    return unexpectedAnswer(this.transport.answers, operation, response, expected, idempotencyKey);
  }

  /**
   * Any method and path under the base URL, with the key, pacing and retries
   * (the same Idempotency-Key on every attempt, if one is given); resolves with
   * the final answer whatever its status, its body as bytes (`sign-cli api`).
   */
  request(
    request: RawRequest,
    options: Pick<RequestOptions, 'query' | 'idempotencyKey' | 'signal' | 'stop'> = {},
  ): Promise<ApiResponse<Buffer>> {
    return this.transport.sendRaw(request, options);
  }

  /** Text from the service with this client's key masked, whole or without its prefix. */
  scrub(text: string): string {
    return this.transport.scrub(text);
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
    // As a person means it, and only a valid envelope leaves, whoever calls: the CLI did both
    // already (a second pass is idempotent and cheap; why: normalize.ts).
    envelope = normalizeEnvelope(envelope);
    const { errors } = validateEnvelope(envelope, this.validation);
    if (errors.length > 0) throw new ValidationError(options.source ?? 'envelope', errors);
    const idempotencyKey = options.idempotencyKey
      ? checkIdempotencyKey(options.idempotencyKey)
      : newIdempotencyKey();
    const response = await this.send<T>('createEnvelope', {
      body: envelope,
      idempotencyKey,
      signal: options.signal,
      stop: options.stop,
      ...(options.beforeAttempt ? { beforeAttempt: options.beforeAttempt } : {}),
    });
    // The published interface does not show the response (docs/service.md, Envelope). A created
    // envelope is a JSON object with an id, or a Location header naming one; any other 2xx (an
    // HTML page, an empty body) is not a success.
    const data = response.data as unknown;
    const location = response.headers.location?.split(/[?#]/, 1)[0]!.split('/').filter(Boolean).at(-1);
    const body = isRecord(data) ? data : undefined;
    const id =
      body && (typeof body.id === 'string' || typeof body.id === 'number') && String(body.id) !== ''
        ? body.id
        : undefined;
    if (id === undefined && !location) {
      throw this.unexpected(
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
    options: {
      until?: readonly string[];
      timeoutMs?: number;
      intervalMs?: number;
      signal?: AbortSignal | undefined;
    } = {},
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
    if (Array.isArray(data) && data.every(isRecord))
      return { envelopes: data as T[], hasMore: false, nextCursor: null };
    if (!isRecord(data) || !Array.isArray(data.data) || !data.data.every(isRecord)) {
      throw this.unexpected('listEnvelopes', response, 'a list of envelopes (a JSON object with data)');
    }
    const cursor = typeof data.next_cursor === 'string' && data.next_cursor !== '' ? data.next_cursor : null;
    const hasMore = data.has_more === true;
    // More pages with no way to ask for them would be an endless loop or a silent cut: neither.
    if (hasMore && cursor === null)
      throw this.unexpected('listEnvelopes', response, 'a next_cursor with has_more');
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
    if (Array.isArray(data) && data.every(isWebhookDelivery))
      return { deliveries: data, hasMore: false, nextCursor: null };
    if (!isRecord(data) || !Array.isArray(data.data) || !data.data.every(isWebhookDelivery)) {
      throw this.unexpected(
        'listDeliveries',
        response,
        'a list of webhook deliveries (a JSON object with data, each with an id and an event_id)',
      );
    }
    const cursor = typeof data.next_cursor === 'string' && data.next_cursor !== '' ? data.next_cursor : null;
    const hasMore = data.has_more === true;
    if (hasMore && cursor === null)
      throw this.unexpected('listDeliveries', response, 'a next_cursor with has_more');
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
    if (eventId.trim() === '')
      throw new UsageError('event id must not be empty', {
        hint: 'give an event id (evt_…) from the deliveries listing',
        reason: 'empty_event_id',
      });
    const problem = options.to === undefined ? undefined : webhookUrlProblem(options.to);
    if (problem)
      throw new UsageError(`to ${problem}`, { reason: 'bad_resend_target', reasonData: { problem } });
    const idempotencyKey = options.idempotencyKey
      ? checkIdempotencyKey(options.idempotencyKey)
      : newIdempotencyKey();
    const response = await this.send<unknown>('resendEvent', {
      params: { id: eventId },
      body: options.to === undefined ? {} : { to: options.to },
      idempotencyKey,
      signal: options.signal,
    });
    if (!isWebhookDelivery(response.data))
      throw this.unexpected(
        'resendEvent',
        response,
        'the new delivery (a JSON object with an id and an event_id)',
      );
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
    if (reason.trim() === '')
      throw new UsageError('a reason is required to void an envelope', {
        hint: 'say why it is voided',
        reason: 'reason_required',
      });
    const idempotencyKey = options.idempotencyKey
      ? checkIdempotencyKey(options.idempotencyKey)
      : derivedIdempotencyKey(contentHash({ void: id, reason }));
    const response = await this.send<unknown>('voidEnvelope', {
      params: { id },
      body: { reason },
      idempotencyKey,
      signal: options.signal,
    });
    if (!isRecord(response.data) || response.data.id === undefined || response.data.id === null) {
      throw this.unexpected(
        'voidEnvelope',
        response,
        'the voided envelope (a JSON object with an id)',
        idempotencyKey,
      );
    }
    return response.data as T;
  }

  /** The account's API keys as the service lists them (docs/service.md), masked; field spellings normalised. */
  async listApiKeys(signal?: AbortSignal): Promise<ListedKey[]> {
    const response = await this.send<unknown>('listApiKeys', { signal });
    const keys = normalizeListedKeys(response.data);
    if (keys === undefined) throw this.unexpected('listApiKeys', response, 'a JSON list of API keys');
    return keys;
  }

  /** The signed copy (a PDF) of a completed envelope. */
  async downloadSignedCopy(id: string, signal?: AbortSignal): Promise<Buffer> {
    this.checkId(id);
    const response = await this.send<Buffer>('downloadSignedCopy', {
      params: { id },
      signal,
      binary: true,
      accept: 'application/pdf',
    });
    // A PDF starts with its header (ISO 32000: "%PDF-" within the first 1024 bytes) and ends with %%EOF.
    const pdf = response.data;
    const header = pdf.subarray(0, 1024).indexOf('%PDF-');
    if (header < 0 || !pdf.subarray(-1024).includes('%%EOF')) {
      throw this.unexpected(
        'downloadSignedCopy',
        { ...response, data: pdf.subarray(0, 200).toString('utf8') },
        'a PDF',
      );
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
    const response = await this.send<FileAnswer>('downloadSignedCopy', {
      params: { id },
      signal,
      binary: true,
      accept: 'application/pdf',
      toFile: path,
    });
    const file = response.data;
    if (file.head.indexOf('%PDF-') < 0 || !file.tail.includes('%%EOF')) {
      rmSync(path, { force: true });
      throw this.unexpected(
        'downloadSignedCopy',
        { ...response, data: file.head.subarray(0, 200).toString('utf8') },
        'a PDF',
      );
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
    if (!isRecord(data) || !Array.isArray(data.entries))
      throw this.unexpected('getAuditTrail', response, 'an audit trail (a JSON object with entries)');
    // Fields the service adds (hash_algorithm, …) are kept: `audit --json` shows the trail as served.
    const body = data as Partial<AuditTrail> & Record<string, unknown>;
    return {
      ...body,
      envelope_id: body.envelope_id ?? id,
      head_hash: typeof body.head_hash === 'string' ? body.head_hash : null,
      entries: body.entries!,
    };
  }

  private checkId(id: string): void {
    if (id.trim() === '')
      throw new UsageError('envelope id must not be empty', {
        hint: 'give the id the service returned when the envelope was created',
      });
  }
}
