/**
 * A file read as readers repair it when its cross-reference cannot be read: objects found by
 * scanning for `n g obj` (the last definition of each winning) and the last trailer, over the whole
 * file, or over the bytes after the last revision that reads (an update whose cross-reference is
 * damaged), laid over that revision's objects.
 */
import { isDict, isName, isStream, type PdfDict } from './pdf-objects.js';
import { PdfLexer } from './pdf-lexer.js';
import { rethrowLimit, type Entry, type Reader } from './pdf-xref.js';
import { COST, type Steps } from './pdf-budget.js';
import { revision, type Revision } from './pdf-revision.js';

const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length);

/** JavaScript's \s among the bytes. */
const JS_SPACE = new Uint8Array(256);
for (const b of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) JS_SPACE[b] = 1;

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

/**
 * Objects found by scanning bytes [from, the end) for `n g obj`, the last definition of each
 * winning, laid over `base`'s objects (when the scan starts after a revision that reads); the last
 * trailer found there (or a cross-reference stream's dictionary naming a catalog), else `base`'s.
 */
export function* reconstruct(
  reader: Reader,
  bytes: Uint8Array,
  number: number,
  from = 0,
  base?: Revision,
): Steps<Revision | null> {
  const buf = buffer(bytes);
  const meter = reader.meter;
  const objects = new Map<number, Entry>(base?.objects);
  const found = new Set<number>();
  for (let at = buf.indexOf('obj', from, 'latin1'); at !== -1; at = buf.indexOf('obj', at + 3, 'latin1')) {
    meter.add(COST.scanned);
    if (meter.due) yield;
    const object = objectAtKeyword(buf, at);
    if (object && object.offset >= from) {
      objects.set(object.num, { type: 'offset', offset: object.offset, gen: object.gen });
      found.add(object.num);
    }
  }
  let trailer: PdfDict | undefined;
  const at = buf.lastIndexOf('trailer', undefined, 'latin1');
  if (at >= from) {
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
  const empty: PdfDict = { kind: 'dict', entries: new Map() };
  const rev = revision(reader, number, bytes.length, trailer ?? base?.trailer ?? empty, objects);
  // After a revision that reads, its trailer stands (the update's catalog, redefined, is found under
  // its number): objects are not read one by one for a cross-reference stream's dictionary.
  if (trailer || base) return rev;
  for (const num of found) {
    const value = rev.get(num);
    if (isStream(value) && isName(value.dict.entries.get('Type'), 'XRef') && value.dict.entries.has('Root'))
      trailer = value.dict;
    if (meter.due) yield;
  }
  return trailer ? revision(reader, number, bytes.length, trailer, objects) : null;
}
