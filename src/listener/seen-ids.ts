/**
 * The ids of deliveries already seen, so a redelivery (docs/service.md, Events
 * (webhooks): up to 8 retries) is shown as a duplicate rather than a new event.
 * Bounded: the oldest ids are forgotten first, so memory stays flat however
 * long the listener runs. Optionally kept in a file across restarts.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { UsageError } from '../core/errors.js';

export const DEFAULT_SEEN_CAPACITY = 50_000;

export class SeenIds {
  /** id -> how many times it was delivered. */
  private readonly counts = new Map<string, number>();
  /**
   * Ids in arrival order, as a ring: the slot at `next` holds the oldest once
   * full. Eviction is O(1); asking a Map for its first key after many
   * deletions is not (V8 skips the holes one by one).
   */
  private readonly ring: (string | undefined)[];
  private next = 0;
  private dirty = false;

  constructor(
    private readonly capacity = DEFAULT_SEEN_CAPACITY,
    private readonly file?: string,
  ) {
    this.ring = new Array<string | undefined>(capacity);
    if (file) this.load(file);
  }

  /** Records a delivery of `id`; returns how many times it has now been seen (1 = new). */
  record(id: string): number {
    this.dirty = true;
    const count = this.counts.get(id);
    if (count !== undefined) {
      this.counts.set(id, count + 1);
      return count + 1;
    }
    const oldest = this.ring[this.next];
    if (oldest !== undefined) this.counts.delete(oldest);
    this.ring[this.next] = id;
    this.next = (this.next + 1) % this.capacity;
    this.counts.set(id, 1);
    return 1;
  }

  get size(): number {
    return this.counts.size;
  }

  private load(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let data: { seen?: unknown };
    try {
      data = JSON.parse(text) as { seen?: unknown };
    } catch {
      throw new UsageError(`--state ${file}: not a state file written by sign-cli (invalid JSON)`, {
        hint: 'delete it, or pass another --state file',
      });
    }
    if (!data || typeof data !== 'object' || (data.seen !== undefined && !Array.isArray(data.seen))) {
      throw new UsageError(`--state ${file}: not a state file written by sign-cli`, {
        hint: 'delete it, or pass another --state file',
      });
    }
    // Oldest first in the file; only the newest `capacity` are kept.
    for (const item of ((data.seen ?? []) as unknown[]).slice(-this.capacity)) {
      if (!Array.isArray(item)) continue;
      const [id, count] = item as [unknown, unknown];
      if (typeof id !== 'string' || this.counts.has(id)) continue;
      this.record(id);
      this.counts.set(id, Number(count) || 1);
    }
    this.dirty = false;
  }

  /** Ids oldest first, with their counts. */
  private entries(): [string, number][] {
    const out: [string, number][] = [];
    for (let i = 0; i < this.capacity; i++) {
      const id = this.ring[(this.next + i) % this.capacity];
      if (id !== undefined) out.push([id, this.counts.get(id)!]);
    }
    return out;
  }

  /** Writes the set if it changed; atomic (temp file + rename) so a crash never leaves half a file. */
  save(): void {
    if (!this.file || !this.dirty) return;
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: 1, seen: this.entries() }), { mode: 0o600 });
    renameSync(temp, this.file);
    this.dirty = false;
  }
}
