/**
 * Accounts and environments, kept apart as the service keeps them: every
 * envelope, event, delivery, idempotency key and listing belongs to the
 * (account, environment) of the key that made it, its realm. A key of another
 * realm is told such things do not exist (404, as Stripe answers for the
 * other mode's objects: their existence is not disclosed).
 */
import type { EnvelopeRecord, StoredKey } from './records.js';

/** The sandbox's own account: its first key's, and every key's made without one. */
export const SANDBOX_ACCOUNT = 'acct_sandbox';

/** Keys and envelopes written before accounts existed belong to the sandbox's own account. */
export const accountOf = (item: { account?: unknown }): string =>
  typeof item.account === 'string' ? item.account : SANDBOX_ACCOUNT;

export const keyRealm = (key: StoredKey): string => `${accountOf(key)}/${key.environment}`;

/** Envelopes from before environments were recorded were made by the sandbox's test key. */
export const envelopeRealm = (envelope: EnvelopeRecord): string =>
  `${accountOf(envelope)}/${typeof envelope.environment === 'string' ? envelope.environment : 'test'}`;

export const sameRealm = (envelope: EnvelopeRecord, key: StoredKey): boolean =>
  envelopeRealm(envelope) === keyRealm(key);
