/**
 * The transport under SignClient: what one operation sends (its URL, the key, the
 * Idempotency-Key, a caller's own headers) and the exchange that sends it (exchange.ts: pacing
 * under the rate limit, retries by retry.ts's one decision with the same Idempotency-Key, a
 * deadline for each attempt whole, bounded answers, traces for the caller to show).
 * Errors come from answer-errors.ts.
 */
import type { Dispatcher } from 'undici';
import { OPERATION_LABEL, type AnswerContext } from './answer-errors.js';
import type { Clock } from '../clock.js';
import {
  baseUrlEndsInApi,
  fillPath,
  joinUrl,
  resolveEndpoint,
  type Operation,
  type PathOverrides,
} from '../endpoints.js';
import { Exchange, type ExchangeContext, type ExchangeRequest } from './exchange.js';
import { redactSecrets } from '../keys.js';
import type { RatePacer } from '../pacing/pacing.js';
import type { RetryPolicy } from '../pacing/retry.js';
import { withQuery, type ApiResponse, type RequestOptions, type TraceEvent } from './wire.js';

export type { ApiResponse, RequestOptions, TraceEvent };

/** A request `sign-cli api` makes: any method, a path under the base URL, its own headers and raw body. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
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

export class Transport {
  readonly baseUrl: string;
  /** What the errors of this client say about it. */
  readonly answers: AnswerContext;
  private readonly apiKey: string | undefined;
  private readonly paths: PathOverrides;
  private readonly userAgent: string;
  private readonly onTrace: (event: TraceEvent) => void;
  /** What every exchange sends with: the dispatcher, the deadline, the pacer, the retry policy. */
  private readonly wire: ExchangeContext;
  private notedApiSegment = false;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl;
    this.apiKey = options.apiKey;
    this.paths = options.paths;
    this.userAgent = options.userAgent;
    this.onTrace = options.onTrace;
    this.answers = {
      baseUrl: options.baseUrl,
      keyLabel: options.keyLabel,
      scopeOf: (operation) => resolveEndpoint(operation, this.paths).scope,
      scrub: (text) => this.scrub(text),
      apiTwice: baseUrlEndsInApi(options.baseUrl),
    };
    const { timeoutMs, policy, pacer, clock, random, dispatcher, onTrace } = options;
    this.wire = { timeoutMs, policy, pacer, clock, random, dispatcher, onTrace, answers: this.answers };
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

  /** The request's headers (the key, the Idempotency-Key, a caller's own last), sent by one exchange. */
  private exchange<T>(request: ExchangeRequest, options: RequestOptions): Promise<ApiResponse<T>> {
    this.noteApiSegment(request.url);
    const headers: Record<string, string> = {
      accept: options.accept ?? 'application/json',
      'user-agent': this.userAgent,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    // A caller's own headers last: -H of `sign-cli api` may set any of them.
    Object.assign(headers, request.headers);
    return new Exchange<T>(this.wire, { ...request, headers }, options).run();
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
}
