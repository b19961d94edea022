/**
 * PDF objects read from bytes (ISO 32000-2 7.2, 7.3): the lexer, which reads one value from any
 * position, and the `num gen obj` that opens an indirect object. Written here rather than taken from
 * pdf-lib: the verifier must read every revision of a file, each through its own cross-reference,
 * which pdf-lib (one revision, the latest) does not do, and pdf-lib alone takes longer to load than
 * `verify`'s start-up target allows. Apart from the objects (pdf-objects.ts), which most of the
 * verifier handles without reading bytes.
 */
import {
  PdfSyntaxError,
  pdfName,
  type PdfDict,
  type PdfName,
  type PdfRef,
  type PdfStream,
  type PdfString,
  type PdfValue,
} from './pdf-objects.js';

/** Byte classes (ISO 32000-2 7.2.3): 1 white-space, 2 delimiter, 0 regular. */
const CLASS = new Uint8Array(256);
for (const b of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[b] = 1;
for (const b of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS[b] = 2;
const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
/** A hex digit's value, or 16 for any other byte. */
const NIBBLE = new Uint8Array(256).fill(16);
for (let i = 0; i < 16; i++)
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i;
const EMPTY = new Uint8Array(0);

/** Depth bound: a hostile file nesting arrays a million deep must not overflow the stack. */
const MAX_DEPTH = 200;

export interface LexerOptions {
  /** Resolves a stream's indirect /Length. */
  resolveLength?: (ref: PdfRef) => PdfValue;
  /** Strings that may decode to more than this are kept as written (`raw`), not decoded. */
  maxString?: number;
  /** The most one value's syntax may span, its stream data and long strings not counted: larger is a PdfSyntaxError. */
  maxObject?: number;
}

/**
 * Reads objects from `bytes`, starting anywhere. `far` is one past the
 * furthest byte it has looked at: what it read depends on no byte from there
 * on, so a reader of the same bytes cut at `far` or later reads the same.
 */
export class PdfLexer {
  pos: number;
  far: number;
  private readonly buf: Buffer;
  /** Where the current top-level value began, and how much of it was long strings and stream data. */
  private origin = 0;
  private skipped = 0;

  constructor(
    readonly bytes: Uint8Array,
    pos = 0,
    private readonly options: LexerOptions = {},
  ) {
    this.pos = pos;
    this.far = pos;
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }

  private reach(end: number): void {
    if (end > this.far) this.far = end;
  }

  skipSpace(): void {
    const b = this.bytes;
    const n = b.length;
    let p = this.pos;
    for (;;) {
      while (p < n && CLASS[b[p]!] === 1) p++;
      if (p >= n || b[p] !== 0x25) break;
      while (p < n && b[p] !== 0x0a && b[p] !== 0x0d) p++;
    }
    this.pos = p;
    this.reach(p + 1);
  }

  /** Where the regular characters at `from` end. */
  private wordEnd(from: number): number {
    const b = this.bytes;
    const n = b.length;
    let end = from;
    while (end < n && CLASS[b[end]!] === 0) end++;
    this.reach(end + 1);
    return end;
  }

  /** The regular characters at the position (a keyword or a number), without moving. */
  peekWord(): string {
    const end = this.wordEnd(this.pos);
    return end === this.pos ? '' : this.buf.toString('latin1', this.pos, end);
  }

  word(): string {
    const w = this.peekWord();
    this.pos += w.length;
    return w;
  }

  expect(keyword: string): void {
    this.skipSpace();
    const w = this.word();
    if (w !== keyword)
      throw new PdfSyntaxError(
        `expected ${keyword} at byte ${this.pos - w.length}, found ${w ? JSON.stringify(w.slice(0, 20)) : 'a delimiter'}`,
      );
  }

  /** An object larger than allowed (its long strings and stream data aside) is not read. */
  private guard(): void {
    const max = this.options.maxObject;
    if (max !== undefined && this.pos - this.origin - this.skipped > max)
      throw new PdfSyntaxError(
        `an object over ${Math.round(max / 1048576)} MB of syntax at byte ${this.origin}`,
      );
  }

  value(depth = 0): PdfValue {
    if (depth > MAX_DEPTH) throw new PdfSyntaxError('objects nested too deep');
    this.skipSpace();
    if (depth === 0) {
      this.origin = this.pos;
      this.skipped = 0;
    }
    const b = this.bytes;
    const c = b[this.pos];
    if (c === undefined) throw new PdfSyntaxError('unexpected end of file');
    if (c === 0x2f) return this.name();
    if (c === 0x28) return this.literalString();
    if (c === 0x3c) {
      this.reach(this.pos + 2);
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
        this.guard();
        items.push(this.value(depth + 1));
      }
    }
    const word = this.word();
    if (word === '') throw new PdfSyntaxError(`unexpected ${String.fromCharCode(c)} at byte ${this.pos}`);
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    const n = Number(word);
    if (!Number.isFinite(n) && !/^[+-]?\d*\.?\d*$/.test(word))
      throw new PdfSyntaxError(
        `unexpected ${JSON.stringify(word.slice(0, 20))} at byte ${this.pos - word.length}`,
      );
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
    this.pos = this.wordEnd(start);
    const raw = this.buf.toString('latin1', start, this.pos);
    return pdfName(
      raw.includes('#')
        ? raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
        : raw,
    );
  }

  /** Whether a string spanning `span` bytes is too long to decode (`perByte`: how many bytes of its encoding make one of the string). */
  private tooLong(span: number, perByte: number): boolean {
    const max = this.options.maxString;
    return max !== undefined && span > perByte * max;
  }

  private literalString(): PdfString {
    const b = this.bytes;
    const start = this.pos;
    // Its end first: balanced parentheses, a backslash escaping the byte after it.
    let p = start + 1;
    let depth = 1;
    let escaped = false;
    while (p < b.length) {
      const c = b[p++]!;
      if (c === 0x5c) {
        escaped = true;
        p++;
      } else if (c === 0x28) depth += 1;
      else if (c === 0x29) {
        depth -= 1;
        if (depth === 0) break;
      }
    }
    this.reach(Math.min(p + 1, b.length));
    if (depth !== 0) {
      this.far = b.length;
      throw new PdfSyntaxError('unterminated string');
    }
    this.pos = p;
    if (this.tooLong(p - start, 2)) {
      this.skipped += p - start;
      return { kind: 'string', bytes: EMPTY, raw: b.subarray(start, p) };
    }
    const inner = b.subarray(start + 1, p - 1);
    if (!escaped) return { kind: 'string', bytes: Uint8Array.from(inner) };
    const out = new Uint8Array(inner.length);
    let length = 0;
    for (let i = 0; i < inner.length;) {
      const c = inner[i++]!;
      if (c !== 0x5c) {
        out[length++] = c;
        continue;
      }
      const e = inner[i++];
      if (e === undefined) break;
      const simple = ESCAPES[e];
      if (simple !== undefined) out[length++] = simple;
      else if (e >= 0x30 && e <= 0x37) {
        let v = e - 0x30;
        for (let k = 0; k < 2 && inner[i]! >= 0x30 && inner[i]! <= 0x37; k++) v = v * 8 + inner[i++]! - 0x30;
        out[length++] = v & 0xff;
      } else if (e === 0x0d) {
        if (inner[i] === 0x0a) i++;
      } else if (e !== 0x0a) out[length++] = e;
    }
    return { kind: 'string', bytes: out.slice(0, length) };
  }

  private hexString(): PdfString {
    const b = this.bytes;
    const start = this.pos;
    const end = this.buf.indexOf(0x3e, start);
    if (end === -1) {
      this.far = b.length;
      throw new PdfSyntaxError('unterminated hex string');
    }
    this.pos = end + 1;
    this.reach(end + 1);
    if (this.tooLong(end + 1 - start, 3)) {
      this.skipped += end + 1 - start;
      return { kind: 'string', bytes: EMPTY, raw: b.subarray(start, end + 1) };
    }
    // Hex digits only, an even count (as writers write a signature's /Contents): decoded by Node,
    // which stops at the first pair that is not hex, so a whole decoding proves there was none.
    const digits = end - start - 1;
    if (digits > 64 && digits % 2 === 0) {
      const fast = Buffer.from(this.buf.toString('latin1', start + 1, end), 'hex');
      if (fast.length * 2 === digits) return { kind: 'string', bytes: new Uint8Array(fast) };
    }
    // Anything but hex digits is ignored; an odd last digit is followed by 0.
    const out = new Uint8Array((end - start) >> 1 || 1);
    let length = 0;
    let high = -1;
    for (let i = start + 1; i < end; i++) {
      const v = NIBBLE[b[i]!]!;
      if (v === 16) continue;
      if (high < 0) high = v;
      else {
        out[length++] = (high << 4) | v;
        high = -1;
      }
    }
    if (high >= 0) out[length++] = high << 4;
    return { kind: 'string', bytes: out.slice(0, length) };
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
      if (b[this.pos] !== 0x2f)
        throw new PdfSyntaxError(`a dictionary key must be a name (byte ${this.pos})`);
      this.guard();
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
    if (length && typeof length === 'object' && !Array.isArray(length) && length.kind === 'ref')
      length = this.options.resolveLength?.(length) ?? null;
    // Whether the stated length fits depends on where the bytes end: that is looked at too (a
    // length that does not fit the whole file fits no part of it).
    if (typeof length === 'number' && length >= 0 && start + length <= b.length) this.reach(start + length);
    let end = typeof length === 'number' && length >= 0 && start + length <= b.length ? start + length : -1;
    if (end !== -1) this.reach(Math.min(end + 32, b.length));
    // A wrong /Length (common enough) falls back to the endstream keyword, as readers do.
    if (end === -1 || !/^\s*endstream/.test(this.buf.toString('latin1', end, Math.min(end + 32, b.length)))) {
      const found = this.buf.indexOf('endstream', start, 'latin1');
      if (found === -1) {
        this.far = b.length;
        throw new PdfSyntaxError('unterminated stream');
      }
      this.reach(found + 9);
      end = found;
      while (end > start && (b[end - 1] === 0x0a || b[end - 1] === 0x0d)) end--;
    }
    this.skipped += end - start;
    this.pos = end;
    this.expect('endstream');
    return { kind: 'stream', dict, raw: b.subarray(start, end) };
  }
}

const ESCAPES: Record<number, number> = {
  0x6e: 0x0a,
  0x72: 0x0d,
  0x74: 0x09,
  0x62: 0x08,
  0x66: 0x0c,
  0x28: 0x28,
  0x29: 0x29,
  0x5c: 0x5c,
};

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
