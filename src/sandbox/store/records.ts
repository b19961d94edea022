/**
 * The records the sandbox keeps: keys (hashed), envelopes with their
 * signers, idempotency records and webhook deliveries with their attempts.
 */
import { createHash } from 'node:crypto';
import { maskKey } from '../../core/keys.js';
import type { EnvelopeStatus } from '../../core/envelope/states.js';

/**
 * An API key as the sandbox keeps it: like a real service, only a hash of the
 * secret (SHA-256: the keys are 190 random bits, so no slow hash is needed)
 * and its masked form for listings. The secrets themselves live only in
 * credentials.env (mode 0600) and in the response that created them.
 */
export interface StoredKey {
  id: string;
  name: string;
  key_hash: string;
  /** The masked key (`sk_test_****abcd`), for listings. */
  key_hint: string;
  environment: string;
  /** The account the key belongs to (realm.ts); absent for keys made before accounts, which are the sandbox's own. */
  account?: string;
  scopes: string[];
  /** YYYY-MM-DD; the key stops working at the end of that day (UTC). */
  expires: string;
  created_at: string;
  last_used: string | null;
}

export interface StoredResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface IdempotencyRecord {
  scope: string;
  key: string;
  fingerprint: string;
  created_at: number;
  response: StoredResponse;
}

export type SignerStatus =
  'pending' | 'notified' | 'viewed' | 'verified' | 'signed' | 'declined' | 'verification_failed';
export type { EnvelopeStatus };

export interface SignerRecord extends Record<string, unknown> {
  id: string;
  name: string;
  channel: string;
  order?: number;
  verification?: string;
  email?: string;
  phone?: string;
  status: SignerStatus;
  /** Sandbox time (ms) of this signer's next step, or null when nothing is due. */
  next_at: number | null;
}

export interface EnvelopeRecord extends Record<string, unknown> {
  id: string;
  owner: string;
  /** The account and environment of the key that made it (realm.ts); absent in older logs. */
  account?: string;
  environment?: string;
  status: EnvelopeStatus;
  sequential: boolean;
  signers: SignerRecord[];
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One attempt of a delivery: one POST and how it ended. */
export interface DeliveryAttempt {
  /** 1 for the first attempt, up to 9 (8 retries). */
  attempt: number;
  /** When it started, on the sandbox clock (ISO 8601), like every time the sandbox shows. */
  started_at: string;
  /** The receiver's HTTP status; null when there was none (connection refused, timeout). */
  status: number | null;
  /** Real milliseconds from sending to the end of the answer (or the failure). */
  duration_ms: number;
  /** Why it failed (`HTTP 500`, `ECONNREFUSED: …`); null when it succeeded. */
  error: string | null;
}

export interface DeliveryRecord {
  /**
   * The delivery's own id (`dlv_…`). Logs written before resends existed used
   * the event id here, and have no `event_id`: see {@link deliveryEventId}.
   */
  id: string;
  /** The event id, sent as `webhook-id` on every attempt (and on every resend of the event). */
  event_id?: string;
  /** Global creation order; deliveries of one envelope go out in this order. */
  seq: number;
  envelope_id: string;
  event_type: string;
  url: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** Every attempt so far, oldest first; absent in logs written before attempts were recorded. */
  attempt_log?: DeliveryAttempt[];
  /** Sandbox time (ms) of the next attempt. */
  next_at: number;
  last_status: number | null;
  last_error: string | null;
  finished_at: string | null;
  /** When the delivery was made (ISO, sandbox clock); absent in older logs. */
  created_at?: string;
  /** True for a delivery made by `POST /api/v1/events/{id}/resend`: it has its own queue. */
  resend?: boolean;
}

/** The event a delivery carries (older logs: the delivery's id was the event id). */
export const deliveryEventId = (delivery: DeliveryRecord): string => delivery.event_id ?? delivery.id;

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** The fields of a stored key from its secret. */
export function keyFields(secret: string): Pick<StoredKey, 'key_hash' | 'key_hint'> {
  return { key_hash: hashSecret(secret), key_hint: maskKey(secret) };
}

/** The id of an idempotency record: per realm (account and environment) and key. */
export const idempotencyId = (scope: string, key: string): string => `${scope}\u0000${key}`;
