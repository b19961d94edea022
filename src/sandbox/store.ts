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
import { chmodSync, closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readLog, writeAll } from '../core/append-log.js';
import { takePidLock } from '../core/pid-lock.js';
import type { AuditEntry } from '../core/audit.js';

export interface StoredKey {
  id: string;
  name: string;
  key: string;
  environment: string;
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
export type EnvelopeStatus = 'sent' | 'completed' | 'declined' | 'failed' | 'expired';

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
  status: EnvelopeStatus;
  sequential: boolean;
  signers: SignerRecord[];
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRecord {
  /** The event id, sent as `webhook-id` on every attempt. */
  id: string;
  /** Global creation order; deliveries of one envelope go out in this order. */
  seq: number;
  envelope_id: string;
  event_type: string;
  url: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** Sandbox time (ms) of the next attempt. */
  next_at: number;
  last_status: number | null;
  last_error: string | null;
  finished_at: string | null;
}

type LogEntry =
  | { t: 'settings'; webhook_secret: string; admin_key_id: string }
  | { t: 'key'; key: StoredKey }
  | { t: 'key_used'; id: string; at: string }
  /** Envelope, idempotency record, first audit entries and deliveries: one line, so they stand or fall together. */
  | { t: 'created'; envelope: EnvelopeRecord; record: IdempotencyRecord; audit: AuditEntry[]; deliveries: DeliveryRecord[] }
  | { t: 'journey'; envelope: EnvelopeRecord; audit: AuditEntry[]; deliveries: DeliveryRecord[] }
  | { t: 'delivery'; delivery: DeliveryRecord }
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
  webhookSecret = '';
  adminKeyId = '';
  /** Latest time found in the log, so the sandbox clock can resume without going back. */
  latestTime = 0;
  private readonly keysBySecret = new Map<string, StoredKey>();
  private lastDeliverySeq = 0;
  private fd: number | undefined;
  private readonly path: string;
  private readonly unlock: () => void;

  constructor(
    readonly dataDir: string,
    options: { compactMinLines?: number } = {},
  ) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // One sandbox per data dir: two would both append to the log, run the same journeys and send every webhook twice.
    this.unlock = takePidLock(join(dataDir, 'sandbox.lock'), (pid) => `another sandbox (pid ${pid}) is using ${dataDir}`);
    this.path = join(dataDir, 'state.jsonl');
    const lines = this.replay(readLog(this.path));
    // Every journey step rewrites its envelope, so the log grows much faster than the state.
    const live = 1 + this.keys.size + this.envelopes.size + this.idempotency.size + this.deliveries.size;
    if (lines > (options.compactMinLines ?? COMPACT_MIN_LINES) && lines > 2 * live) this.compact();
    this.fd = openSync(this.path, 'a', 0o600);
    chmodSync(this.path, 0o600);
  }

  get isNew(): boolean {
    return this.adminKeyId === '';
  }

  nextDeliverySeq(): number {
    return ++this.lastDeliverySeq;
  }

  /** Applies every line of the log; returns how many there were. */
  private replay(text: string): number {
    let lines = 0;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      lines++;
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        continue; // not a line this store wrote
      }
      this.apply(entry);
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
    lines.push({ t: 'settings', webhook_secret: this.webhookSecret, admin_key_id: this.adminKeyId });
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
        this.webhookSecret = entry.webhook_secret;
        this.adminKeyId = entry.admin_key_id;
        break;
      case 'key':
        this.keys.set(entry.key.id, entry.key);
        this.keysBySecret.set(entry.key.key, entry.key);
        break;
      case 'key_used': {
        const key = this.keys.get(entry.id);
        if (key) key.last_used = entry.at;
        break;
      }
      case 'created':
        this.idempotency.set(idempotencyId(entry.record.scope, entry.record.key), entry.record);
        this.applyJourney(entry.envelope, entry.audit, entry.deliveries);
        break;
      case 'journey':
        this.applyJourney(entry.envelope, entry.audit, entry.deliveries);
        break;
      case 'delivery':
        this.deliveries.set(entry.delivery.id, entry.delivery);
        this.lastDeliverySeq = Math.max(this.lastDeliverySeq, entry.delivery.seq);
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
    for (const delivery of deliveries) {
      this.deliveries.set(delivery.id, delivery);
      this.lastDeliverySeq = Math.max(this.lastDeliverySeq, delivery.seq);
    }
  }

  /** Durably records one change, then applies it. */
  private write(entry: LogEntry): void {
    if (this.fd === undefined) throw new Error('sandbox store is closed');
    writeAll(this.fd, `${JSON.stringify(entry)}\n`);
    fdatasyncSync(this.fd);
    this.apply(entry);
  }

  saveSettings(webhookSecret: string, adminKeyId: string): void {
    this.write({ t: 'settings', webhook_secret: webhookSecret, admin_key_id: adminKeyId });
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

  saveJourney(envelope: EnvelopeRecord, audit: AuditEntry[], deliveries: DeliveryRecord[]): void {
    this.write({ t: 'journey', envelope, audit, deliveries });
  }

  saveDelivery(delivery: DeliveryRecord): void {
    this.write({ t: 'delivery', delivery });
  }

  findKey(secret: string): StoredKey | undefined {
    return this.keysBySecret.get(secret);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.unlock();
  }
}

export const idempotencyId = (scope: string, key: string): string => `${scope}\u0000${key}`;
