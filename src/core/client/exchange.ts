/**
 * One exchange under the transport (transport.ts): the attempts of one request, each paced under
 * the rate limit and bounded by a deadline for the attempt whole, until an answer stands: a 2xx,
 * a raw request's final answer, or the error left when retry.ts's one decision says no more
 * (always with the same Idempotency-Key). What it did is traced for the caller to show.
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
import { errorForStatus, isInFlightConflict, type AnswerContext } from './answer-errors.js';
import type { Clock } from '../clock.js';
import type { Operation } from '../endpoints.js';
import { InterruptedError, NetworkError, StorageError, UnexpectedResponseError } from '../errors.js';
import { maskKey } from '../keys.js';
import { describeNetworkError } from './network-errors.js';
import type { RatePacer } from '../pacing/pacing.js';
import { decideRetry, type AttemptOutcome, type RetryPolicy } from '../pacing/retry.js';
import {
  NOT_CONNECTED_CODES,
  decodeBody,
  errorCode,
  flattenHeaders,
  type ApiResponse,
  type RequestOptions,
  type TraceEvent,
} from './wire.js';

/** How long an attempt goes unanswered before the caller hears of it (a `waiting` trace): a silent server is not a silent tool. */
export const WAIT_NOTICE_MS = 10_000;

/** One request as its attempts send it. */
export interface ExchangeRequest {
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

/** What every exchange of one transport sends with. */
export interface ExchangeContext {
  timeoutMs: number;
  policy: RetryPolicy;
  pacer: RatePacer;
  clock: Clock;
  random: () => number;
  dispatcher: Dispatcher;
  onTrace: (event: TraceEvent) => void;
  /** What the errors of this client say about it. */
  answers: AnswerContext;
}

/** An attempt's answer: its status and headers, its body in memory or, a 2xx asked for in a file, there. */
interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  raw?: Buffer | undefined;
  file?: FileAnswer | undefined;
}

export class Exchange<T> {
  /** The attempt under way, from 1. */
  private attempt = 0;
  /** Whether any attempt may have reached the service (anything but a failure to connect). */
  private sent = false;
  /** Whether an attempt may have acted on the service: it went out and no answer says it did nothing. */
  private mayHaveActed = false;
  /** What ends a wait (for a pacer slot, before a retry): the caller's stop or its abort. */
  private readonly waitSignal: AbortSignal | undefined;

  constructor(
    private readonly context: ExchangeContext,
    private readonly spec: ExchangeRequest,
    private readonly options: RequestOptions,
  ) {
    const { stop, signal } = options;
    this.waitSignal = stop && signal ? AbortSignal.any([stop, signal]) : (stop ?? signal);
  }

  async run(): Promise<ApiResponse<T>> {
    for (;;) {
      const answer = await this.attemptOnce();
      const response = answer && (await this.settle(answer));
      if (response) return response;
    }
  }

  private get stopped(): boolean {
    return this.options.stop?.aborted === true || this.options.signal?.aborted === true;
  }

  private get keyed(): boolean {
    return this.spec.headers['idempotency-key'] !== undefined;
  }

  /** One attempt, paced and traced; undefined when it failed and the next one is due (its wait is over). */
  private async attemptOnce(): Promise<Answer | undefined> {
    const attempt = ++this.attempt;
    const { clock, onTrace, timeoutMs } = this.context;
    try {
      await this.context.pacer.acquire(this.waitSignal);
    } catch (error) {
      throw this.stopped ? interrupted(this.sent) : error;
    }
    if (this.stopped) throw interrupted(this.sent);
    await this.options.beforeAttempt?.(attempt);
    const { method, url, headers } = this.spec;
    onTrace({ type: 'request', attempt, method, url, headers: redactedHeaders(headers) });
    const started = clock.now();
    // --timeout bounds the attempt whole: connect, headers and the body, however slowly it trickles.
    const deadline = AbortSignal.timeout(timeoutMs);
    const attemptSignal = this.options.signal ? AbortSignal.any([this.options.signal, deadline]) : deadline;
    const answered = new AbortController();
    this.noticeUnlessAnswered(AbortSignal.any([answered.signal, attemptSignal]));
    let answer: Answer;
    try {
      answer = await this.onTheWire(attemptSignal);
    } catch (error) {
      // Called off before any wait for the next attempt: this one is over, not unanswered.
      answered.abort();
      await this.failed(error, deadline.aborted && this.options.signal?.aborted !== true);
      return undefined;
    }
    answered.abort();
    this.sent = true;
    const { status, headers: answerHeaders } = answer;
    const durationMs = clock.now() - started;
    onTrace({ type: 'response', attempt, status, durationMs, headers: answerHeaders });
    this.context.pacer.observe(answerHeaders);
    return answer;
  }

  /** A `waiting` trace once the attempt has gone unanswered for WAIT_NOTICE_MS, unless `calledOff` first. */
  private noticeUnlessAnswered(calledOff: AbortSignal): void {
    const { clock, onTrace, policy, timeoutMs } = this.context;
    const { attempt } = this;
    const { method, url } = this.spec;
    clock.sleep(WAIT_NOTICE_MS, calledOff).then(
      () =>
        onTrace({
          type: 'waiting',
          attempt,
          attempts: policy.maxRetries + 1,
          method,
          url,
          waitedMs: WAIT_NOTICE_MS,
          timeoutMs,
        }),
      () => {},
    );
  }

  /** The request and its answer read within their bound: into memory, or a 2xx into the caller's file. */
  private async onTheWire(signal: AbortSignal): Promise<Answer> {
    const { dispatcher, timeoutMs } = this.context;
    const { method, url, headers, body } = this.spec;
    const { toFile, binary } = this.options;
    const response = await request(url, {
      method,
      headers,
      body,
      dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const status = response.statusCode;
    const answerHeaders = flattenHeaders(response.headers);
    const length = response.headers['content-length'];
    if (toFile && status >= 200 && status < 300)
      return { status, headers: answerHeaders, file: await writeBounded(response.body, length, toFile) };
    const bound = binary && status < 300 ? MAX_FILE_BYTES : MAX_JSON_ANSWER_BYTES;
    return { status, headers: answerHeaders, raw: await readBounded(response.body, length, bound) };
  }

  /** An attempt that got no answer: its retry, after its wait, or the error that says what may have happened. */
  private async failed(error: unknown, timedOut: boolean): Promise<void> {
    const { label, url } = this.spec;
    const { answers, timeoutMs } = this.context;
    // An answer past the bound is not an answer to wait for again: refused, whatever its status.
    if (error instanceof AnswerTooLargeError) {
      throw new UnexpectedResponseError(`${label}: ${error.message}, far more than it can be`, 0, undefined, {
        hint: `is ${answers.baseUrl} the signing service? check the base URL`,
        reason: 'not_the_service',
        reasonData: { baseUrl: answers.baseUrl },
      });
    }
    if (error instanceof StorageError) throw error;
    const code = timedOut ? 'ETIMEDOUT' : errorCode(error);
    if (code === undefined || !NOT_CONNECTED_CODES.has(code)) {
      this.sent = true;
      // It went out and no answer came back: it may have done its work.
      this.mayHaveActed = true;
    }
    if (this.options.signal?.aborted) throw new InterruptedError('interrupted', { sent: this.sent });
    const reason = timedOut
      ? `no complete answer within ${timeoutMs / 1000} s`
      : describeNetworkError(code, (error as Error).message, url);
    if (await this.retried({ kind: 'network', code }, reason)) return;
    throw this.noAnswerError(error, code, reason);
  }

  /** The error of a request that got no answer after its last attempt: whether anything was sent, and what to do. */
  private noAnswerError(cause: unknown, code: string | undefined, reason: string): NetworkError {
    const { label, url, operation } = this.spec;
    const origin = new URL(url).origin;
    const tries = `${this.attempt} attempt${this.attempt === 1 ? '' : 's'}`;
    if (!this.sent) {
      return new NetworkError(
        `${label}: could not connect to ${origin} (${reason}); nothing was sent (${tries})`,
        code,
        {
          cause,
          nothingSent: true,
          hint: 'check that the service is up and the base URL is right',
          reason: 'connect_failed',
        },
      );
    }
    const idempotencyKey = this.spec.headers['idempotency-key'];
    const resend = operation === 'resendEvent';
    return new NetworkError(
      `${label}: could not complete the request to ${origin} (${reason}) after ${tries}`,
      code,
      {
        cause,
        hint: resend
          ? 'the resend may or may not have been queued; the deliveries listing shows whether it was'
          : this.keyed
            ? `the envelope may or may not exist; sending it again with Idempotency-Key ${this.options.idempotencyKey} finishes it without a duplicate`
            : 'check that the service is up and the base URL is right',
        reason: resend ? 'maybe_resent' : this.keyed ? 'maybe_sent' : 'connect_failed',
        reasonData: { idempotencyKey },
      },
    );
  }

  /** What an answer comes to: the response, or undefined when it is tried again (its wait is over); else its error. */
  private async settle(answer: Answer): Promise<ApiResponse<T> | undefined> {
    const { status, headers, raw, file } = answer;
    if (status >= 200 && status < 300)
      return this.response(status, headers, (file ?? decodeBody(raw!, headers, this.options.binary)) as T);
    // Not a 2xx: the body was read into memory (only a 2xx goes to a file).
    const errorBody = raw ?? Buffer.alloc(0);
    // A 409 about the state of things (voiding a completed envelope) will not change; only "same key in flight" will.
    const finalConflict = status === 409 && !isInFlightConflict(headers, errorBody);
    // A 5xx (or 408, 425) says nothing of what was done; a 429 or an in-flight 409 says nothing was.
    if (status >= 500 || status === 408 || status === 425) this.mayHaveActed = true;
    const outcome: AttemptOutcome = { kind: 'response', status, headers, keyed: this.keyed, finalConflict };
    if (await this.retried(outcome, `HTTP ${status}`)) return undefined;
    // A raw request's final answer is the caller's to show, whatever its status.
    const { operation } = this.spec;
    if (this.spec.anyStatus || !operation) return this.response(status, headers, errorBody as T);
    const text = errorBody.toString('utf8');
    const key = this.spec.headers['idempotency-key'];
    throw errorForStatus(this.context.answers, operation, status, text, headers, this.attempt, key);
  }

  private response(status: number, headers: Record<string, string | undefined>, data: T): ApiResponse<T> {
    return { status, headers, data, attempts: this.attempt, earlierAttemptMayHaveActed: this.mayHaveActed };
  }

  /** Whether retry.ts's decision is to try again: if so, traced and waited for (a 429 holds back the pacer instead). */
  private async retried(outcome: AttemptOutcome, reason: string): Promise<boolean> {
    const { clock, policy, random, onTrace, pacer } = this.context;
    const { attempt } = this;
    const decision = decideRetry(outcome, attempt, policy, clock.now(), random);
    if (!decision.retry || this.stopped) return false;
    const { delayMs, source } = decision;
    onTrace({ type: 'retry', attempt, delayMs, source, reason });
    // A 429 is about the shared limit: the pacer holds back every request, this one included.
    if (outcome.kind === 'response' && outcome.status === 429) pacer.penalize(delayMs);
    else await this.sleepUnlessStopped(delayMs);
    return true;
  }

  /** A wait between attempts; an interrupt ends it and the request (nothing new is sent). */
  private async sleepUnlessStopped(ms: number): Promise<void> {
    try {
      await this.context.clock.sleep(ms, this.waitSignal);
    } catch (error) {
      if (this.waitSignal?.aborted) throw interrupted(this.sent);
      throw error;
    }
  }
}

/** Ctrl-C (or a caller's abort) during a request: says whether anything had gone on the wire. */
function interrupted(sent: boolean): InterruptedError {
  return new InterruptedError(sent ? 'interrupted' : 'interrupted before the request was sent', { sent });
}

/** Headers as traced: any bearer token masked, the client's or one a caller set. */
function redactedHeaders(headers: Record<string, string>): Record<string, string> {
  if (headers.authorization === undefined) return { ...headers };
  return {
    ...headers,
    authorization: headers.authorization.replace(
      /^(\S+\s+)?(.*)$/,
      (_all, scheme: string | undefined, token: string) => `${scheme ?? ''}${maskKey(token)}`,
    ),
  };
}
