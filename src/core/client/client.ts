/**
 * SignClient: the one way sign-cli talks to the service, as a library too.
 * Resource methods (create, get, list, void, keys, deliveries, the signed
 * copy, the audit trail) over one transport (transport.ts) that adds auth and
 * idempotency headers, paces requests under the rate limit and retries what
 * is safe to retry (set up by client-transport.ts). Requests are checked and
 * spelled by client-requests.ts, answers read by client-answers.ts; those not
 * what was asked for become errors (answer-errors.ts). No terminal I/O:
 * callers observe it through `onTrace`.
 */
import { rmSync } from 'node:fs';
import type { Dispatcher } from 'undici';
import type { FileAnswer } from './answer-body.js';
import { unexpectedAnswer } from './answer-errors.js';
import { auditTrail, createdEnvelope, deliveryPage, envelopePage, signedCopy } from './client-answers.js';
import {
  checkEnvelopeId,
  checkEventId,
  checkResendTarget,
  checkVoidReason,
  deliveryQuery,
  envelopeQuery,
} from './client-requests.js';
import { clientTransport } from './client-transport.js';
import {
  isWebhookDelivery,
  type DeliveryFilter,
  type DeliveryPage,
  type WebhookDelivery,
} from '../webhooks/deliveries.js';
import type { Clock } from '../clock.js';
import type { Operation } from '../endpoints.js';
import { isRecord, validateEnvelope, type ValidateOptions } from '../envelope/envelope.js';
import type { Envelope, EnvelopeInput } from '../envelope/schema.js';
import { UnexpectedResponseError, ValidationError } from '../errors.js';
import { checkIdempotencyKey, contentHash, derivedIdempotencyKey, newIdempotencyKey } from './idempotency.js';
import { normalizeListedKeys, type ListedKey } from '../keys.js';
import { normalizeEnvelope } from '../envelope/normalize.js';
import { follow } from './pages.js';
import { FINAL_STATUSES } from '../envelope/states.js';
import type { Transport, ApiResponse, RawRequest, RequestOptions } from './transport.js';

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
export { FINAL_STATUSES } from '../envelope/states.js';

export class SignClient {
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly clock: Clock;
  private readonly validation: ValidateOptions;

  constructor(options: SignClientOptions) {
    this.baseUrl = options.baseUrl;
    this.validation = options.validation ?? {};
    const setup = clientTransport(options);
    this.transport = setup.transport;
    this.dispatcher = setup.dispatcher;
    this.ownsDispatcher = setup.ownsDispatcher;
    this.clock = setup.clock;
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
      beforeAttempt?: (attempt: number) => void | Promise<void>;
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
    return createdEnvelope<T>(this.transport.answers, response, idempotencyKey);
  }

  async getEnvelope<T extends Envelope = Envelope>(id: string, signal?: AbortSignal): Promise<T> {
    checkEnvelopeId(id);
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
      query: envelopeQuery(filter, options),
      signal: options.signal,
    });
    return envelopePage<T>(this.transport.answers, response);
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
      query: deliveryQuery(filter, options),
      signal: options.signal,
    });
    return deliveryPage(this.transport.answers, response);
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
    checkEventId(eventId);
    checkResendTarget(options.to);
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
    checkEnvelopeId(id);
    checkVoidReason(reason);
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
    checkEnvelopeId(id);
    const response = await this.send<Buffer>('downloadSignedCopy', {
      params: { id },
      signal,
      binary: true,
      accept: 'application/pdf',
    });
    return signedCopy(this.transport.answers, response);
  }

  /**
   * Streams the signed copy into `path` (never held in memory; refused past
   * MAX_FILE_BYTES), then checks it is a PDF; a file that is not one is
   * removed. The caller renames it into place.
   */
  async downloadSignedCopyTo(id: string, path: string, signal?: AbortSignal): Promise<FileAnswer> {
    checkEnvelopeId(id);
    const response = await this.send<FileAnswer>('downloadSignedCopy', {
      params: { id },
      signal,
      binary: true,
      accept: 'application/pdf',
      toFile: path,
    });
    const file = response.data;
    if (file.head.indexOf('%PDF-') < 0 || !file.tail.includes('%%EOF')) {
      try {
        rmSync(path, { force: true });
      } catch {
        // A name that reaches the file through its descriptor (/proc/self/fd/<n>, rooted-file.ts) cannot be
        // removed as a name: the one who made it removes it. What came back is the error to report.
      }
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
    checkEnvelopeId(id);
    const response = await this.send<unknown>('getAuditTrail', { params: { id }, signal });
    return auditTrail(this.transport.answers, id, response);
  }
}
