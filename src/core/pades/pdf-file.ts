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
import { dictOf, isRef, isString, type PdfDict } from './pdf-objects.js';
import { openEncryption, type Encryption } from './pdf-crypt.js';
import { Reader, type Entry, type Section } from './pdf-xref.js';
import { COST, Meter, NotAPdfError, runSteps, type PdfLimits, type Steps } from './pdf-budget.js';
import { revision, type Revision } from './pdf-revision.js';
import { reconstruct } from './pdf-repair.js';

export { NotAPdfError } from './pdf-budget.js';
export { catalogOf, type Revision } from './pdf-revision.js';

export interface PdfFile {
  bytes: Uint8Array;
  revisions: Revision[];
  /** Bytes after the last revision that are not whitespace (appended, but not a revision a reader reads). */
  trailingBytes: number;
  /** The cross-reference was unreadable and the objects were found by scanning. */
  repaired: boolean;
  /**
   * When the bytes after the last revision hold objects (an update whose cross-reference is
   * damaged): the file as readers repair it, those objects laid over the last revision's. Where a
   * signature that lives only there is found.
   */
  tail: Revision | null;
  /** Whether it is encrypted, and how that was met: opened (by the empty password or the one given), or not. */
  encryption:
    | { state: 'none' }
    | { state: 'open'; password: 'empty' | 'given' }
    | { state: 'locked'; why: 'password' | 'handler'; handler: string };
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

/** More revisions than any signing workflow makes: a file with more is refused rather than compared pair by pair. */
export const MAX_REVISIONS = 1000;

/** Reads the file's revisions; NotAPdfError when it is not a PDF at all (PdfLimitError when it costs more than its size warrants). */
export function readPdf(bytes: Uint8Array, limits?: Partial<PdfLimits>, password?: string): PdfFile {
  return runSteps(readPdfSteps(bytes, new Meter(bytes.length, limits), password));
}

/**
 * How the file's encryption (its last revision's /Encrypt) is met: its objects decrypted from
 * now on when the empty password or `password` opens it (pdf-crypt.ts).
 */
function openFile(reader: Reader, last: Revision, password: string | undefined): PdfFile['encryption'] {
  const ref = last.trailer.entries.get('Encrypt');
  const encrypt = dictOf(last.resolve(ref));
  if (!encrypt) return { state: 'none' };
  const id = last.resolve(last.trailer.entries.get('ID'));
  const id0 = Array.isArray(id) && isString(id[0]) ? id[0].bytes : new Uint8Array();
  let opened: Encryption;
  try {
    opened = openEncryption(encrypt, isRef(ref) ? ref.num : null, id0, password);
  } catch {
    // A malformed encryption dictionary opens nothing.
    opened = { state: 'locked', why: 'password', handler: 'Standard' };
  }
  if (opened.state !== 'open') return opened;
  reader.decryptWith(opened.decrypt);
  return { state: 'open', password: opened.password };
}

/** readPdf as steps, counted on `meter`; `password` opens an encrypted file the empty password does not. */
export function* readPdfSteps(bytes: Uint8Array, meter: Meter, password?: string): Steps<PdfFile> {
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
    const repaired = yield* reconstruct(reader, bytes, 1);
    if (!repaired || !isRef(repaired.trailer.entries.get('Root')))
      throw new NotAPdfError('not a readable PDF: no cross-reference and no document catalog found');
    const encryption = openFile(reader, repaired, password);
    return { bytes, revisions: [repaired], trailingBytes: 0, repaired: true, tail: null, encryption, meter };
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
  const encryption = openFile(reader, revisions.at(-1)!, password);
  let tail: Revision | null = null;
  if (trailing > 0) {
    const repaired = yield* reconstruct(reader, bytes, revisions.length + 1, end, revisions.at(-1));
    if (repaired && isRef(repaired.trailer.entries.get('Root'))) tail = repaired;
  }
  return { bytes, revisions, trailingBytes: trailing, repaired: false, tail, encryption, meter };
}
