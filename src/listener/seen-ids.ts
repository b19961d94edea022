/**
 * The ids of deliveries already seen, so a redelivery (SPEC §6: up to 8
 * retries) is shown as a duplicate rather than a new event. Bounded: the
 * oldest ids are forgotten first, so memory stays flat however long the
 * listener runs. Optionally kept in a file across restarts.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

export const DEFAULT_SEEN_CAPACITY = 50_000;

export class SeenIds {
  /** id -> how many times it was delivered; Map keeps insertion order for eviction. */
  private readonly counts = new Map<string, number>();
  private dirty = false;

  constructor(
    private readonly capacity = DEFAULT_SEEN_CAPACITY,
    private readonly file?: string,
  ) {
    if (file) this.load(file);
  }

  /** Records a delivery of `id`; returns how many times it has now been seen (1 = new). */
  record(id: string): number {
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.delete(id);
    this.counts.set(id, count);
    if (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value!);
    this.dirty = true;
    return count;
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
    const data = JSON.parse(text) as { seen?: [string, number][] };
    for (const [id, count] of data.seen ?? []) if (typeof id === 'string') this.counts.set(id, Number(count) || 1);
    while (this.counts.size > this.capacity) this.counts.delete(this.counts.keys().next().value!);
  }

  /** Writes the set if it changed; atomic (temp file + rename) so a crash never leaves half a file. */
  save(): void {
    if (!this.file || !this.dirty) return;
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, JSON.stringify({ version: 1, seen: [...this.counts] }), { mode: 0o600 });
    renameSync(temp, this.file);
    this.dirty = false;
  }
}
