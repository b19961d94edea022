/**
 * One revision of a PDF file: the bytes [0, end) read through its own cross-reference (or, for a
 * repaired reading, through the objects a scan found), each object read once and kept.
 */
import { isDict, isRef, type PdfDict, type PdfValue } from './pdf-objects.js';
import { rethrowLimit, type Entry, type Reader } from './pdf-xref.js';
import { COST, type Meter } from './pdf-budget.js';

/** One revision: the bytes [0, end) and how to read objects in them. */
export interface Revision {
  /** 1 for the first revision. */
  number: number;
  end: number;
  trailer: PdfDict;
  /** Every object number the revision's cross-reference defines (free ones excluded). */
  objects: Map<number, Entry>;
  get(num: number): PdfValue | undefined;
  resolve(value: PdfValue | undefined): PdfValue | undefined;
  /** The entry's identity: two revisions with the same key for an object read the same bytes for it. */
  entryKey(num: number): string;
  /** The file's meter: what reading and comparing its objects costs is counted there. */
  meter: Meter;
}

/** How deep object streams may name each other before an entry is taken as unreadable. */
const MAX_KEY_DEPTH = 8;

export function revision(
  reader: Reader,
  number: number,
  end: number,
  trailer: PdfDict,
  objects: Map<number, Entry>,
): Revision {
  const cache = new Map<number, PdfValue | undefined>();
  const resolving = new Set<number>();
  const keyOf = (num: number, depth: number): string => {
    const entry = objects.get(num);
    if (!entry) return 'none';
    if (entry.type === 'offset') return `@${entry.offset}`;
    // An object stream inside an object stream, or one that holds itself: nothing reads it.
    if (entry.type === 'compressed')
      return depth >= MAX_KEY_DEPTH ? 'none' : `${keyOf(entry.stream, depth + 1)}#${entry.index}`;
    return 'free';
  };
  const rev: Revision = {
    number,
    end,
    trailer,
    objects,
    meter: reader.meter,
    get(num) {
      if (cache.has(num)) return cache.get(num);
      const entry = objects.get(num);
      if (!entry || resolving.has(num)) return undefined;
      reader.meter.add(COST.visit);
      resolving.add(num);
      let value: PdfValue | undefined;
      try {
        if (entry.type === 'offset') value = reader.objectAt(entry.offset, num, rev);
        else if (entry.type === 'compressed') {
          const key = rev.entryKey(entry.stream);
          value =
            key === 'none' || key.includes('#')
              ? undefined
              : reader.fromObjectStream(key, rev.get(entry.stream), num);
        }
      } catch (error) {
        rethrowLimit(error);
        value = undefined;
      } finally {
        resolving.delete(num);
      }
      cache.set(num, value);
      return value;
    },
    resolve(value) {
      for (let i = 0; i < 32 && isRef(value); i++) value = rev.get(value.num);
      return isRef(value) ? undefined : value;
    },
    entryKey(num) {
      return keyOf(num, 0);
    },
  };
  return rev;
}

/** The revision's document catalog. */
export function catalogOf(rev: Revision): PdfDict | undefined {
  const root = rev.resolve(rev.trailer.entries.get('Root'));
  return isDict(root) ? root : undefined;
}
