/**
 * PDF objects (ISO 32000-2 7.3) read from bytes: numbers, names, strings,
 * arrays, dictionaries, references and streams, and the indirect objects that
 * hold them. Written here rather than taken from pdf-lib: the verifier must
 * read every revision of a file, each through its own cross-reference, which
 * pdf-lib (one revision, the latest) does not do, and pdf-lib costs about
 * 120 ms to load. Streams are decoded only where the verifier needs their
 * content (object and cross-reference streams: FlateDecode with PNG predictors).
 */
import { inflateSync } from 'node:zlib';

export interface PdfName {
  kind: 'name';
  name: string;
}
export interface PdfString {
  kind: 'string';
  bytes: Uint8Array;
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
export type PdfValue = null | boolean | number | PdfName | PdfString | PdfRef | PdfValue[] | PdfDict | PdfStream;

export class PdfSyntaxError extends Error {
  override readonly name = 'PdfSyntaxError';
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (b: number | undefined) => b !== undefined && !WHITESPACE.has(b) && !DELIMITERS.has(b);
const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;

/** The most a stream may decode to (cross-reference and object streams are kilobytes to a few megabytes). */
const MAX_DECODED_BYTES = 64 * 1024 * 1024;

/** Depth bound: a hostile file nesting arrays a million deep must not overflow the stack. */
const MAX_DEPTH = 200;

export const pdfName = (name: string): PdfName => ({ kind: 'name', name });

/** Reads objects from `bytes`, starting anywhere; `resolveLength` resolves a stream's indirect /Length. */
export class PdfLexer {
  pos: number;
  constructor(
    readonly bytes: Uint8Array,
    pos = 0,
    private readonly resolveLength?: (ref: PdfRef) => PdfValue,
  ) {
    this.pos = pos;
  }

  skipSpace(): void {
    const b = this.bytes;
    for (;;) {
      while (this.pos < b.length && WHITESPACE.has(b[this.pos]!)) this.pos++;
      if (b[this.pos] !== 0x25) return;
      while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
    }
  }

  /** The regular characters at the position (a keyword or a number), without moving. */
  peekWord(): string {
    let end = this.pos;
    while (isRegular(this.bytes[end])) end++;
    return Buffer.from(this.bytes.subarray(this.pos, end)).toString('latin1');
  }

  word(): string {
    const w = this.peekWord();
    this.pos += w.length;
    return w;
  }

  expect(keyword: string): void {
    this.skipSpace();
    const w = this.word();
    if (w !== keyword) throw new PdfSyntaxError(`expected ${keyword} at byte ${this.pos - w.length}, found ${w ? JSON.stringify(w.slice(0, 20)) : 'a delimiter'}`);
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new PdfSyntaxError('objects nested too deep');
    this.skipSpace();
    const b = this.bytes;
    const c = b[this.pos];
    if (c === undefined) throw new PdfSyntaxError('unexpected end of file');
    if (c === 0x2f) return this.name();
    if (c === 0x28) return this.literalString();
    if (c === 0x3c) {
      if (b[this.pos + 1] === 0x3c) return this.dict(depth);
      return this.hexString();
    }
    if (c === 0x5b) {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipSpace();
        if (b[this.pos] === 0x5d) {
          this.pos++;
          return items;
        }
        if (this.pos >= b.length) throw new PdfSyntaxError('unterminated array');
        items.push(this.value(depth + 1));
      }
    }
    const word = this.word();
    if (word === '') throw new PdfSyntaxError(`unexpected ${String.fromCharCode(c)} at byte ${this.pos}`);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    const n = Number(word);
    if (!Number.isFinite(n) && !/^[+-]?\d*\.?\d*$/.test(word)) throw new PdfSyntaxError(`unexpected ${JSON.stringify(word.slice(0, 20))} at byte ${this.pos - word.length}`);
    // `num gen R`: look ahead without committing.
    if (/^\d+$/.test(word)) {
      const save = this.pos;
      this.skipSpace();
      const gen = this.peekWord();
      if (/^\d+$/.test(gen)) {
        this.pos += gen.length;
        this.skipSpace();
        if (this.peekWord() === 'R') {
          this.pos++;
          return { kind: 'ref', num: n, gen: Number(gen) };
        }
      }
      this.pos = save;
    }
    return Number.isFinite(n) ? n : 0;
  }

  private name(): PdfName {
    this.pos++;
    const start = this.pos;
    while (isRegular(this.bytes[this.pos])) this.pos++;
    const raw = Buffer.from(this.bytes.subarray(start, this.pos)).toString('latin1');
    return pdfName(raw.includes('#') ? raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : raw);
  }

  private literalString(): PdfString {
    const b = this.bytes;
    this.pos++;
    const out: number[] = [];
    let depth = 1;
    while (this.pos < b.length) {
      const c = b[this.pos++]!;
      if (c === 0x5c) {
        const e = b[this.pos++];
        const escapes: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
        if (e === undefined) break;
        if (escapes[e] !== undefined) out.push(escapes[e]!);
        else if (e >= 0x30 && e <= 0x37) {
          let v = e - 0x30;
          for (let i = 0; i < 2 && b[this.pos]! >= 0x30 && b[this.pos]! <= 0x37; i++) v = v * 8 + b[this.pos++]! - 0x30;
          out.push(v & 0xff);
        } else if (e === 0x0d) {
          if (b[this.pos] === 0x0a) this.pos++;
        } else if (e !== 0x0a) out.push(e);
        continue;
      }
      if (c === 0x28) depth += 1;
      if (c === 0x29) {
        depth -= 1;
        if (depth === 0) return { kind: 'string', bytes: Uint8Array.from(out) };
      }
      out.push(c);
    }
    throw new PdfSyntaxError('unterminated string');
  }

  private hexString(): PdfString {
    const b = this.bytes;
    const end = b.indexOf(0x3e, this.pos);
    if (end === -1) throw new PdfSyntaxError('unterminated hex string');
    const hex = Buffer.from(b.subarray(this.pos + 1, end)).toString('latin1').replace(/[^0-9a-fA-F]/g, '');
    this.pos = end + 1;
    return { kind: 'string', bytes: new Uint8Array(Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex')) };
  }

  private dict(depth: number): PdfDict | PdfStream {
    const b = this.bytes;
    this.pos += 2;
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipSpace();
      if (b[this.pos] === 0x3e && b[this.pos + 1] === 0x3e) {
        this.pos += 2;
        break;
      }
      if (b[this.pos] !== 0x2f) throw new PdfSyntaxError(`a dictionary key must be a name (byte ${this.pos})`);
      const key = this.name().name;
      entries.set(key, this.value(depth + 1));
    }
    const dict: PdfDict = { kind: 'dict', entries };
    const save = this.pos;
    this.skipSpace();
    if (this.peekWord() !== 'stream') {
      this.pos = save;
      return dict;
    }
    this.pos += 6;
    if (b[this.pos] === 0x0d) this.pos++;
    if (b[this.pos] === 0x0a) this.pos++;
    const start = this.pos;
    let length = entries.get('Length');
    if (length && typeof length === 'object' && !Array.isArray(length) && length.kind === 'ref') length = this.resolveLength?.(length) ?? null;
    let end = typeof length === 'number' && length >= 0 && start + length <= b.length ? start + length : -1;
    // A wrong /Length (common enough) falls back to the endstream keyword, as readers do.
    if (end === -1 || !/^\s*endstream/.test(Buffer.from(b.subarray(end, end + 32)).toString('latin1'))) {
      const found = Buffer.from(b.buffer, b.byteOffset, b.length).indexOf('endstream', start, 'latin1');
      if (found === -1) throw new PdfSyntaxError('unterminated stream');
      end = found;
      while (end > start && (b[end - 1] === 0x0a || b[end - 1] === 0x0d)) end--;
    }
    this.pos = end;
    this.expect('endstream');
    return { kind: 'stream', dict, raw: b.subarray(start, end) };
  }
}

export const isDict = (v: PdfValue | undefined): v is PdfDict => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'dict';
export const isStream = (v: PdfValue | undefined): v is PdfStream => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'stream';
export const isRef = (v: PdfValue | undefined): v is PdfRef => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'ref';
export const isName = (v: PdfValue | undefined, name?: string): v is PdfName =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'name' && (name === undefined || v.name === name);
export const isString = (v: PdfValue | undefined): v is PdfString => typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'string';

/** The dictionary of a dictionary or a stream. */
export const dictOf = (v: PdfValue | undefined): PdfDict | undefined => (isDict(v) ? v : isStream(v) ? v.dict : undefined);

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
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'name':
      return a.name === (b as PdfName).name;
    case 'string':
      return Buffer.from(a.bytes).equals((b as PdfString).bytes);
    case 'ref':
      return a.num === (b as PdfRef).num && a.gen === (b as PdfRef).gen;
    case 'dict':
      return sameDict(a, b as PdfDict, false);
    case 'stream':
      return sameDict(a.dict, (b as PdfStream).dict, true) && Buffer.from(a.raw).equals((b as PdfStream).raw);
  }
}

function sameDict(a: PdfDict, b: PdfDict, ignoreLength: boolean): boolean {
  const keys = (d: PdfDict) => [...d.entries.keys()].filter((k) => !(ignoreLength && k === 'Length'));
  const ka = keys(a);
  return ka.length === keys(b).length && ka.every((k) => b.entries.has(k) && sameValue(a.entries.get(k), b.entries.get(k)));
}

/** A stream's data decoded: FlateDecode (with PNG or TIFF predictors) or none; anything else throws. */
export function decodeStream(stream: PdfStream): Uint8Array {
  const filter = stream.dict.entries.get('Filter');
  const filters = Array.isArray(filter) ? filter : filter ? [filter] : [];
  let data: Uint8Array = stream.raw;
  const parms = stream.dict.entries.get('DecodeParms');
  for (const [i, f] of filters.entries()) {
    if (!isName(f, 'FlateDecode')) throw new PdfSyntaxError(`stream filter ${isName(f) ? f.name : '?'} is not supported here`);
    // Bounded: a hostile stream that inflates to gigabytes stops at the limit.
    data = inflateSync(data, { finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a missing end */, maxOutputLength: MAX_DECODED_BYTES });
    const p = Array.isArray(parms) ? parms[i] : parms;
    if (isDict(p)) data = unpredict(data, p);
  }
  return data;
}

/** Undoes the PNG row predictors (cross-reference streams use them). */
function unpredict(data: Uint8Array, parms: PdfDict): Uint8Array {
  const predictor = parms.entries.get('Predictor');
  if (typeof predictor !== 'number' || predictor < 10) return data;
  const columns = typeof parms.entries.get('Columns') === 'number' ? (parms.entries.get('Columns') as number) : 1;
  const colors = typeof parms.entries.get('Colors') === 'number' ? (parms.entries.get('Colors') as number) : 1;
  const bpc = typeof parms.entries.get('BitsPerComponent') === 'number' ? (parms.entries.get('BitsPerComponent') as number) : 8;
  const bpp = Math.max(1, Math.ceil((colors * bpc) / 8));
  const rowLength = Math.ceil((columns * colors * bpc) / 8);
  const rows = Math.floor(data.length / (rowLength + 1));
  const out = new Uint8Array(rows * rowLength);
  for (let r = 0; r < rows; r++) {
    const type = data[r * (rowLength + 1)]!;
    const src = r * (rowLength + 1) + 1;
    const dst = r * rowLength;
    for (let i = 0; i < rowLength; i++) {
      const raw = data[src + i]!;
      const left = i >= bpp ? out[dst + i - bpp]! : 0;
      const up = r > 0 ? out[dst - rowLength + i]! : 0;
      const upLeft = r > 0 && i >= bpp ? out[dst - rowLength + i - bpp]! : 0;
      let v = raw;
      if (type === 1) v = raw + left;
      else if (type === 2) v = raw + up;
      else if (type === 3) v = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        v = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      }
      out[dst + i] = v & 0xff;
    }
  }
  return out;
}

/** `num gen obj` at the lexer's position: the object's numbers, or undefined when something else is there. */
export function objectHeader(lexer: PdfLexer): { num: number; gen: number } | undefined {
  lexer.skipSpace();
  const num = lexer.peekWord();
  if (!isDigit(lexer.bytes[lexer.pos]) || !/^\d+$/.test(num)) return undefined;
  lexer.pos += num.length;
  lexer.skipSpace();
  const gen = lexer.word();
  lexer.skipSpace();
  if (!/^\d+$/.test(gen) || lexer.word() !== 'obj') return undefined;
  return { num: Number(num), gen: Number(gen) };
}
