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
import { isDict, isName, isRef, isStream, type PdfDict, type PdfValue } from './pdf-objects.js';
import { PdfLexer } from './pdf-lexer.js';
import { Reader, rethrowLimit, type Entry, type Section } from './pdf-xref.js';
import { COST, Meter, NotAPdfError, runSteps, type PdfLimits, type Steps } from './pdf-budget.js';

export { NotAPdfError } from './pdf-budget.js';

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

export interface PdfFile {
  bytes: Uint8Array;
  revisions: Revision[];
  /** Bytes after the last revision that are not whitespace (appended, but not a revision a reader reads). */
  trailingBytes: number;
  /** The cross-reference was unreadable and the objects were found by scanning. */
  repaired: boolean;
  /** The work reading it took, and what is left for checking it. */
  meter: Meter;
}

const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length);

/** Every position right after `%%EOF` and its end of line, one at a time (a hostile file may hold millions). */
function* eofEnds(bytes: Uint8Array): Generator<{ eof: number; end: number }> {
  const buf = buffer(bytes);
  for (let at = buf.indexOf('%%EOF', 0, 'latin1'); at !== -1; at = buf.indexOf('%%EOF', at + 5, 'latin1')) {
    let end = at + 5;
    if (bytes[end] === 0x0d) end++;
    if (bytes[end] === 0x0a) end++;
    yield { eof: at, end };
  }
}

/**
 * The `startxref` keywords, walked once from the start of the file: `before(end)` is the offset
 * the last one before `end` names (`end` never decreasing from one call to the next), each
 * keyword found once whatever the number of %%EOF.
 */
class StartxrefCursor {
  private readonly buf: Buffer;
  private next: number;
  /** Where the last keyword found before `end` is (-1: none). */
  last = -1;

  constructor(bytes: Uint8Array) {
    this.buf = buffer(bytes);
    this.next = this.buf.indexOf('startxref', 0, 'latin1');
  }

  before(end: number): number | undefined {
    while (this.next !== -1 && this.next < end) {
      this.last = this.next;
      this.next = this.buf.indexOf('startxref', this.next + 9, 'latin1');
    }
    return this.last === -1 ? undefined : startxrefValue(this.buf, this.last, end);
  }
}

/** JavaScript's \s among the bytes: what /^startxref\s+(\d+)/ skips. */
const JS_SPACE = new Uint8Array(256);
for (const b of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) JS_SPACE[b] = 1;

/** The offset `startxref` at `at` names, read within 40 bytes and before `end` (as /^startxref\s+(\d+)/ would). */
function startxrefValue(buf: Buffer, at: number, end: number): number | undefined {
  const limit = Math.min(end, at + 40, buf.length);
  let p = at + 9;
  const spaces = p;
  while (p < limit && JS_SPACE[buf[p]!]) p++;
  if (p === spaces) return undefined;
  const digits = p;
  let value = 0;
  while (p < limit && buf[p]! >= 0x30 && buf[p]! <= 0x39) value = value * 10 + buf[p++]! - 0x30;
  return p === digits ? undefined : value;
}

/** Adds to `into` what `from` defines that it does not, counted; yields in a large section. */
function* merge(into: Map<number, Entry>, from: Map<number, Entry>, meter: Meter): Steps<void> {
  let n = 0;
  for (const num of from.keys()) {
    if (!into.has(num)) into.set(num, from.get(num)!);
    if ((++n & 0xfff) === 0) {
      meter.add(COST.entry * 0x1000);
      if (meter.due) yield;
    }
  }
  meter.add(COST.entry * (n & 0xfff));
}

/** The revision ending at `end` whose last cross-reference starts at `startxref`, or null when it does not read. */
function* readRevision(
  reader: Reader,
  number: number,
  startxref: number,
  end: number,
): Steps<Revision | null> {
  let objects: Map<number, Entry> | undefined;
  let trailer: PdfDict | undefined;
  const seen = new Set<number>();
  const frees: number[][] = [];
  // The chain from here on is the same for every revision that reaches it: once it leads nowhere, every offset on it does.
  const doom = () => {
    for (const at of seen) reader.doomed.add(at);
    return null;
  };
  let offset: number | undefined = startxref;
  while (offset !== undefined) {
    if (offset >= end || seen.size > 4096) return null;
    if (seen.has(offset) || reader.doomed.has(offset)) return doom();
    seen.add(offset);
    const section: Section | null = yield* reader.section(offset, end);
    if (!section) return doom();
    trailer ??= section.trailer;
    frees.push(section.frees);
    if (!objects && section.entries.size <= 0x10000) {
      // The newest section whole (one copy), the older ones under it.
      objects = new Map(section.entries);
      reader.meter.add(COST.entry * objects.size);
    } else yield* merge((objects ??= new Map<number, Entry>()), section.entries, reader.meter);
    if (section.xrefStm !== undefined) {
      const hybrid: Section | null = yield* reader.section(section.xrefStm, end);
      if (hybrid) {
        frees.push(hybrid.frees);
        yield* merge(objects, hybrid.entries, reader.meter);
      }
    }
    offset = section.prev;
  }
  // Without a catalog it is no revision (readers start from /Root).
  if (!trailer || !objects || !isRef(trailer.entries.get('Root'))) return null;
  for (const list of frees)
    for (const num of list) if (objects.get(num)?.type === 'free') objects.delete(num);
  return revision(reader, number, end, trailer, objects);
}

/** How deep object streams may name each other before an entry is taken as unreadable. */
const MAX_KEY_DEPTH = 8;

function revision(
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

const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
const isWordByte = (b: number | undefined) =>
  b !== undefined &&
  ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f);
const isSpace = (b: number | undefined) => b !== undefined && JS_SPACE[b] === 1;

/**
 * `n g obj` ending at the `obj` at `at`: the offset of n and the two numbers, or undefined. As
 * the pattern /(^|\s)(\d{1,10})\s+(\d{1,5})\s+obj\b/ finds it, read backwards from the keyword
 * so that the file is scanned once (a regular expression over the whole file as text costs a
 * string as large as the file, and more than V8 allows past 512 MB).
 */
function objectAtKeyword(buf: Buffer, at: number): { offset: number; num: number; gen: number } | undefined {
  if (isWordByte(buf[at + 3])) return undefined;
  let p = at - 1;
  if (!isSpace(buf[p])) return undefined;
  while (isSpace(buf[p])) p--;
  const genEnd = p + 1;
  while (isDigit(buf[p])) p--;
  const genStart = p + 1;
  if (genEnd - genStart < 1 || genEnd - genStart > 5 || !isSpace(buf[p])) return undefined;
  while (isSpace(buf[p])) p--;
  const numEnd = p + 1;
  while (isDigit(buf[p])) p--;
  const numStart = p + 1;
  if (numEnd - numStart < 1 || numEnd - numStart > 10 || (p >= 0 && !isSpace(buf[p]))) return undefined;
  return {
    offset: numStart,
    num: Number(buf.toString('latin1', numStart, numEnd)),
    gen: Number(buf.toString('latin1', genStart, genEnd)),
  };
}

/** Objects found by scanning (`n g obj`), the last definition of each winning, and the last trailer: a repair. */
function* reconstruct(reader: Reader, bytes: Uint8Array): Steps<Revision | null> {
  const buf = buffer(bytes);
  const meter = reader.meter;
  const objects = new Map<number, Entry>();
  for (let at = buf.indexOf('obj', 0, 'latin1'); at !== -1; at = buf.indexOf('obj', at + 3, 'latin1')) {
    meter.add(COST.scanned);
    if (meter.due) yield;
    const found = objectAtKeyword(buf, at);
    if (found) objects.set(found.num, { type: 'offset', offset: found.offset, gen: found.gen });
  }
  let trailer: PdfDict | undefined;
  const at = buf.lastIndexOf('trailer', undefined, 'latin1');
  if (at !== -1) {
    const lexer = new PdfLexer(bytes, at + 7, reader.lexerOptions);
    try {
      const value = lexer.value();
      if (isDict(value)) trailer = value;
    } catch (error) {
      // No usable trailer: look for a cross-reference stream's dictionary.
      rethrowLimit(error);
    } finally {
      meter.add(lexer.far - at);
    }
  }
  const rev = revision(reader, 1, bytes.length, trailer ?? { kind: 'dict', entries: new Map() }, objects);
  if (!trailer) {
    for (const num of objects.keys()) {
      const value = rev.get(num);
      if (isStream(value) && isName(value.dict.entries.get('Type'), 'XRef') && value.dict.entries.has('Root'))
        trailer = value.dict;
      if (meter.due) yield;
    }
    if (!trailer) return null;
    return revision(reader, 1, bytes.length, trailer, objects);
  }
  return rev;
}

/** More revisions than any signing workflow makes: a file with more is refused rather than compared pair by pair. */
export const MAX_REVISIONS = 1000;

/** Reads the file's revisions; NotAPdfError when it is not a PDF at all (PdfLimitError when it costs more than its size warrants). */
export function readPdf(bytes: Uint8Array, limits?: Partial<PdfLimits>): PdfFile {
  return runSteps(readPdfSteps(bytes, new Meter(bytes.length, limits)));
}

/** readPdf as steps, counted on `meter`. */
export function* readPdfSteps(bytes: Uint8Array, meter: Meter): Steps<PdfFile> {
  if (buffer(bytes).subarray(0, Math.min(bytes.length, 1024)).indexOf('%PDF-') === -1)
    throw new NotAPdfError('not a PDF (no %PDF- header)');
  const reader = new Reader(bytes, meter);
  const revisions: Revision[] = [];
  const startxrefs = new StartxrefCursor(bytes);
  for (const { eof, end } of eofEnds(bytes)) {
    meter.add(COST.scanned);
    if (meter.due) yield;
    const startxref = startxrefs.before(eof);
    // A revision adds a cross-reference of its own: a %%EOF whose startxref names an earlier
    // section adds no revision, and its bytes are counted as appended, not read. A section
    // always precedes the startxref that names it: one that names its own bytes or later names none.
    if (startxref === undefined || startxref < (revisions.at(-1)?.end ?? 0) || startxref >= startxrefs.last)
      continue;
    meter.add(COST.candidate);
    const mark = reader.mark;
    const rev = yield* readRevision(reader, revisions.length + 1, startxref, end);
    if (rev) revisions.push(rev);
    else reader.forget(mark);
    if (revisions.length > MAX_REVISIONS)
      throw new NotAPdfError(`more than ${MAX_REVISIONS} revisions: not a document this check compares`);
  }
  // An update with no %%EOF of its own still reads (readers take the last startxref).
  const last = revisions.at(-1);
  const finalStart = startxrefs.before(bytes.length);
  if (finalStart !== undefined && (!last || finalStart >= last.end) && finalStart < startxrefs.last) {
    const rev = yield* readRevision(reader, revisions.length + 1, finalStart, bytes.length);
    if (rev) revisions.push(rev);
  }
  if (revisions.length === 0) {
    const repaired = yield* reconstruct(reader, bytes);
    if (!repaired || !isRef(repaired.trailer.entries.get('Root')))
      throw new NotAPdfError('not a readable PDF: no cross-reference and no document catalog found');
    return { bytes, revisions: [repaired], trailingBytes: 0, repaired: true, meter };
  }
  const end = revisions.at(-1)!.end;
  let trailing = 0;
  let i = bytes.length - 1;
  for (; i >= end; i--) {
    const b = bytes[i]!;
    // PDF's white-space characters (NUL, tab, LF, FF, CR, space) after the last %%EOF are not content.
    if (b !== 0 && b !== 9 && b !== 10 && b !== 12 && b !== 13 && b !== 32) {
      trailing = i - end + 1;
      break;
    }
  }
  meter.add(COST.byte * (bytes.length - 1 - i));
  return { bytes, revisions, trailingBytes: trailing, repaired: false, meter };
}

/** The revision's document catalog. */
export function catalogOf(rev: Revision): PdfDict | undefined {
  const root = rev.resolve(rev.trailer.entries.get('Root'));
  return isDict(root) ? root : undefined;
}
