/**
 * Records as the API shows them, and an envelope built from a valid
 * request: the fields the service owns (id, status, owner, account,
 * environment) never come from the request.
 */
import { DAY_MS } from '../store/days.js';
import { newId } from '../ids.js';
import { accountOf } from '../store/realm.js';
import type { EnvelopeRecord, SignerRecord, StoredKey } from '../store/records.js';

export function buildEnvelope(body: Record<string, unknown>, key: StoredKey, now: number): EnvelopeRecord {
  const created = new Date(now).toISOString();
  // Validated by the core rules before this point, so name and channel are strings.
  const signers = (body.signers as Record<string, unknown>[]).map((signer): SignerRecord => ({
    id: newId('sgn'),
    ...(signer as { name: string; channel: string }),
    status: 'pending',
    next_at: null,
  }));
  const days = typeof body.expires_in_days === 'number' ? body.expires_in_days : undefined;
  const {
    id: _id,
    object: _object,
    status: _status,
    owner: _owner,
    account: _account,
    environment: _environment,
    ...fields
  } = body;
  return {
    id: newId('env'),
    object: 'envelope',
    status: 'sent',
    ...fields,
    environment: key.environment,
    account: accountOf(key),
    signers,
    sequential: body.sequential === true,
    created_at: created,
    updated_at: created,
    expires_at: days === undefined ? null : new Date(now + days * DAY_MS).toISOString(),
    owner: key.id,
  };
}

/** The envelope as the API shows it: bookkeeping fields left out. */
export function publicEnvelope(envelope: EnvelopeRecord): Record<string, unknown> {
  // The journey (auto or manual) and the identity checks with their answers are the sandbox's own bookkeeping.
  const { owner: _owner, account: _account, journey: _journey, ...rest } = envelope;
  return {
    ...rest,
    // A signer's adopted signature is drawn on the signed copy, not shown in the API.
    signers: envelope.signers.map(
      ({ next_at: _next, id_requests: _requests, signature: _signature, ...signer }) => signer,
    ),
  };
}

/**
 * A key as the published interface lists it (docs/service.md, Authentication and keys): masked,
 * with its environment, scopes, last use and expiry.
 */
export function listedKey(key: StoredKey): Record<string, unknown> {
  return {
    name: key.name,
    environment: key.environment,
    key: key.key_hint,
    last_used: key.last_used,
    expires: key.expires,
    scopes: key.scopes,
  };
}
