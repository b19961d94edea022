/**
 * Deliveries kept in memory: where Node has no node:sqlite (Node 20, and 22 before 22.13), the
 * inspector works the same, and forgets them when the listener stops. The newest `keep` are
 * kept, the oldest dropped first, as the SQLite store does.
 */
import {
  attemptFailed,
  ChangeListeners,
  foldAscii,
  type Attempt,
  type DeliveryQuery,
  type DeliveryRecord,
  type DeliveryStore,
  type DeliverySummary,
} from './records.js';

/** Whether a delivery passes a query's filters (sqlite-schema.ts's filterOf says the same in SQL). */
export function matchesQuery(record: DeliveryRecord, query: DeliveryQuery): boolean {
  if (query.before !== undefined && record.id >= query.before) return false;
  if (query.type !== undefined && record.type !== query.type) return false;
  switch (query.status) {
    case 'verified':
      if (!record.verified) return false;
      break;
    case 'refused':
      if (record.verified) return false;
      break;
    case 'duplicate':
      if (record.delivery < 2) return false;
      break;
    case 'forward-failed':
      if (!record.attempts.some((a) => a.kind === 'forward' && attemptFailed(a))) return false;
      break;
  }
  if (query.text !== undefined && query.text !== '') {
    const needle = foldAscii(query.text);
    const fields = [record.type, record.eventId, record.envelopeId, record.path, record.reason];
    if (
      !fields.some((field) => field !== null && foldAscii(field).includes(needle)) &&
      !foldAscii(record.body.toString('utf8')).includes(needle)
    )
      return false;
  }
  return true;
}

const summary = ({
  httpVersion: _v,
  rawHeaders: _h,
  body: _b,
  ...rest
}: DeliveryRecord): DeliverySummary => ({
  ...rest,
  attempts: [...rest.attempts],
});

export class MemoryStore implements DeliveryStore {
  readonly file = undefined;
  private readonly records = new Map<number, DeliveryRecord>();
  /** Ids in arrival order; the first are dropped once more than `keep` are kept. */
  private readonly order: number[] = [];
  private dropped = 0;
  private newest = 0;
  private readonly listeners = new ChangeListeners();

  constructor(readonly keep: number) {}

  get lastId(): number {
    return this.newest;
  }

  add(record: DeliveryRecord): void {
    this.records.set(record.id, record);
    this.order.push(record.id);
    this.newest = Math.max(this.newest, record.id);
    while (this.order.length - this.dropped > this.keep) this.records.delete(this.order[this.dropped++]!);
    // Dropped ids are forgotten in runs, not one shift() at a time.
    if (this.dropped > 1024 && this.dropped * 2 > this.order.length) {
      this.order.splice(0, this.dropped);
      this.dropped = 0;
    }
    this.changed();
  }

  addAttempts(id: number, attempts: readonly Attempt[], answered?: number): void {
    const record = this.records.get(id);
    if (!record) return;
    record.attempts.push(...attempts);
    if (answered !== undefined) record.answered = answered;
    this.changed();
  }

  list(query: DeliveryQuery): DeliverySummary[] {
    const found: DeliverySummary[] = [];
    for (let i = this.order.length - 1; i >= this.dropped && found.length < query.limit; i--) {
      const record = this.records.get(this.order[i]!)!;
      if (matchesQuery(record, query)) found.push(summary(record));
    }
    return found;
  }

  get(id: number): DeliveryRecord | undefined {
    const record = this.records.get(id);
    return record && { ...record, attempts: [...record.attempts] };
  }

  count(): number {
    return this.records.size;
  }

  types(): string[] {
    const types = new Set<string>();
    for (const record of this.records.values()) if (record.type !== null) types.add(record.type);
    return [...types].sort();
  }

  onChange(listener: (newestId: number) => void): () => void {
    return this.listeners.add(listener);
  }

  onError(): void {
    // Memory does not fail to keep.
  }

  async flushed(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private changed(): void {
    this.listeners.changed(this.newest);
  }
}
