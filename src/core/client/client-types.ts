/** The shapes SignClient takes and returns (client.ts). */
import type { Dispatcher } from 'undici';
import type { ProxySettings } from './proxy.js';
import type { AuditEntry } from '../envelope/audit.js';
import type { Clock } from '../clock.js';
import type { PathOverrides } from '../endpoints.js';
import type { ValidateOptions } from '../envelope/envelope.js';
import type { Envelope } from '../envelope/schema.js';
import type { RatePacer, SharedBudget } from '../pacing/pacing.js';
import type { RetryPolicy } from '../pacing/retry.js';
import type { TraceEvent } from './transport.js';

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
  /** Share the rate with other processes too (core/pacing/shared-budget.ts); ignored when `pacer` is given. */
  sharedBudget?: SharedBudget | undefined;
  clock?: Clock;
  random?: () => number;
  paths?: PathOverrides;
  validation?: ValidateOptions;
  userAgent?: string;
  dispatcher?: Dispatcher;
  /**
   * Proxies for the service (core/client/proxy.ts; `proxySettingsFrom(process.env)` reads the usual
   * variables). Not read from the environment unless given; ignored when `dispatcher` is given.
   */
  proxy?: ProxySettings;
  onTrace?: (event: TraceEvent) => void;
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

/**
 * Which envelopes a listing returns (the published interface shows no listing: docs/service.md,
 * Endpoints; docs/assumptions.md).
 */
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

export interface AuditTrail {
  envelope_id: string;
  /** The sandbox says `sha256`; absent when the service does not say. */
  hash_algorithm?: string;
  head_hash: string | null;
  entries: AuditEntry[];
}
