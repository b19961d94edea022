/**
 * The audit trail of an envelope, made tamper-evident by a hash chain:
 *
 *   hash = SHA-256 hex of the canonical JSON (keys sorted, no spaces) of the
 *          entry without its `hash` field; `prev_hash` is the previous
 *          entry's `hash`, and "0" x 64 for the first entry.
 *
 * Changing, removing, inserting or reordering any entry breaks every hash
 * from there on, and anyone holding the last hash can check the whole trail.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditEntry {
  /** 1, 2, 3… in order. */
  seq: number;
  /** ISO 8601 time of the event (sandbox clock). */
  at: string;
  type: string;
  /** Who did it: `api_key:<id> (<name>)`, `signer:<id> (<name>)` or `system`. */
  actor: string;
  detail: string;
  /** The webhook event id, when the entry was also sent as an event. */
  event_id?: string;
  prev_hash: string;
  hash: string;
}

export type AuditFields = Omit<AuditEntry, 'seq' | 'prev_hash' | 'hash'>;

export function auditEntryHash(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(entry)).digest('hex');
}

/** The next entry of a trail whose last entry is `previous` (undefined for the first). */
/**
 * The trail's closing entry of a completed envelope: the SHA-256 of its signed
 * copy, so trail and document vouch for each other. Written by the sandbox,
 * matched exactly by `envelopes verify --envelope`.
 */
export const SEALED_ENTRY = 'document.sealed';
export const sealedDetail = (sha256: string): string => `signed copy sha256 ${sha256}`;

export function chainAuditEntry(previous: AuditEntry | undefined, fields: AuditFields): AuditEntry {
  const unsigned = { ...fields, seq: (previous?.seq ?? 0) + 1, prev_hash: previous?.hash ?? GENESIS_HASH };
  return { ...unsigned, hash: auditEntryHash(unsigned) };
}

export type AuditVerification =
  | { valid: true; entries: number; head: string }
  | { valid: false; entries: number; index: number; seq: unknown; reason: string };

/**
 * Checks the chain. With `headHash` (the last hash the service reported, or
 * one kept from before), the trail must also end exactly there, or entries
 * were cut off its tail; an empty trail never verifies against a head.
 */
export function verifyAuditChain(
  entries: readonly AuditEntry[],
  headHash?: string | null,
): AuditVerification {
  let previous = GENESIS_HASH;
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index]!;
    const fail = (reason: string): AuditVerification => ({
      valid: false,
      entries: entries.length,
      index,
      seq: entry.seq,
      reason,
    });
    if (entry.seq !== index + 1)
      return fail(
        `expected seq ${index + 1}, found ${JSON.stringify(entry.seq)} (an entry was removed, added or moved)`,
      );
    if (entry.prev_hash !== previous) return fail("prev_hash does not match the previous entry's hash");
    const { hash, ...unsigned } = entry;
    if (auditEntryHash(unsigned) !== hash) return fail('the entry does not match its hash (it was changed)');
    previous = hash;
  }
  if (headHash !== undefined && headHash !== null && headHash !== previous) {
    return {
      valid: false,
      entries: entries.length,
      index: entries.length,
      seq: null,
      reason:
        entries.length === 0
          ? 'the trail is empty, yet a head hash was given'
          : 'the last entry is not the given head hash (entries are missing at the end)',
    };
  }
  return { valid: true, entries: entries.length, head: previous };
}
