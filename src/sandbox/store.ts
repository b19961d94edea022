/**
 * The sandbox's state, kept as an append-only log of JSON lines in its data
 * dir. Each acknowledged change is one line, written and fsync'd before the
 * response goes out (or the next step runs), so a crash or kill -9 loses
 * nothing the outside world was told about; start-up replays the log. A line
 * torn by a crash mid-write was never acknowledged and is cut off.
 *
 * Why not SQLite: node:sqlite needs Node 22 and better-sqlite3 a native build
 * (no prebuilt download on every machine); for this write pattern (small
 * records, one writer, replay on start) an fsync'd log gives the same
 * durability with no dependency. See docs/assumptions.md.
 */
import { createHash } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppendLog, readLog, writeAll } from '../core/append-log.js';
import { takePidLock } from '../core/pid-lock.js';
import { checkPrivateDirectory, checkPrivateFile } from '../core/ownership.js';
import type { AuditEntry } from '../core/audit.js';
import { isRecord } from '../core/records.js';
import { maskKey } from '../core/keys.js';
import type { EnvelopeStatus } from '../core/states.js';

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

export type SignerStatus = 'pending' | 'notified' | 'viewed' | 'verified' | 'signed' | 'declined' | 'verification_failed';
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

type LogEntry =
  /** `webhook_secret` (in clear) is only found in logs written before secrets were hashed. */
  | { t: 'settings'; webhook_secret_hash?: string; webhook_secret?: string; admin_key_id: string }
  | { t: 'key'; key: StoredKey }
  | { t: 'key_used'; id: string; at: string }
  /** Envelope, idempotency record, first audit entries and deliveries: one line, so they stand or fall together. */
  | { t: 'created'; envelope: EnvelopeRecord; record: IdempotencyRecord; audit: AuditEntry[]; deliveries: DeliveryRecord[] }
  | { t: 'journey'; envelope: EnvelopeRecord; audit: AuditEntry[]; deliveries: DeliveryRecord[] }
  /** A void asked for through the API: the envelope's last step and the Idempotency-Key's record, together. */
  | { t: 'voided'; envelope: EnvelopeRecord; record: IdempotencyRecord; audit: AuditEntry[]; deliveries: DeliveryRecord[] }
  | { t: 'delivery'; delivery: DeliveryRecord }
  /** A resend asked for through the API: the new delivery and the Idempotency-Key's record, together. */
  | { t: 'resent'; delivery: DeliveryRecord; record: IdempotencyRecord }
  /** Written only by compaction: one envelope with its whole audit trail, and one idempotency record. */
  | { t: 'snapshot'; envelope: EnvelopeRecord; audit: AuditEntry[] }
  | { t: 'idempotency'; record: IdempotencyRecord };

/** Compaction starts past this many log lines, when most of them are superseded. */
const COMPACT_MIN_LINES = 5_000;

export class SandboxStore {
  readonly keys = new Map<string, StoredKey>();
  readonly envelopes = new Map<string, EnvelopeRecord>();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  readonly audits = new Map<string, AuditEntry[]>();
  readonly deliveries = new Map<string, DeliveryRecord>();
  webhookSecretHash = '';
  adminKeyId = '';
  /** Secrets found in clear in a log from before hashing: used once to recover, then compacted away. */
  readonly clearSecrets = { keys: new Map<string, string>(), webhookSecret: undefined as string | undefined };
  /** Log lines that could not be applied (`state.jsonl:12: …`), skipped; shown at start-up. */
  readonly problems: string[] = [];
  /** Latest time found in the log, so the sandbox clock can resume without going back. */
  latestTime = 0;
  private readonly keysByHash = new Map<string, StoredKey>();
  /** Delivery ids per event id: a resend finds its event without a scan. */
  private readonly deliveriesByEvent = new Map<string, string[]>();
  private lastDeliverySeq = 0;
  private readonly log: AppendLog;
  private closed = false;
  private readonly path: string;
  private readonly unlock: () => void;

  constructor(
    readonly dataDir: string,
    options: { compactMinLines?: number } = {},
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Another user's directory is refused with the fix (its state could be planted), before touching it.
    checkPrivateDirectory(dataDir, { modeIsFixed: true });
    // The mode given to mkdir only applies to a new directory: an existing one is made private on every start.
    chmodSync(dataDir, 0o700);
    // One sandbox per data dir: two would both append to the log, run the same journeys and send every webhook twice.
    this.unlock = takePidLock(join(dataDir, 'sandbox.lock'), (pid) => `another sandbox (pid ${pid}) is using ${dataDir}`);
    this.path = join(dataDir, 'state.jsonl');
    checkPrivateFile(this.path, { modeIsFixed: true });
    const lines = this.replay(readLog(this.path, { noFollow: true }));
    // Every journey step rewrites its envelope, so the log grows much faster than the state.
    const live = 1 + this.keys.size + this.envelopes.size + this.idempotency.size + this.deliveries.size;
    const hasClearSecrets = this.clearSecrets.keys.size > 0 || this.clearSecrets.webhookSecret !== undefined;
    // A log that still holds secrets in clear is rewritten at once without them.
    if (hasClearSecrets || (lines > (options.compactMinLines ?? COMPACT_MIN_LINES) && lines > 2 * live)) this.compact();
    this.log = new AppendLog(this.path, { sync: true, what: 'the sandbox state' });
    this.log.open();
    chmodSync(this.path, 0o600);
  }

  get isNew(): boolean {
    return this.adminKeyId === '';
  }

  nextDeliverySeq(): number {
    return ++this.lastDeliverySeq;
  }

  /**
   * Applies every line of the log; returns how many there were. A line that is
   * not JSON, or not a record this store writes (a hand edit, another tool),
   * is skipped and named in `problems` with its line number; the rest stands.
   */
  private replay(text: string): number {
    let lines = 0;
    let number = 0;
    for (const line of text.split('\n')) {
      number++;
      if (line.trim() === '') continue;
      lines++;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        this.problems.push(`state.jsonl:${number}: not JSON; line skipped`);
        continue;
      }
      const problem = checkEntry(entry);
      if (problem) {
        this.problems.push(`state.jsonl:${number}: ${problem}; line skipped`);
        continue;
      }
      this.apply(entry as LogEntry);
    }
    return lines;
  }

  /**
   * Rewrites the log as the current state, one line per thing, into a temporary
   * file that replaces the log only once it is complete and on disk: a crash
   * during compaction leaves the old log whole.
   */
  private compact(): void {
    const lines: LogEntry[] = [];
    for (const key of this.keys.values()) lines.push({ t: 'key', key });
    lines.push({ t: 'settings', webhook_secret_hash: this.webhookSecretHash, admin_key_id: this.adminKeyId });
    for (const envelope of this.envelopes.values()) lines.push({ t: 'snapshot', envelope, audit: this.audits.get(envelope.id) ?? [] });
    for (const record of this.idempotency.values()) lines.push({ t: 'idempotency', record });
    for (const delivery of this.deliveries.values()) lines.push({ t: 'delivery', delivery });
    const temp = `${this.path}.compact`;
    try {
      const fd = openSync(temp, 'w', 0o600);
      try {
        writeAll(fd, lines.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Disk full or the like: the old log stays, whole; compaction waits for the next start.
      rmSync(temp, { force: true });
      return;
    }
    renameSync(temp, this.path);
    // The rename itself must reach the disk too.
    const dir = openSync(this.dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }

  private apply(entry: LogEntry): void {
    switch (entry.t) {
      case 'settings':
        if (entry.webhook_secret !== undefined) {
          this.clearSecrets.webhookSecret = entry.webhook_secret;
          this.webhookSecretHash = hashSecret(entry.webhook_secret);
        } else this.webhookSecretHash = entry.webhook_secret_hash ?? '';
        this.adminKeyId = entry.admin_key_id;
        break;
      case 'key': {
        const { key: clear, ...rest } = entry.key as StoredKey & { key?: string };
        const key: StoredKey = clear === undefined ? rest : { ...rest, ...keyFields(clear) };
        if (clear !== undefined) this.clearSecrets.keys.set(key.id, clear);
        const previous = this.keys.get(key.id);
        if (previous) this.keysByHash.delete(previous.key_hash);
        this.keys.set(key.id, key);
        this.keysByHash.set(key.key_hash, key);
        break;
      }
      case 'key_used': {
        const key = this.keys.get(entry.id);
        if (key) key.last_used = entry.at;
        break;
      }
      case 'created':
      case 'voided':
        this.idempotency.set(idempotencyId(entry.record.scope, entry.record.key), entry.record);
        this.applyJourney(entry.envelope, entry.audit, entry.deliveries);
        break;
      case 'journey':
        this.applyJourney(entry.envelope, entry.audit, entry.deliveries);
        break;
      case 'resent':
        this.idempotency.set(idempotencyId(entry.record.scope, entry.record.key), entry.record);
        this.applyDelivery(entry.delivery);
        break;
      case 'delivery':
        this.applyDelivery(entry.delivery);
        break;
      case 'snapshot':
        this.envelopes.set(entry.envelope.id, entry.envelope);
        this.audits.set(entry.envelope.id, entry.audit);
        for (const item of entry.audit) this.latestTime = Math.max(this.latestTime, Date.parse(item.at) || 0);
        break;
      case 'idempotency':
        this.idempotency.set(idempotencyId(entry.record.scope, entry.record.key), entry.record);
        break;
    }
  }

  private applyJourney(envelope: EnvelopeRecord, audit: AuditEntry[], deliveries: DeliveryRecord[]): void {
    this.envelopes.set(envelope.id, envelope);
    const trail = this.audits.get(envelope.id) ?? [];
    trail.push(...audit);
    this.audits.set(envelope.id, trail);
    for (const entry of audit) this.latestTime = Math.max(this.latestTime, Date.parse(entry.at) || 0);
    for (const delivery of deliveries) this.applyDelivery(delivery);
  }

  private applyDelivery(delivery: DeliveryRecord): void {
    this.deliveries.set(delivery.id, delivery);
    this.lastDeliverySeq = Math.max(this.lastDeliverySeq, delivery.seq);
    const events = this.deliveriesByEvent.get(deliveryEventId(delivery));
    if (!events) this.deliveriesByEvent.set(deliveryEventId(delivery), [delivery.id]);
    else if (!events.includes(delivery.id)) events.push(delivery.id);
  }

  /** Every delivery of one event (the first, then its resends), in creation order. */
  deliveriesOfEvent(eventId: string): DeliveryRecord[] {
    return (this.deliveriesByEvent.get(eventId) ?? []).map((id) => this.deliveries.get(id)!).sort((a, b) => a.seq - b.seq);
  }

  /**
   * Durably records one change, then applies it. A write that fails (a full
   * disk) throws a StorageError and changes nothing: its bytes are taken back
   * from the log (append-log.ts), and the change is not applied.
   */
  private write(entry: LogEntry): void {
    if (this.closed) throw new Error('sandbox store is closed');
    this.log.append(`${JSON.stringify(entry)}\n`);
    this.apply(entry);
  }

  saveSettings(webhookSecretHash: string, adminKeyId: string): void {
    this.write({ t: 'settings', webhook_secret_hash: webhookSecretHash, admin_key_id: adminKeyId });
  }

  saveKey(key: StoredKey): void {
    this.write({ t: 'key', key });
  }

  markKeyUsed(id: string, at: string): void {
    this.write({ t: 'key_used', id, at });
  }

  saveCreated(envelope: EnvelopeRecord, record: IdempotencyRecord, audit: AuditEntry[], deliveries: DeliveryRecord[]): void {
    this.write({ t: 'created', envelope, record, audit, deliveries });
  }

  saveVoided(envelope: EnvelopeRecord, record: IdempotencyRecord, audit: AuditEntry[], deliveries: DeliveryRecord[]): void {
    this.write({ t: 'voided', envelope, record, audit, deliveries });
  }

  saveJourney(envelope: EnvelopeRecord, audit: AuditEntry[], deliveries: DeliveryRecord[]): void {
    this.write({ t: 'journey', envelope, audit, deliveries });
  }

  /** A delivery after an attempt: its state and every attempt so far, in one line. */
  saveDelivery(delivery: DeliveryRecord): void {
    this.write({ t: 'delivery', delivery });
  }

  saveResent(delivery: DeliveryRecord, record: IdempotencyRecord): void {
    this.write({ t: 'resent', delivery, record });
  }

  findKey(secret: string): StoredKey | undefined {
    return this.keysByHash.get(hashSecret(secret));
  }

  close(): void {
    this.closed = true;
    this.log.close();
    this.unlock();
  }
}

export const idempotencyId = (scope: string, key: string): string => `${scope}\u0000${key}`;

const isString = (value: unknown): value is string => typeof value === 'string';

function envelopeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || !isString(value.id) || !isString(value.status) || !Array.isArray(value.signers)) return 'envelope without id, status or signers';
  return value.signers.every((signer) => isRecord(signer) && isString(signer.id) && isString(signer.status)) ? undefined : 'envelope with a malformed signer';
}

function recordProblem(value: unknown): string | undefined {
  return isRecord(value) && isString(value.scope) && isString(value.key) && isString(value.fingerprint) && isRecord(value.response) ? undefined : 'idempotency record without scope, key, fingerprint or response';
}

function listProblem(value: unknown, what: string, check: (item: Record<string, unknown>) => boolean): string | undefined {
  return Array.isArray(value) && value.every((item) => isRecord(item) && check(item)) ? undefined : `malformed ${what}`;
}

const auditOk = (item: Record<string, unknown>) => isString(item.hash) && isString(item.at);
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;
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
  (item.attempt_log === undefined || (Array.isArray(item.attempt_log) && item.attempt_log.every(attemptOk))) &&
  (item.created_at === undefined || isString(item.created_at)) &&
  (item.resend === undefined || typeof item.resend === 'boolean');

/** Why a parsed log line is not a record this store writes, or undefined when it is one. */
function checkEntry(entry: unknown): string | undefined {
  if (!isRecord(entry) || !isString(entry.t)) return 'not a state record (no "t")';
  switch (entry.t) {
    case 'settings':
      return isString(entry.admin_key_id) && (isString(entry.webhook_secret_hash) || isString(entry.webhook_secret)) ? undefined : 'settings without admin_key_id or webhook secret hash';
    case 'key': {
      const key = entry.key;
      if (!isRecord(key) || !isString(key.id) || !(isString(key.key_hash) || isString(key.key))) return 'key without id or hash';
      if (key.account !== undefined && !isString(key.account)) return 'key with a malformed account';
      return Array.isArray(key.scopes) && key.scopes.every(isString) && isString(key.expires) ? undefined : 'key without scopes or expiry';
    }
    case 'key_used':
      return isString(entry.id) && isString(entry.at) ? undefined : 'key_used without id or time';
    case 'created':
    case 'voided':
      return envelopeProblem(entry.envelope) ?? recordProblem(entry.record) ?? listProblem(entry.audit, 'audit entries', auditOk) ?? listProblem(entry.deliveries, 'deliveries', deliveryOk);
    case 'journey':
      return envelopeProblem(entry.envelope) ?? listProblem(entry.audit, 'audit entries', auditOk) ?? listProblem(entry.deliveries, 'deliveries', deliveryOk);
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
