/**
 * Two revisions' values compared by what they are, not by their object numbers: a catalog, a
 * page's resources or an annotation saved again under a new number with the same content is the
 * same thing to a reader, and so it is here. A reference to the same object number in both is the
 * same (if that object itself changed, the revision analysis judges it on its own); references to
 * different numbers are followed and their objects compared, each pair once (a pair met again
 * while it is being compared, as a page's /Parent leads back, is taken as the same). Streams are
 * compared by their dictionaries and their decoded data, so that a stream compressed anew is no
 * change. Every comparison is counted on the revisions' meter.
 */
import { isRef, type PdfDict, type PdfStream, type PdfValue } from '../pdf-objects.js';
import type { Revision } from '../pdf-file.js';
import { decodeStream } from '../pdf-stream-decode.js';
import { rethrowLimit } from '../pdf-xref.js';
import { COST } from '../pdf-budget.js';

/** How deep a comparison follows direct values and references before it calls two values different. */
const MAX_DEPTH = 256;

/** Keys a stream's dictionary may differ in without its content differing (how it is stored). */
const STORAGE_KEYS = new Set(['Length', 'Filter', 'DecodeParms', 'DL']);

export class Sameness {
  /** Pairs of objects compared (`old num gen|new num gen`), and their answer. */
  private readonly memo = new Map<string, boolean>();

  constructor(
    readonly old: Revision,
    readonly next: Revision,
  ) {}

  /** Whether `a` (a value of the old revision) and `b` (of the new one) are the same to a reader. */
  same(a: PdfValue | undefined, b: PdfValue | undefined, depth = 0): boolean {
    if (a === b) return true;
    this.old.meter.add(COST.visit);
    if (depth > MAX_DEPTH) return false;
    if (isRef(a) || isRef(b)) return this.sameRef(a, b, depth);
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a) || Array.isArray(b))
      return (
        Array.isArray(a) &&
        Array.isArray(b) &&
        a.length === b.length &&
        a.every((x, i) => this.same(x, b[i], depth + 1))
      );
    if (a.kind !== b.kind) return false;
    switch (a.kind) {
      case 'name':
        return a.name === (b as typeof a).name;
      case 'string': {
        const other = b as typeof a;
        const bytes = (s: typeof a) => Buffer.from(s.raw ?? s.bytes);
        return !!a.raw === !!other.raw && bytes(a).equals(bytes(other));
      }
      case 'dict':
        return this.sameDict(a, b as PdfDict, depth, null);
      case 'stream':
        return this.sameStream(a, b as PdfStream, depth);
      default:
        return false;
    }
  }

  /** The keys whose values differ between two dictionaries (of the old and the new revision), by what the values are. */
  changedKeys(a: PdfDict | undefined, b: PdfDict | undefined): string[] {
    const keys = new Set([...(a?.entries.keys() ?? []), ...(b?.entries.keys() ?? [])]);
    return [...keys].filter((k) => !this.same(a?.entries.get(k), b?.entries.get(k)));
  }

  private sameRef(a: PdfValue | undefined, b: PdfValue | undefined, depth: number): boolean {
    if (isRef(a) && isRef(b) && a.num === b.num && a.gen === b.gen) return true;
    const key = `${isRef(a) ? `${a.num} ${a.gen}` : '-'}|${isRef(b) ? `${b.num} ${b.gen}` : '-'}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    // Met again while being compared (a cycle): the same, unless something else in it differs.
    this.memo.set(key, true);
    const resolvedA = isRef(a) ? this.old.get(a.num) : a;
    const resolvedB = isRef(b) ? this.next.get(b.num) : b;
    const answer =
      resolvedA !== undefined && resolvedB !== undefined && this.same(resolvedA, resolvedB, depth + 1);
    this.memo.set(key, answer);
    return answer;
  }

  private sameDict(a: PdfDict, b: PdfDict, depth: number, skip: Set<string> | null): boolean {
    const keys = (d: PdfDict) => [...d.entries.keys()].filter((k) => !skip?.has(k));
    const ka = keys(a);
    return (
      ka.length === keys(b).length &&
      ka.every((k) => b.entries.has(k) && this.same(a.entries.get(k), b.entries.get(k), depth + 1))
    );
  }

  private sameStream(a: PdfStream, b: PdfStream, depth: number): boolean {
    if (!this.sameDict(a.dict, b.dict, depth, STORAGE_KEYS)) return false;
    const raw = (s: PdfStream) => Buffer.from(s.raw.buffer, s.raw.byteOffset, s.raw.length);
    const storedAlike = ['Filter', 'DecodeParms'].every((k) =>
      this.same(a.dict.entries.get(k), b.dict.entries.get(k), depth + 1),
    );
    if (storedAlike && raw(a).equals(raw(b))) return true;
    const decoded = (s: PdfStream): Buffer | null => {
      try {
        const data = decodeStream(s, this.old.meter);
        return Buffer.from(data.buffer, data.byteOffset, data.length);
      } catch (error) {
        rethrowLimit(error);
        return null;
      }
    };
    const da = decoded(a);
    const db = decoded(b);
    return da !== null && db !== null && da.equals(db);
  }
}
