/**
 * The sandbox's state, kept as an append-only log of JSON lines in its data
 * dir. Each acknowledged change is written and fsync'd before the response
 * goes out, so a crash or kill -9 loses nothing the client was told about;
 * start-up replays the log. A torn last line (crash mid-write) is ignored.
 */
import { closeSync, fdatasyncSync, mkdirSync, openSync, readFileSync, writeSync, existsSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

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

export type EnvelopeRecord = Record<string, unknown> & { id: string; owner: string };

type LogEntry =
  | { t: 'settings'; webhook_secret: string; admin_key_id: string }
  | { t: 'key'; key: StoredKey }
  | { t: 'key_used'; id: string; at: string }
  /** One line for both, so a crash can never keep the envelope and lose its idempotency record. */
  | { t: 'created'; envelope: EnvelopeRecord; record: IdempotencyRecord };

export class SandboxStore {
  readonly keys = new Map<string, StoredKey>();
  private readonly keysBySecret = new Map<string, StoredKey>();
  readonly envelopes = new Map<string, EnvelopeRecord>();
  readonly idempotency = new Map<string, IdempotencyRecord>();
  webhookSecret = '';
  adminKeyId = '';
  private fd: number | undefined;
  private readonly path: string;

  constructor(readonly dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.path = join(dataDir, 'state.jsonl');
    if (existsSync(this.path)) this.replay(readFileSync(this.path, 'utf8'));
    this.fd = openSync(this.path, 'a', 0o600);
    chmodSync(this.path, 0o600);
  }

  get isNew(): boolean {
    return this.adminKeyId === '';
  }

  private replay(text: string): void {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        continue; // a line torn by a crash was never acknowledged
      }
      this.apply(entry);
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
        this.envelopes.set(entry.envelope.id, entry.envelope);
        this.idempotency.set(idempotencyId(entry.record.scope, entry.record.key), entry.record);
        break;
    }
  }

  /** Applies and durably records one change. */
  private write(entry: LogEntry): void {
    if (this.fd === undefined) throw new Error('sandbox store is closed');
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
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

  saveCreated(envelope: EnvelopeRecord, record: IdempotencyRecord): void {
    this.write({ t: 'created', envelope, record });
  }

  findKey(secret: string): StoredKey | undefined {
    return this.keysBySecret.get(secret);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

export const idempotencyId = (scope: string, key: string): string => `${scope}\u0000${key}`;
