/**
 * A PDF file as its sequence of revisions (ISO 32000-2 7.5.6, incremental
 * updates). A revision is a prefix of the file that ends in `%%EOF` and
 * reads as a PDF by itself: its last `startxref` leads to cross-reference
 * sections (tables, streams, or both in hybrid files) that lie within it.
 * Each revision resolves objects through its own cross-reference, so the
 * revision a signature signed can be compared, object by object, with every
 * later one. A file whose cross-reference cannot be read is reconstructed by
 * scanning for `n g obj`, as readers repair files; such a file says so
 * (`repaired`), since its revisions cannot be told apart.
 */
import { PdfLexer, isDict, isName, isRef, isStream, type PdfDict, type PdfValue } from './pdf-objects.js';
import { Reader, type Entry } from './pdf-xref.js';

const ascii = (b: Uint8Array, from: number, to: number) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1', from, to);

export class NotAPdfError extends Error {
  override readonly name = 'NotAPdfError';
}

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
}

export interface PdfFile {
  bytes: Uint8Array;
  revisions: Revision[];
  /** Bytes after the last revision that are not whitespace (appended, but not a revision a reader reads). */
  trailingBytes: number;
  /** The cross-reference was unreadable and the objects were found by scanning. */
  repaired: boolean;
}


/** Every position right after `%%EOF` and its end of line. */
function eofEnds(bytes: Uint8Array): { eof: number; end: number }[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const out: { eof: number; end: number }[] = [];
  for (let at = buf.indexOf('%%EOF', 0, 'latin1'); at !== -1; at = buf.indexOf('%%EOF', at + 5, 'latin1')) {
    let end = at + 5;
    if (bytes[end] === 0x0d) end++;
    if (bytes[end] === 0x0a) end++;
    out.push({ eof: at, end });
  }
  return out;
}

/** The revision ending at `end` whose last cross-reference starts at `startxref`, or null when it does not read. */
function readRevision(reader: Reader, number: number, startxref: number, end: number): Revision | null {
  const objects = new Map<number, Entry>();
  let trailer: PdfDict | undefined;
  const seen = new Set<number>();
  let offset: number | undefined = startxref;
  while (offset !== undefined) {
    if (seen.has(offset) || offset >= end || seen.size > 4096) return null;
    seen.add(offset);
    const section = reader.section(offset, end);
    if (!section) return null;
    trailer ??= section.trailer;
    for (const [num, entry] of section.entries) if (!objects.has(num)) objects.set(num, entry);
    if (section.xrefStm !== undefined) {
      const hybrid = reader.section(section.xrefStm, end);
      for (const [num, entry] of hybrid?.entries ?? []) if (!objects.has(num)) objects.set(num, entry);
    }
    offset = section.prev;
  }
  if (!trailer) return null;
  for (const [num, entry] of objects) if (entry.type === 'free') objects.delete(num);
  return revision(reader, number, end, trailer, objects);
}

function revision(reader: Reader, number: number, end: number, trailer: PdfDict, objects: Map<number, Entry>): Revision {
  const cache = new Map<number, PdfValue | undefined>();
  const resolving = new Set<number>();
  const rev: Revision = {
    number,
    end,
    trailer,
    objects,
    get(num) {
      if (cache.has(num)) return cache.get(num);
      const entry = objects.get(num);
      if (!entry || resolving.has(num)) return undefined;
      resolving.add(num);
      let value: PdfValue | undefined;
      try {
        if (entry.type === 'offset') value = reader.objectAt(entry.offset, num, end, (ref) => rev.get(ref.num) ?? null);
        else if (entry.type === 'compressed') value = reader.fromObjectStream(entry.stream, rev.entryKey(entry.stream), rev.get(entry.stream), num);
      } catch {
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
      const entry = objects.get(num);
      if (!entry) return 'none';
      if (entry.type === 'offset') return `@${entry.offset}`;
      if (entry.type === 'compressed') return `${rev.entryKey(entry.stream)}#${entry.index}`;
      return 'free';
    },
  };
  return rev;
}

/** Every `startxref` keyword's position, in order (found once: a hostile file may hold millions of %%EOF). */
function startxrefPositions(bytes: Uint8Array): number[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const out: number[] = [];
  for (let at = buf.indexOf('startxref', 0, 'latin1'); at !== -1; at = buf.indexOf('startxref', at + 9, 'latin1')) out.push(at);
  return out;
}

/** The offset named by the last `startxref` (of `positions`) before `end`. */
function startxrefBefore(bytes: Uint8Array, positions: number[], end: number): number | undefined {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid]! < end) lo = mid + 1;
    else hi = mid;
  }
  const at = positions[lo - 1];
  if (at === undefined) return undefined;
  const m = /^startxref\s+(\d+)/.exec(ascii(bytes, at, Math.min(end, at + 40)));
  return m ? Number(m[1]) : undefined;
}

/** Objects found by scanning (`n g obj`), the last definition of each winning, and the last trailer: a repair. */
function reconstruct(reader: Reader, bytes: Uint8Array): Revision | null {
  const text = ascii(bytes, 0, bytes.length);
  const objects = new Map<number, Entry>();
  for (const m of text.matchAll(/(?:^|[\r\n\s])(\d{1,10})\s+(\d{1,5})\s+obj\b/g)) {
    objects.set(Number(m[1]), { type: 'offset', offset: m.index + m[0].length - m[0].trimStart().length, gen: Number(m[2]) });
  }
  let trailer: PdfDict | undefined;
  const at = text.lastIndexOf('trailer');
  if (at !== -1) {
    try {
      const value = new PdfLexer(bytes, at + 7).value();
      if (isDict(value)) trailer = value;
    } catch {
      // No usable trailer: look for a cross-reference stream's dictionary.
    }
  }
  const rev = revision(reader, 1, bytes.length, trailer ?? { kind: 'dict', entries: new Map() }, objects);
  if (!trailer) {
    for (const num of objects.keys()) {
      const value = rev.get(num);
      if (isStream(value) && isName(value.dict.entries.get('Type'), 'XRef') && value.dict.entries.has('Root')) trailer = value.dict;
    }
    if (!trailer) return null;
    return revision(reader, 1, bytes.length, trailer, objects);
  }
  return rev;
}

/** More revisions than any signing workflow makes: a file with more is refused rather than compared pair by pair. */
export const MAX_REVISIONS = 1000;

/** Reads the file's revisions; NotAPdfError when it is not a PDF at all. */
export function readPdf(bytes: Uint8Array): PdfFile {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).indexOf('%PDF-') === -1) throw new NotAPdfError('not a PDF (no %PDF- header)');
  const reader = new Reader(bytes);
  const revisions: Revision[] = [];
  const positions = startxrefPositions(bytes);
  for (const { eof, end } of eofEnds(bytes)) {
    const startxref = startxrefBefore(bytes, positions, eof);
    // A revision adds a cross-reference of its own: a %%EOF whose startxref names an earlier
    // section adds no revision, and its bytes are counted as appended, not read.
    if (startxref === undefined || startxref < (revisions.at(-1)?.end ?? 0)) continue;
    const rev = readRevision(reader, revisions.length + 1, startxref, end);
    if (rev && isRef(rev.trailer.entries.get('Root'))) revisions.push(rev);
    if (revisions.length > MAX_REVISIONS) throw new NotAPdfError(`more than ${MAX_REVISIONS} revisions: not a document this check compares`);
  }
  // An update with no %%EOF of its own still reads (readers take the last startxref).
  const last = revisions.at(-1);
  const finalStart = startxrefBefore(bytes, positions, bytes.length);
  if (finalStart !== undefined && (!last || finalStart >= last.end)) {
    const rev = readRevision(reader, revisions.length + 1, finalStart, bytes.length);
    if (rev && isRef(rev.trailer.entries.get('Root'))) revisions.push(rev);
  }
  if (revisions.length === 0) {
    const repaired = reconstruct(reader, bytes);
    if (!repaired || !isRef(repaired.trailer.entries.get('Root'))) throw new NotAPdfError('not a readable PDF: no cross-reference and no document catalog found');
    return { bytes, revisions: [repaired], trailingBytes: 0, repaired: true };
  }
  const end = revisions.at(-1)!.end;
  let trailing = 0;
  for (let i = bytes.length - 1; i >= end; i--) {
    const b = bytes[i]!;
    // PDF's white-space characters (NUL, tab, LF, FF, CR, space) after the last %%EOF are not content.
    if (b !== 0 && b !== 9 && b !== 10 && b !== 12 && b !== 13 && b !== 32) {
      trailing = i - end + 1;
      break;
    }
  }
  return { bytes, revisions, trailingBytes: trailing, repaired: false };
}

/** The revision's document catalog. */
export function catalogOf(rev: Revision): PdfDict | undefined {
  const root = rev.resolve(rev.trailer.entries.get('Root'));
  return isDict(root) ? root : undefined;
}
