/**
 * What the sandbox's handlers are given: its state and engines, built once
 * by startSandbox (server.ts) and passed in, so a handler names what it uses
 * and no handler reaches for another's closure.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Operation } from '../../core/endpoints.js';
import type { ValueLists } from '../../core/envelope/envelope.js';
import type { StorageError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';
import type { SandboxClock } from '../journey/clock.js';
import type { Credentials } from '../store/credentials-file.js';
import type { Deliverer } from '../delivery/deliveries.js';
import type { FaultPlan } from './faults.js';
import type { JourneyEngine } from '../journey/journey.js';
import type { SlidingWindowLimiter } from './rate-limiter.js';
import type { SandboxStore } from '../store/store.js';
import type { StoredKey } from '../store/records.js';

export interface Counters {
  requests: number;
  created: number;
  replayed: number;
  rate_limited: number;
  by_status: Record<string, number>;
  /** Writes of the state that failed (a full disk). */
  storage_failures: number;
}

import type { SandboxCa } from '../signing/signing-identity.js';
import type { SignerLinks } from '../journey/signer-links.js';
import type { FormTokens } from '../pages/forms.js';
import type { Templates } from '../documents/templates.js';

export interface SandboxServices {
  store: SandboxStore;
  clock: SandboxClock;
  /**
   * Real time, which the sandbox clock runs from: what is measured against the world's clocks
   * (webhook-timestamp, key expiry and use), the per-minute rate limit and idempotency retention.
   */
  realClock: Pick<Clock, 'now'>;
  /** The values of the open fields this sandbox accepts (rules.ts, widened by --accept). */
  allowed: ValueLists;
  /** How long an Idempotency-Key is remembered, measured with realClock (--idempotency-retention). */
  idempotencyRetentionMs: number;
  faults: FaultPlan;
  limiter: SlidingWindowLimiter;
  journey: JourneyEngine;
  deliverer: Deliverer;
  counters: Counters;
  secrets: Credentials;
  /** Its CA (signing-identity.ts), loaded at start: who signs the copies, and what it says of their certificates. */
  ca: SandboxCa;
  /** Idempotency records of requests still being processed (409 for a second one). */
  inFlight: Set<string>;
  /** The state could not be written: counted, and said at most once a minute. */
  storageTrouble: (error: StorageError) => void;
  /** Each signer's page link (`/s/<token>`). */
  links: SignerLinks;
  /** The pages' CSRF tokens, each bound to its link (pages/forms.ts). */
  forms: FormTokens;
  /** Where the sandbox listens (`http://127.0.0.1:4010`): the links of the outbox are absolute. */
  baseUrl: string;
  /** The documents' templates: the built-in ones and `--templates`. */
  templates: Templates;
}

/** One authenticated API request, with the path's parameters decoded. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  key: StoredKey;
  params: string[];
}

export interface Route {
  operation: Operation;
  method: string;
  handle(ctx: RequestContext): Promise<void> | void;
}
