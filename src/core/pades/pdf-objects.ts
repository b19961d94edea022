/**
 * PDF objects (ISO 32000-2 7.3) as the verifier holds them: numbers, names, strings, arrays,
 * dictionaries, references and streams, with the tests, text and equality the rest of the verifier
 * uses on them. Apart from reading them from bytes (pdf-lexer.ts) and decoding stream data
 * (pdf-stream-decode.ts): the code that only looks at objects needs neither.
 */
export interface PdfName {
  kind: 'name';
  name: string;
}
export interface PdfString {
  kind: 'string';
  bytes: Uint8Array;
  /**
   * A string too long to be anything this verifier reads (over twice the longest signature it
   * accepts): kept as written, delimiters included, and not decoded (`bytes` is empty).
   */
  raw?: Uint8Array;
}
export interface PdfRef {
  kind: 'ref';
  num: number;
  gen: number;
}
export interface PdfDict {
  kind: 'dict';
  entries: Map<string, PdfValue>;
}
export interface PdfStream {
  kind: 'stream';
  dict: PdfDict;
  /** The stream's bytes as stored (still encoded). */
  raw: Uint8Array;
}
export type PdfValue =
  null | boolean | number | PdfName | PdfString | PdfRef | PdfValue[] | PdfDict | PdfStream;

export class PdfSyntaxError extends Error {
  override readonly name = 'PdfSyntaxError';
  constructor(message: string) {
    // Without a stack: it is always caught (a damaged object reads as none), and a hostile file
    // makes millions of them, whose stacks would be most of the time spent reading it.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

export const pdfName = (name: string): PdfName => ({ kind: 'name', name });

export const isDict = (v: PdfValue | undefined): v is PdfDict =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dict';
export const isStream = (v: PdfValue | undefined): v is PdfStream =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'stream';
export const isRef = (v: PdfValue | undefined): v is PdfRef =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'ref';
export const isName = (v: PdfValue | undefined, name?: string): v is PdfName =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  v.kind === 'name' &&
  (name === undefined || v.name === name);
export const isString = (v: PdfValue | undefined): v is PdfString =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'string';

/** The dictionary of a dictionary or a stream. */
export const dictOf = (v: PdfValue | undefined): PdfDict | undefined =>
  isDict(v) ? v : isStream(v) ? v.dict : undefined;

/** A text string (PDFDocEncoding, or UTF-16 with a BOM) as JS text. */
export function textOf(v: PdfValue | undefined): string | null {
  if (isName(v)) return v.name;
  if (!isString(v)) return null;
  const b = v.bytes;
  if (b[0] === 0xfe && b[1] === 0xff) return Buffer.from(b.subarray(2)).swap16().toString('utf16le');
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return Buffer.from(b.subarray(3)).toString('utf8');
  return Buffer.from(b).toString('latin1');
}

/** Structural equality, references compared as references (what a reader would see as the same object). */
export function sameValue(a: PdfValue | undefined, b: PdfValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]))
    );
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'name':
      return a.name === (b as PdfName).name;
    case 'string': {
      // A string too long to decode is compared as written.
      const other = b as PdfString;
      return a.raw || other.raw
        ? !!a.raw && !!other.raw && view(a.raw).equals(other.raw)
        : view(a.bytes).equals(other.bytes);
    }
    case 'ref':
      return a.num === (b as PdfRef).num && a.gen === (b as PdfRef).gen;
    case 'dict':
      return sameDict(a, b as PdfDict, false);
    case 'stream':
      return sameDict(a.dict, (b as PdfStream).dict, true) && view(a.raw).equals((b as PdfStream).raw);
  }
}

/** The bytes as a Buffer, without copying them. */
const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

function sameDict(a: PdfDict, b: PdfDict, ignoreLength: boolean): boolean {
  const keys = (d: PdfDict) => [...d.entries.keys()].filter((k) => !(ignoreLength && k === 'Length'));
  const ka = keys(a);
  return (
    ka.length === keys(b).length &&
    ka.every((k) => b.entries.has(k) && sameValue(a.entries.get(k), b.entries.get(k)))
  );
}
