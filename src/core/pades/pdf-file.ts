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
import { PdfLexer, PdfSyntaxError, decodeStream, isDict, isName, isRef, isStream, objectHeader, type PdfDict, type PdfRef, type PdfValue } from './pdf-objects.js';

export class NotAPdfError extends Error {
  override readonly name = 'NotAPdfError';
}

type Entry = { type: 'free' } | { type: 'offset'; offset: number; gen: number } | { type: 'compressed'; stream: number; index: number };

interface Section {
  entries: Map<number, Entry>;
  trailer: PdfDict;
  prev: number | undefined;
  xrefStm: number | undefined;
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

const ascii = (b: Uint8Array, from: number, to: number) => Buffer.from(b.buffer, b.byteOffset, b.length).toString('latin1', from, to);

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

class Reader {
  private sections = new Map<number, Section | null>();
  private objectStreams = new Map<string, Map<number, PdfValue>>();

  constructor(readonly bytes: Uint8Array) {}

  /** The section at `offset` (a table or a stream), cached: revisions share them. */
  section(offset: number, limit: number): Section | null {
    const key = offset;
    if (this.sections.has(key)) return this.sections.get(key)!;
    let section: Section | null = null;
    try {
      section = this.readSection(offset, limit);
    } catch {
      section = null;
    }
    this.sections.set(key, section);
    return section;
  }

  private readSection(offset: number, limit: number): Section {
    const lexer = new PdfLexer(this.bytes.subarray(0, limit), offset);
    lexer.skipSpace();
    if (lexer.peekWord() === 'xref') {
      lexer.word();
      const entries = new Map<number, Entry>();
      for (;;) {
        lexer.skipSpace();
        const word = lexer.peekWord();
        if (word === 'trailer') break;
        const first = Number(lexer.word());
        lexer.skipSpace();
        const count = Number(lexer.word());
        if (!Number.isInteger(first) || !Number.isInteger(count) || count < 0 || count > 10_000_000) throw new PdfSyntaxError('bad cross-reference subsection');
        for (let i = 0; i < count; i++) {
          lexer.skipSpace();
          const off = Number(lexer.word());
          lexer.skipSpace();
          const gen = Number(lexer.word());
          lexer.skipSpace();
          const kind = lexer.word();
          if (kind !== 'n' && kind !== 'f') throw new PdfSyntaxError('bad cross-reference entry');
          if (!entries.has(first + i)) entries.set(first + i, kind === 'n' ? { type: 'offset', offset: off, gen } : { type: 'free' });
        }
      }
      lexer.word();
      const trailer = lexer.value();
      if (!isDict(trailer)) throw new PdfSyntaxError('the trailer is not a dictionary');
      const num = (k: string) => (typeof trailer.entries.get(k) === 'number' ? (trailer.entries.get(k) as number) : undefined);
      return { entries, trailer, prev: num('Prev'), xrefStm: num('XRefStm') };
    }
    const header = objectHeader(lexer);
    if (!header) throw new PdfSyntaxError('no cross-reference at the startxref offset');
    const stream = lexer.value();
    if (!isStream(stream) || !isName(stream.dict.entries.get('Type'), 'XRef')) throw new PdfSyntaxError('not a cross-reference stream');
    const d = stream.dict.entries;
    const widths = d.get('W');
    if (!Array.isArray(widths) || widths.length < 3 || !widths.every((w) => typeof w === 'number' && w >= 0 && w <= 8)) throw new PdfSyntaxError('bad /W');
    const [w0, w1, w2] = widths as number[];
    const size = typeof d.get('Size') === 'number' ? (d.get('Size') as number) : 0;
    const index = Array.isArray(d.get('Index')) ? (d.get('Index') as number[]) : [0, size];
    const data = decodeStream(stream);
    const rowLength = w0! + w1! + w2!;
    const field = (pos: number, width: number) => {
      let v = 0;
      for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
      return v;
    };
    const entries = new Map<number, Entry>();
    let row = 0;
    for (let s = 0; s + 1 < index.length; s += 2) {
      for (let i = 0; i < index[s + 1]!; i++, row++) {
        const pos = row * rowLength;
        if (pos + rowLength > data.length) break;
        const type = w0 === 0 ? 1 : field(pos, w0!);
        const a = field(pos + w0!, w1!);
        const b = field(pos + w0! + w1!, w2!);
        const num = index[s]! + i;
        if (entries.has(num)) continue;
        if (type === 0) entries.set(num, { type: 'free' });
        else if (type === 1) entries.set(num, { type: 'offset', offset: a, gen: b });
        else if (type === 2) entries.set(num, { type: 'compressed', stream: a, index: b });
      }
    }
    const num = (k: string) => (typeof d.get(k) === 'number' ? (d.get(k) as number) : undefined);
    return { entries, trailer: stream.dict, prev: num('Prev'), xrefStm: undefined };
  }

  /** The object at `offset`, which must be object `num`. */
  objectAt(offset: number, num: number, limit: number, lookup: (ref: PdfRef) => PdfValue): PdfValue | undefined {
    if (offset < 0 || offset >= limit) return undefined;
    const lexer = new PdfLexer(this.bytes.subarray(0, limit), offset, lookup);
    const header = objectHeader(lexer);
    if (!header || header.num !== num) return undefined;
    return lexer.value();
  }

  /** Object `index` of object stream `streamValue` (number `streamNum`). */
  fromObjectStream(streamNum: number, streamKey: string, streamValue: PdfValue | undefined, num: number): PdfValue | undefined {
    let objects = this.objectStreams.get(streamKey);
    if (!objects) {
      objects = new Map();
      this.objectStreams.set(streamKey, objects);
      if (isStream(streamValue) && isName(streamValue.dict.entries.get('Type'), 'ObjStm')) {
        try {
          const data = decodeStream(streamValue);
          const n = streamValue.dict.entries.get('N');
          const first = streamValue.dict.entries.get('First');
          if (typeof n === 'number' && typeof first === 'number') {
            const head = new PdfLexer(data, 0);
            const pairs: [number, number][] = [];
            for (let i = 0; i < n; i++) pairs.push([Number(head.value()), Number(head.value())]);
            for (const [objNum, off] of pairs) {
              try {
                objects.set(objNum, new PdfLexer(data, first + off).value());
              } catch {
                // An unreadable member stays undefined.
              }
            }
          }
        } catch {
          // An undecodable object stream defines nothing.
        }
      }
    }
    void streamNum;
    return objects.get(num);
  }
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
