/** What the listener takes, reports and returns (server.ts runs it). */
import type { Clock } from '../core/clock.js';
import type { SchemeSuggestion } from '../core/webhooks/webhook-parsing.js';
import type { WebhookVerifier } from '../core/webhooks/webhooks.js';
import type { ForwardTarget } from './routes.js';
import type { SeenIds } from './seen-ids.js';
import type { ReceivedDelivery } from './capture.js';

/** What one target answered a forwarded delivery, or why it could not be reached. */
export type ForwardOutcome =
  { url: string; status: number; durationMs: number; body: string } | { url: string; error: string };

export interface ListenedEvent {
  id: string;
  type: string;
  /** The event's own timestamp when the payload has one, else the signed time. */
  timestamp: string | null;
  duplicate: boolean;
  /** 1 for the first delivery of this id, 2 for the first redelivery… */
  delivery: number;
  payload: unknown;
  /** The body as received (UTF-8), so output can embed it without serialising the payload again. */
  rawBody: string;
  /** Where the delivery was kept (`--save-dir`). */
  saved?: string;
  /** One per target the event was forwarded to (none when no target matched its type). */
  forwards?: ForwardOutcome[];
}

export interface Rejection {
  status: number;
  reason: string;
  /** A delivery signed another way: the scheme (and header) that verifies it. */
  suggestion?: SchemeSuggestion;
  /** Absent when the request could not be parsed, or never arrived in time. */
  method?: string;
  path?: string;
}

export interface ListenerStats {
  received: number;
  verified: number;
  rejected: number;
  duplicates: number;
  /** Verified and answered 2xx, but outside --events: neither printed nor forwarded. */
  filtered: number;
}

export interface ListenerOptions {
  host: string;
  port: number;
  verifier: WebhookVerifier;
  seen: SeenIds;
  maxBodyBytes?: number;
  /** Where verified events go, each to every target whose glob matches its type. */
  forwardTo?: readonly ForwardTarget[];
  /** Added to every forward (`--forward-header`). */
  forwardHeaders?: Readonly<Record<string, string>>;
  /** Accept a local HTTPS app's self-signed certificate (`--forward-insecure`; never the default). */
  forwardInsecure?: boolean;
  /** Only events whose type passes are printed and forwarded (`--events`); the rest are still verified and answered. */
  events?: (type: string) => boolean;
  /** How long a client may take to send its headers, and its whole request (default 5 s and 10 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** What signatures' timestamps are judged against and forwards are timed by (default the system clock). */
  clock?: Pick<Clock, 'now'>;
  /** Every delivery read whole, verified or not, as it was received (`--save-dir`); returns where it was kept. */
  onReceived?(delivery: ReceivedDelivery, verified: boolean): string | undefined;
  onEvent(event: ListenedEvent): void;
  onReject(rejection: Rejection): void;
}

export interface RunningListener {
  url: string;
  stats: ListenerStats;
  close(): Promise<void>;
}
