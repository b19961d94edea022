/**
 * The transport under SignClient: one operation on the wire with the key, the
 * Idempotency-Key, pacing under the rate limit, retries decided by
 * retry.ts's one decision (always with the same Idempotency-Key), a deadline
 * for each attempt whole, bounded answers, and traces for the caller to show.
 * Errors come from answer-errors.ts.
 */
import { request, type Dispatcher } from 'undici';
import {
  AnswerTooLargeError,
  MAX_FILE_BYTES,
  MAX_JSON_ANSWER_BYTES,
  readBounded,
  writeBounded,
  type FileAnswer,
} from './answer-body.js';
import { OPERATION_LABEL, errorForStatus, isInFlightConflict, type AnswerContext } from './answer-errors.js';
import type { Clock } from '../clock.js';
import {
  baseUrlEndsInApi,
  fillPath,
  joinUrl,
  resolveEndpoint,
  type Operation,
  type PathOverrides,
} from '../endpoints.js';
import { InterruptedError, NetworkError, StorageError, UnexpectedResponseError } from '../errors.js';
import { maskKey, redactSecrets } from '../keys.js';
import { describeNetworkError } from './network-errors.js';
import type { RatePacer } from '../pacing/pacing.js';
import {
  NOT_CONNECTED_CODES,
  decodeBody,
  errorCode,
  flattenHeaders,
  withQuery,
  type ApiResponse,
  type RequestOptions,
} from './wire.js';

export type { ApiResponse, RequestOptions };
import { decideRetry, type DelaySource, type RetryPolicy } from '../pacing/retry.js';

export type TraceEvent =
  | { type: 'note'; message: string }
  | { type: 'request'; attempt: number; method: string; url: string; headers: Record<string, string> }
  | {
      type: 'response';
      attempt: number;
      status: number;
      durationMs: number;
      headers: Record<string, string | undefined>;
    }
  | { type: 'retry'; attempt: number; delayMs: number; source: DelaySource; reason: string }
  /** An attempt still unanswered after `waitedMs` (WAIT_NOTICE_MS): said even when nothing else is. */
  | {
      type: 'waiting';
      attempt: number;
      attempts: number;
      method: string;
      url: string;
      waitedMs: number;
      timeoutMs: number;
    };

/** Ctrl-C (or a caller's abort) during a request: says whether anything had gone on the wire. */
function interrupted(sent: boolean): InterruptedError {
  return new InterruptedError(sent ? 'interrupted' : 'interrupted before the request was sent', { sent });
}

/** A request `sign-cli api` makes: any method, a path under the base URL, its own headers and raw body. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One exchange as the loop sends it. */
interface Exchange {
  method: string;
  url: string;
  label: string;
  /** The operation, for its error wording; a raw request has none. */
  operation?: Operation;
  body: string | Buffer | undefined;
  headers: Record<string, string>;
  /** Resolve with the final answer whatever its status (a raw request). */
  anyStatus?: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  keyLabel: string;
  timeoutMs: number;
  policy: RetryPolicy;
  pacer: RatePacer;
  clock: Clock;
  random: () => number;
  paths: PathOverrides;
  userAgent: string;
  dispatcher: Dispatcher;
  onTrace: (event: TraceEvent) => void;
}

/** How long an attempt goes unanswered before the caller hears of it (a `waiting` trace): a silent server is not a silent tool. */
export const WAIT_NOTICE_MS = 10_000;

export class Transport {
  readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly pacer: RatePacer;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly paths: PathOverrides;
  private readonly userAgent: string;
  private readonly dispatcher: Dispatcher;
  private readonly onTrace: (event: TraceEvent) => void;
  /** What the errors of this client say about it. */
  readonly answers: AnswerContext;
  private notedApiSegment = false;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs;
    this.policy = options.policy;
    this.pacer = options.pacer;
    this.clock = options.clock;
    this.random = options.random;
    this.paths = options.paths;
    this.userAgent = options.userAgent;
    this.dispatcher = options.dispatcher;
    this.onTrace = options.onTrace;
    this.answers = {
      baseUrl: options.baseUrl,
      keyLabel: options.keyLabel,
      scopeOf: (operation) => resolveEndpoint(operation, this.paths).scope,
      scrub: (text) => this.scrub(text),
      apiTwice: baseUrlEndsInApi(options.baseUrl),
    };
  }

  /** Sends one operation with pacing and retries; returns the parsed 2xx response or throws. */
  async send<T = unknown>(operation: Operation, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const endpoint = resolveEndpoint(operation, this.paths);
    const url = withQuery(joinUrl(this.baseUrl, fillPath(endpoint.path, options.params)), options.query);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    return this.exchange<T>(
      { method: endpoint.method, url, label: OPERATION_LABEL[operation], operation, body, headers: {} },
      options,
    );
  }

  /**
   * Any method and path under the base URL (`sign-cli api`), with the same
   * key, pacing, retries and bounds; resolves with the final answer whatever
   * its status (a 4xx is the caller's to show), its body as bytes.
   */
  async sendRaw(request: RawRequest, options: RequestOptions = {}): Promise<ApiResponse<Buffer>> {
    // A query written in the path (`/api/v1/envelopes?limit=5`) is the URL's query, not part of its path (`%3F`).
    const at = request.path.indexOf('?');
    const joined = new URL(joinUrl(this.baseUrl, at < 0 ? request.path : request.path.slice(0, at)));
    if (at >= 0) joined.search = request.path.slice(at + 1);
    const url = withQuery(joined.toString(), options.query);
    const headers = Object.fromEntries(
      Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    );
    return this.exchange<Buffer>(
      {
        method: request.method,
        url,
        label: `${request.method} ${request.path}`,
        body: request.body,
        headers,
        anyStatus: true,
      },
      { ...options, binary: true },
    );
  }

  private async exchange<T>(spec: Exchange, options: RequestOptions): Promise<ApiResponse<T>> {
    const { url, label, operation } = spec;
    this.noteApiSegment(url);
    const headers: Record<string, string> = {
      accept: options.accept ?? 'application/json',
      'user-agent': this.userAgent,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    const body = spec.body;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // A caller's own headers last: -H of `sign-cli api` may set any of them.
    Object.assign(headers, spec.headers);
    const idempotencyKey = headers['idempotency-key'];
    const keyed = idempotencyKey !== undefined;

    const stop = options.stop;
    const waitSignal =
      stop && options.signal ? AbortSignal.any([stop, options.signal]) : (stop ?? options.signal);
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
      await options.beforeAttempt?.(attempt);
      this.onTrace({ type: 'request', attempt, method: spec.method, url, headers: this.redacted(headers) });
      const started = this.clock.now();
      // --timeout bounds the attempt whole: connect, headers and the body, however slowly it trickles.
      const deadline = AbortSignal.timeout(this.timeoutMs);
      const attemptSignal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      let response: Dispatcher.ResponseData;
      let raw: Buffer | undefined;
      let file: FileAnswer | undefined;
      // Said once per attempt that goes unanswered that long; called off by the answer (or its failure).
      const answered = new AbortController();
      const attempts = this.policy.maxRetries + 1;
      this.clock.sleep(WAIT_NOTICE_MS, AbortSignal.any([answered.signal, attemptSignal])).then(
        () =>
          this.onTrace({
            type: 'waiting',
            attempt,
            attempts,
            method: spec.method,
            url,
            waitedMs: WAIT_NOTICE_MS,
            timeoutMs: this.timeoutMs,
          }),
        () => {},
      );
      try {
        response = await request(url, {
          method: spec.method,
          headers,
          body,
          dispatcher: this.dispatcher,
          signal: attemptSignal,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
        const length = response.headers['content-length'];
        if (options.toFile && response.statusCode >= 200 && response.statusCode < 300)
          file = await writeBounded(response.body, length, options.toFile);
        else
          raw = await readBounded(
            response.body,
            length,
            options.binary && response.statusCode < 300 ? MAX_FILE_BYTES : MAX_JSON_ANSWER_BYTES,
          );
      } catch (error) {
        // An answer past the bound is not an answer to wait for again: refused, whatever its status.
        if (error instanceof AnswerTooLargeError) {
          throw new UnexpectedResponseError(
            `${label}: ${error.message}, far more than it can be`,
            0,
            undefined,
            {
              hint: `is ${this.baseUrl} the signing service? check the base URL`,
              reason: 'not_the_service',
              reasonData: { baseUrl: this.baseUrl },
            },
          );
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
        const reason = timedOut
          ? `no complete answer within ${this.timeoutMs / 1000} s`
          : describeNetworkError(code, (error as Error).message, url);
        const decision = decideRetry(
          { kind: 'network', code },
          attempt,
          this.policy,
          this.clock.now(),
          this.random,
        );
        if (decision.retry && !stopped()) {
          this.onTrace({
            type: 'retry',
            attempt,
            delayMs: decision.delayMs,
            source: decision.source,
            reason,
          });
          await this.sleepUnlessStopped(decision.delayMs, waitSignal, sent);
          continue;
        }
        const tries = `${attempt} attempt${attempt === 1 ? '' : 's'}`;
        if (!sent) {
          throw new NetworkError(
            `${label}: could not connect to ${new URL(url).origin} (${reason}); nothing was sent (${tries})`,
            code,
            {
              cause: error,
              nothingSent: true,
              hint: 'check that the service is up and the base URL is right',
              reason: 'connect_failed',
            },
          );
        }
        throw new NetworkError(
          `${label}: could not complete the request to ${new URL(url).origin} (${reason}) after ${tries}`,
          code,
          {
            cause: error,
            hint:
              operation === 'resendEvent'
                ? 'the resend may or may not have been queued; the deliveries listing shows whether it was'
                : keyed
                  ? `the envelope may or may not exist; sending it again with Idempotency-Key ${options.idempotencyKey} finishes it without a duplicate`
                  : 'check that the service is up and the base URL is right',
            reason: operation === 'resendEvent' ? 'maybe_resent' : keyed ? 'maybe_sent' : 'connect_failed',
            reasonData: { idempotencyKey },
          },
        );
      } finally {
        answered.abort();
      }
      sent = true;
      const responseHeaders = flattenHeaders(response.headers);
      this.onTrace({
        type: 'response',
        attempt,
        status: response.statusCode,
        durationMs: this.clock.now() - started,
        headers: responseHeaders,
      });
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
      if (response.statusCode >= 500 || response.statusCode === 408 || response.statusCode === 425)
        mayHaveActed = true;
      const decision = decideRetry(
        { kind: 'response', status: response.statusCode, headers: responseHeaders, keyed, finalConflict },
        attempt,
        this.policy,
        this.clock.now(),
        this.random,
      );
      if (decision.retry && !stopped()) {
        this.onTrace({
          type: 'retry',
          attempt,
          delayMs: decision.delayMs,
          source: decision.source,
          reason: `HTTP ${response.statusCode}`,
        });
        // A 429 is about the shared limit: the pacer holds back every request, this one included.
        if (response.statusCode === 429) this.pacer.penalize(decision.delayMs);
        else await this.sleepUnlessStopped(decision.delayMs, waitSignal, sent);
        continue;
      }
      // A raw request's final answer is the caller's to show, whatever its status.
      if (spec.anyStatus || !operation) {
        return {
          status: response.statusCode,
          headers: responseHeaders,
          data: errorBody as T,
          attempts: attempt,
          earlierAttemptMayHaveActed: mayHaveActed,
        };
      }
      throw errorForStatus(
        this.answers,
        operation,
        response.statusCode,
        errorBody.toString('utf8'),
        responseHeaders,
        attempt,
        idempotencyKey,
      );
    }
  }

  /** A wait between attempts; an interrupt ends it and the request (nothing new is sent). */
  private async sleepUnlessStopped(
    ms: number,
    signal: AbortSignal | undefined,
    sent: boolean,
  ): Promise<void> {
    try {
      await this.clock.sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw interrupted(sent);
      throw error;
    }
  }

  /** Text from the server with the API key masked, whole or without its prefix. */
  scrub(text: string): string {
    return this.apiKey ? redactSecrets(text, [this.apiKey]) : text;
  }

  private noteApiSegment(url: string): void {
    if (this.notedApiSegment || !baseUrlEndsInApi(this.baseUrl)) return;
    this.notedApiSegment = true;
    this.onTrace({
      type: 'note',
      message: `base URL ${this.baseUrl} ends in /api, so requests go to ${new URL(url).pathname} with /api twice (paths are appended to the base URL as they are)`,
    });
  }

  /** Headers as traced: any bearer token masked, the client's or one a caller set. */
  private redacted(headers: Record<string, string>): Record<string, string> {
    if (headers.authorization === undefined) return { ...headers };
    return {
      ...headers,
      authorization: headers.authorization.replace(
        /^(\S+\s+)?(.*)$/,
        (_all, scheme: string | undefined, token: string) => `${scheme ?? ''}${maskKey(token)}`,
      ),
    };
  }
}
