/** What the listener takes, reports and returns (server.ts runs it). */
import type { Clock } from '../core/clock.js';
import type { SchemeSuggestion } from '../core/webhooks/webhook-parsing.js';
import type { VerifyResult, WebhookVerifier } from '../core/webhooks/webhooks.js';
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

/** A delivery read whole, as the listener judged it: what the inspector keeps. */
export interface ObservedDelivery {
  /** When it was read whole (the clock's milliseconds). */
  receivedAt: number;
  /** The request as it came. */
  request: ReceivedDelivery;
  verdict: VerifyResult;
  /** What the sender was answered; absent while the forward targets are asked (forwarded() tells then). */
  answered?: number;
  /** Why it was refused: the verifier's reason, or the listener's (a body that is not JSON). */
  refusal?: string;
  /** Verified and read as JSON. */
  event?: ListenedEvent;
  /** Verified, but outside --events: answered, neither shown nor forwarded. */
  filtered?: boolean;
}

/** Told of every delivery read whole, and of what the apps answered it. Called on the hot path: keep it cheap. */
export interface DeliveryObserver {
  /** Returns a key for forwarded() of the same delivery. */
  arrived(delivery: ObservedDelivery): number;
  /** What each forward target answered, and what the sender was answered from them. */
  forwarded(key: number, outcomes: readonly ForwardOutcome[], answered: number): void;
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
  /** Every delivery read whole and what became of it (`--inspect`). */
  observer?: DeliveryObserver;
  onEvent(event: ListenedEvent): void;
  onReject(rejection: Rejection): void;
}

export interface RunningListener {
  url: string;
  stats: ListenerStats;
  close(): Promise<void>;
}
