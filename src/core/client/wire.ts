/** What goes on and comes off the wire for the transport: URLs, headers, bodies, error codes, and the traces of it. */
import type { DelaySource } from '../pacing/retry.js';

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
  beforeAttempt?: (attempt: number) => void | Promise<void>;
  /** Read the body as bytes rather than JSON/text. */
  binary?: boolean;
  /**
   * Stream a 2xx body into this file (bounded, MAX_FILE_BYTES) instead of
   * memory; the answer's data is then a FileAnswer. Each attempt rewrites it.
   */
  toFile?: string;
  accept?: string;
}

/** What the transport did, for the caller to show (`--verbose`, a slow answer). */
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

/** Failures before a connection exists: the request cannot have reached the service. */
export const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  // undici wraps socket errors; the useful code may sit on the cause.
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * The URL with the query's parameters added after any query it has. The query it has is kept
 * as written (a raw path's `?x=1`): going through searchParams would write it again in the
 * form encoding (`%20` as `+`, `b` as `b=`).
 */
export function withQuery(url: string, query: RequestOptions['query']): string {
  if (!query) return url;
  const added = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of value === undefined ? [] : typeof value === 'string' ? [value] : value)
      added.append(name, item);
  }
  const extra = added.toString();
  if (extra === '') return url;
  const parsed = new URL(url);
  parsed.search = parsed.search.length > 1 ? `${parsed.search}&${extra}` : extra;
  return parsed.toString();
}

export function decodeBody(
  raw: Buffer,
  headers: Record<string, string | undefined>,
  binary?: boolean,
): unknown {
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
