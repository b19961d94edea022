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
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AppendLog, readLog, writeAll } from '../../core/journal/append-log.js';
import { takePidLock } from '../../core/journal/pid-lock.js';
import { checkPrivateDirectory, checkPrivateFile } from '../../core/journal/ownership.js';
import type { AuditEntry } from '../../core/envelope/audit.js';
import { checkEntry, type LogEntry } from './log-entries.js';
import {
  deliveryEventId,
  hashSecret,
  keyFields,
  type DeliveryRecord,
  type EnvelopeRecord,
  type IdempotencyRecord,
  type StoredKey,
} from './records.js';

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
    this.unlock = takePidLock(
      join(dataDir, 'sandbox.lock'),
      (pid) => `another sandbox (pid ${pid}) is using ${dataDir}`,
    );
    this.path = join(dataDir, 'state.jsonl');
    checkPrivateFile(this.path, { modeIsFixed: true });
    const lines = this.replay(readLog(this.path, { noFollow: true }));
    // Every journey step rewrites its envelope, so the log grows much faster than the state.
    const live = 1 + this.keys.size + this.envelopes.size + this.idempotency.size + this.deliveries.size;
    const hasClearSecrets = this.clearSecrets.keys.size > 0 || this.clearSecrets.webhookSecret !== undefined;
    // A log that still holds secrets in clear is rewritten at once without them.
    if (hasClearSecrets || (lines > (options.compactMinLines ?? COMPACT_MIN_LINES) && lines > 2 * live))
      this.compact();
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
    for (const envelope of this.envelopes.values())
      lines.push({ t: 'snapshot', envelope, audit: this.audits.get(envelope.id) ?? [] });
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
        this.latestTime = Math.max(this.latestTime, Date.parse(entry.envelope.updated_at) || 0);
        for (const item of entry.audit) this.latestTime = Math.max(this.latestTime, Date.parse(item.at) || 0);
        break;
      case 'idempotency':
        this.idempotency.set(idempotencyId(entry.record.scope, entry.record.key), entry.record);
        break;
    }
  }

  private applyJourney(envelope: EnvelopeRecord, audit: AuditEntry[], deliveries: DeliveryRecord[]): void {
    this.envelopes.set(envelope.id, envelope);
    // A person's step may store no audit entry (an identity check begun): its time is the envelope's.
    this.latestTime = Math.max(this.latestTime, Date.parse(envelope.updated_at) || 0);
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
    return (this.deliveriesByEvent.get(eventId) ?? [])
      .map((id) => this.deliveries.get(id)!)
      .sort((a, b) => a.seq - b.seq);
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

  saveCreated(
    envelope: EnvelopeRecord,
    record: IdempotencyRecord,
    audit: AuditEntry[],
    deliveries: DeliveryRecord[],
  ): void {
    this.write({ t: 'created', envelope, record, audit, deliveries });
  }

  saveVoided(
    envelope: EnvelopeRecord,
    record: IdempotencyRecord,
    audit: AuditEntry[],
    deliveries: DeliveryRecord[],
  ): void {
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
