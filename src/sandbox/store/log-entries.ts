/**
 * The lines of the sandbox's state log (state.jsonl), and the check each
 * line passes before it is replayed: a line this store did not write (hand
 * edits, another version, a torn write) is skipped with a notice, never
 * trusted into the state.
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import { isRecord } from '../../core/envelope/records.js';
import type { DeliveryRecord, EnvelopeRecord, IdempotencyRecord, StoredKey } from './records.js';

export type LogEntry =
  /** `webhook_secret` (in clear) is only found in logs written before secrets were hashed. */
  | { t: 'settings'; webhook_secret_hash?: string; webhook_secret?: string; admin_key_id: string }
  | { t: 'key'; key: StoredKey }
  | { t: 'key_used'; id: string; at: string }
  /** Envelope, idempotency record, first audit entries and deliveries: one line, so they stand or fall together. */
  | {
      t: 'created';
      envelope: EnvelopeRecord;
      record: IdempotencyRecord;
      audit: AuditEntry[];
      deliveries: DeliveryRecord[];
    }
  | { t: 'journey'; envelope: EnvelopeRecord; audit: AuditEntry[]; deliveries: DeliveryRecord[] }
  /** A void asked for through the API: the envelope's last step and the Idempotency-Key's record, together. */
  | {
      t: 'voided';
      envelope: EnvelopeRecord;
      record: IdempotencyRecord;
      audit: AuditEntry[];
      deliveries: DeliveryRecord[];
    }
  | { t: 'delivery'; delivery: DeliveryRecord }
  /** A resend asked for through the API: the new delivery and the Idempotency-Key's record, together. */
  | { t: 'resent'; delivery: DeliveryRecord; record: IdempotencyRecord }
  /** Written only by compaction: one envelope with its whole audit trail, and one idempotency record. */
  | { t: 'snapshot'; envelope: EnvelopeRecord; audit: AuditEntry[] }
  | { t: 'idempotency'; record: IdempotencyRecord };

const isString = (value: unknown): value is string => typeof value === 'string';

function envelopeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || !isString(value.id) || !isString(value.status) || !Array.isArray(value.signers))
    return 'envelope without id, status or signers';
  return value.signers.every((signer) => isRecord(signer) && isString(signer.id) && isString(signer.status))
    ? undefined
    : 'envelope with a malformed signer';
}

function recordProblem(value: unknown): string | undefined {
  return isRecord(value) &&
    isString(value.scope) &&
    isString(value.key) &&
    isString(value.fingerprint) &&
    isRecord(value.response)
    ? undefined
    : 'idempotency record without scope, key, fingerprint or response';
}

function listProblem(
  value: unknown,
  what: string,
  check: (item: Record<string, unknown>) => boolean,
): string | undefined {
  return Array.isArray(value) && value.every((item) => isRecord(item) && check(item))
    ? undefined
    : `malformed ${what}`;
}

const auditOk = (item: Record<string, unknown>) => isString(item.hash) && isString(item.at);
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;
const attemptOk = (item: unknown): boolean =>
  isRecord(item) &&
  isCount(item.attempt) &&
  isString(item.started_at) &&
  (item.status === null || isCount(item.status)) &&
  typeof item.duration_ms === 'number' &&
  (item.error === null || isString(item.error));
/** Fields added with resends and the attempt log are optional (older logs lack them) but checked when present. */
const deliveryOk = (item: Record<string, unknown>) =>
  isString(item.id) &&
  typeof item.seq === 'number' &&
  isString(item.envelope_id) &&
  isString(item.url) &&
  isString(item.body) &&
  isString(item.status) &&
  isCount(item.attempts) &&
  typeof item.next_at === 'number' &&
  (item.event_id === undefined || isString(item.event_id)) &&
  (item.attempt_log === undefined ||
    (Array.isArray(item.attempt_log) && item.attempt_log.every(attemptOk))) &&
  (item.created_at === undefined || isString(item.created_at)) &&
  (item.resend === undefined || typeof item.resend === 'boolean');

/** Why a parsed log line is not a record this store writes, or undefined when it is one. */
export function checkEntry(entry: unknown): string | undefined {
  if (!isRecord(entry) || !isString(entry.t)) return 'not a state record (no "t")';
  switch (entry.t) {
    case 'settings':
      return isString(entry.admin_key_id) &&
        (isString(entry.webhook_secret_hash) || isString(entry.webhook_secret))
        ? undefined
        : 'settings without admin_key_id or webhook secret hash';
    case 'key': {
      const key = entry.key;
      if (!isRecord(key) || !isString(key.id) || !(isString(key.key_hash) || isString(key.key)))
        return 'key without id or hash';
      if (key.account !== undefined && !isString(key.account)) return 'key with a malformed account';
      return Array.isArray(key.scopes) && key.scopes.every(isString) && isString(key.expires)
        ? undefined
        : 'key without scopes or expiry';
    }
    case 'key_used':
      return isString(entry.id) && isString(entry.at) ? undefined : 'key_used without id or time';
    case 'created':
    case 'voided':
      return (
        envelopeProblem(entry.envelope) ??
        recordProblem(entry.record) ??
        listProblem(entry.audit, 'audit entries', auditOk) ??
        listProblem(entry.deliveries, 'deliveries', deliveryOk)
      );
    case 'journey':
      return (
        envelopeProblem(entry.envelope) ??
        listProblem(entry.audit, 'audit entries', auditOk) ??
        listProblem(entry.deliveries, 'deliveries', deliveryOk)
      );
    case 'delivery':
      return listProblem([entry.delivery], 'delivery', deliveryOk);
    case 'resent':
      return listProblem([entry.delivery], 'delivery', deliveryOk) ?? recordProblem(entry.record);
    case 'snapshot':
      return envelopeProblem(entry.envelope) ?? listProblem(entry.audit, 'audit entries', auditOk);
    case 'idempotency':
      return recordProblem(entry.record);
    default:
      return `unknown record type ${JSON.stringify(entry.t).slice(0, 40)}`;
  }
}
