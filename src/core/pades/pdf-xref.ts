/**
 * The cross-reference of a PDF (ISO 32000-2 7.5.4, 7.5.8): its sections,
 * tables or streams, read once each and shared by every revision that reaches
 * them; objects read at their offsets once for all revisions (unless a
 * revision's end cuts one, or it resolves a stream's /Length to another
 * object), or from object streams, decoded once. All of it counted on the
 * file's meter (pdf-budget.ts).
 */
import { PdfSyntaxError, isDict, isName, isStream, type PdfDict, type PdfValue } from './pdf-objects.js';
import { PdfLexer, objectHeader, type LexerOptions } from './pdf-lexer.js';
import { decodeStream } from './pdf-stream-decode.js';
import { COST, Meter, PdfLimitError, type Steps } from './pdf-budget.js';
import type { Decrypt } from './pdf-crypt.js';

export type Entry =
  | { type: 'free' }
  | { type: 'offset'; offset: number; gen: number }
  | { type: 'compressed'; stream: number; index: number };

export interface Section {
  entries: Map<number, Entry>;
  /** The numbers it marks free (so a revision drops them without a pass over all its entries). */
  frees: number[];
  trailer: PdfDict;
  prev: number | undefined;
  xrefStm: number | undefined;
}

/** What a revision gives to read one of its objects: where it ends, how it names and resolves its objects. */
export interface ObjectContext {
  end: number;
  entryKey(num: number): string;
  get(num: number): PdfValue | undefined;
}

/** An object as read at its offset, with what its reading depended on. */
interface Parsed {
  /** The number its header gives (-1: no object there). */
  num: number;
  value: PdfValue | undefined;
  /** One past the last byte looked at (PdfLexer.far). */
  far: number;
  /** The objects it resolved (a stream's indirect /Length), with the entry each had. */
  refs: [number, string][];
}

interface ObjectStream {
  data: Uint8Array;
  first: number;
  offsets: Map<number, number>;
  values: Map<number, PdfValue | undefined>;
}

const FREE: Entry = { type: 'free' };

/**
 * A cross-reference table entry at the lexer's position: `nnnnnnnnnn ggggg n` (or `f`), read
 * byte by byte (a file may hold millions); anything less regular, word by word as before.
 */
function tableEntry(lexer: PdfLexer): Entry {
  const b = lexer.bytes;
  let p = lexer.pos;
  let off = 0;
  let gen = 0;
  const start = p;
  while (p < b.length && b[p]! >= 0x30 && b[p]! <= 0x39 && p - start < 15) off = off * 10 + b[p++]! - 0x30;
  const offEnd = p;
  while (b[p] === 0x20 || b[p] === 0x0d || b[p] === 0x0a || b[p] === 0x09) p++;
  const genStart = p;
  while (p < b.length && b[p]! >= 0x30 && b[p]! <= 0x39 && p - genStart < 15) gen = gen * 10 + b[p++]! - 0x30;
  const genEnd = p;
  while (b[p] === 0x20 || b[p] === 0x0d || b[p] === 0x0a || b[p] === 0x09) p++;
  const kind = b[p];
  const after = b[p + 1];
  const ends =
    after === undefined ||
    after === 0x20 ||
    after === 0x0d ||
    after === 0x0a ||
    after === 0x09 ||
    after === 0x00 ||
    after === 0x0c ||
    after === 0x25;
  if (
    offEnd > start &&
    genStart > offEnd &&
    genEnd > genStart &&
    p > genEnd &&
    (kind === 0x6e || kind === 0x66) &&
    ends
  ) {
    lexer.pos = p + 1;
    if (p + 2 > lexer.far) lexer.far = p + 2;
    return kind === 0x6e ? { type: 'offset', offset: off, gen } : FREE;
  }
  const offWord = Number(lexer.word());
  lexer.skipSpace();
  const genWord = Number(lexer.word());
  lexer.skipSpace();
  const kindWord = lexer.word();
  if (kindWord !== 'n' && kindWord !== 'f') throw new PdfSyntaxError('bad cross-reference entry');
  return kindWord === 'n' ? { type: 'offset', offset: offWord, gen: genWord } : FREE;
}

/** A refusal (PdfLimitError) goes on; any other error is the file's damage, for the caller to take as such. */
export function rethrowLimit(error: unknown): void {
  if (error instanceof PdfLimitError) throw error;
}

export class Reader {
  private sections = new Map<number, Section | null>();
  /** The sections read, in order, that forget() may drop. */
  private read: number[] = [];
  /**
   * Offsets from which the chain of /Prev leads to no section or round in a loop, whatever
   * revision reads it: a later %%EOF whose chain reaches one stops there, instead of walking
   * again down a chain that a hostile file makes as long as its number of %%EOF.
   */
  readonly doomed = new Set<number>();
  private objects = new Map<number, Parsed>();
  /** How each object read at an offset is decrypted (an encrypted file's standard security handler, pdf-crypt.ts). */
  private decryptor: Decrypt | undefined;
  private objectStreams = new Map<string, ObjectStream | null>();
  readonly lexerOptions: LexerOptions;
  /** The file as a Buffer (lexers made from its subarrays need no view of their own). */
  private readonly buf: Buffer;

  constructor(
    readonly bytes: Uint8Array,
    readonly meter: Meter = new Meter(bytes.length),
  ) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    this.lexerOptions = { maxString: meter.limits.contentsBytes, maxObject: meter.limits.objectBytes };
  }

  /**
   * Decrypts every object read from now on; what was read before (the encryption dictionary, left
   * as written) is read again.
   */
  decryptWith(decrypt: Decrypt): void {
    this.decryptor = decrypt;
    this.objects.clear();
    this.objectStreams.clear();
  }

  /** The section at `offset` (a table or a stream), cached: revisions share them. */
  *section(offset: number, limit: number): Steps<Section | null> {
    const key = offset;
    if (this.sections.has(key)) return this.sections.get(key)!;
    let section: Section | null;
    try {
      section = yield* this.readSection(offset, limit);
    } catch (error) {
      rethrowLimit(error);
      section = null;
    }
    this.sections.set(key, section);
    if (section) this.read.push(key);
    return section;
  }

  /** A mark for forget(). */
  get mark(): number {
    return this.read.length;
  }

  /**
   * Drops the sections read since `mark` (those of a %%EOF that made no revision): a hostile
   * file's millions of sections that lead nowhere are not all kept. That an offset holds none is kept.
   */
  forget(mark: number): void {
    for (const offset of this.read.splice(mark)) this.sections.delete(offset);
  }

  private *readSection(offset: number, limit: number): Steps<Section | null> {
    const meter = this.meter;
    const lexer = new PdfLexer(this.buf.subarray(0, limit), offset, this.lexerOptions);
    try {
      lexer.skipSpace();
      if (lexer.peekWord() === 'xref') {
        lexer.word();
        const entries = new Map<number, Entry>();
        const frees: number[] = [];
        for (;;) {
          lexer.skipSpace();
          const word = lexer.peekWord();
          if (word === 'trailer') break;
          const first = Number(lexer.word());
          lexer.skipSpace();
          const count = Number(lexer.word());
          if (!Number.isInteger(first) || !Number.isInteger(count) || count < 0 || count > 10_000_000)
            throw new PdfSyntaxError('bad cross-reference subsection');
          for (let i = 0; i < count; i++) {
            lexer.skipSpace();
            const entry = tableEntry(lexer);
            if (!entries.has(first + i)) {
              entries.set(first + i, entry);
              if (entry.type === 'free') frees.push(first + i);
            }
            meter.add(COST.entry);
            if (meter.due) yield;
          }
        }
        lexer.word();
        const trailer = lexer.value();
        if (!isDict(trailer)) throw new PdfSyntaxError('the trailer is not a dictionary');
        const num = (k: string) =>
          typeof trailer.entries.get(k) === 'number' ? (trailer.entries.get(k) as number) : undefined;
        return { entries, frees, trailer, prev: num('Prev'), xrefStm: num('XRefStm') };
      }
      // Most offsets a hostile file names hold nothing: that is told without an exception.
      const header = objectHeader(lexer);
      if (!header) return null;
      const stream = lexer.value();
      if (!isStream(stream) || !isName(stream.dict.entries.get('Type'), 'XRef')) return null;
      const d = stream.dict.entries;
      const widths = d.get('W');
      if (
        !Array.isArray(widths) ||
        widths.length < 3 ||
        !widths.every((w) => typeof w === 'number' && w >= 0 && w <= 8)
      )
        throw new PdfSyntaxError('bad /W');
      const [w0, w1, w2] = widths as number[];
      const size = typeof d.get('Size') === 'number' ? (d.get('Size') as number) : 0;
      const index = Array.isArray(d.get('Index')) ? (d.get('Index') as number[]) : [0, size];
      const data = decodeStream(stream, meter);
      const rowLength = w0! + w1! + w2!;
      const field = (pos: number, width: number) => {
        let v = 0;
        for (let i = 0; i < width; i++) v = v * 256 + data[pos + i]!;
        return v;
      };
      const entries = new Map<number, Entry>();
      const frees: number[] = [];
      let row = 0;
      rows: for (let s = 0; s + 1 < index.length; s += 2) {
        for (let i = 0; i < index[s + 1]!; i++, row++) {
          const pos = row * rowLength;
          if (pos + rowLength > data.length) break rows;
          meter.add(COST.entry);
          if (meter.due) yield;
          const type = w0 === 0 ? 1 : field(pos, w0!);
          const a = field(pos + w0!, w1!);
          const b = field(pos + w0! + w1!, w2!);
          const num = index[s]! + i;
          if (entries.has(num)) continue;
          if (type === 0) {
            entries.set(num, { type: 'free' });
            frees.push(num);
          } else if (type === 1) entries.set(num, { type: 'offset', offset: a, gen: b });
          else if (type === 2) entries.set(num, { type: 'compressed', stream: a, index: b });
        }
      }
      const num = (k: string) => (typeof d.get(k) === 'number' ? (d.get(k) as number) : undefined);
      return { entries, frees, trailer: stream.dict, prev: num('Prev'), xrefStm: undefined };
    } finally {
      meter.add(lexer.far - offset);
    }
  }

  /**
   * Object `num` at `offset`, as the revision `ctx` reads it. Read once for all revisions, with
   * the whole file in view: a revision reads the same unless its end comes before the last byte
   * that reading looked at, or it resolves the stream's /Length to another object; then it is
   * read again for that revision alone.
   */
  objectAt(offset: number, num: number, ctx: ObjectContext): PdfValue | undefined {
    if (offset < 0 || offset >= ctx.end) return undefined;
    let parsed = this.objects.get(offset);
    if (!parsed) {
      parsed = this.parse(offset, this.buf.length, ctx);
      this.objects.set(offset, parsed);
    }
    // What does not read with the whole file in view reads in no part of it either (a search for
    // its end, or for `endstream`, finds nothing in fewer bytes): only a reading that succeeded
    // depends on where the revision ends.
    const cut = parsed.value !== undefined && parsed.far > ctx.end;
    if (cut || !parsed.refs.every(([ref, key]) => ctx.entryKey(ref) === key))
      parsed = this.parse(offset, ctx.end, ctx);
    return parsed.num === num ? parsed.value : undefined;
  }

  private parse(offset: number, limit: number, ctx: ObjectContext): Parsed {
    const refs: [number, string][] = [];
    const lexer = new PdfLexer(limit === this.buf.length ? this.buf : this.buf.subarray(0, limit), offset, {
      ...this.lexerOptions,
      resolveLength: (ref) => {
        refs.push([ref.num, ctx.entryKey(ref.num)]);
        return ctx.get(ref.num) ?? null;
      },
    });
    let num = -1;
    let value: PdfValue | undefined;
    try {
      const header = objectHeader(lexer);
      if (header) {
        num = header.num;
        value = lexer.value();
        if (this.decryptor) value = this.decryptor(value, header.num, header.gen);
      }
    } catch (error) {
      rethrowLimit(error);
      value = undefined;
    } finally {
      this.meter.add(lexer.far - offset);
    }
    return { num, value, far: lexer.far, refs };
  }

  /** Object `num` of object stream `streamValue` (whose entry is `streamKey`), decoded once and read member by member. */
  fromObjectStream(streamKey: string, streamValue: PdfValue | undefined, num: number): PdfValue | undefined {
    let stream = this.objectStreams.get(streamKey);
    if (stream === undefined) {
      stream = this.openObjectStream(streamValue);
      this.objectStreams.set(streamKey, stream);
    }
    if (!stream) return undefined;
    if (stream.values.has(num)) return stream.values.get(num);
    const offset = stream.offsets.get(num);
    let value: PdfValue | undefined;
    if (offset !== undefined) {
      const lexer = new PdfLexer(stream.data, stream.first + offset, this.lexerOptions);
      try {
        value = lexer.value();
      } catch (error) {
        // An unreadable member stays undefined.
        rethrowLimit(error);
      } finally {
        this.meter.add(Math.max(0, lexer.far - stream.first - offset));
      }
    }
    stream.values.set(num, value);
    return value;
  }

  private openObjectStream(streamValue: PdfValue | undefined): ObjectStream | null {
    if (!isStream(streamValue) || !isName(streamValue.dict.entries.get('Type'), 'ObjStm')) return null;
    const n = streamValue.dict.entries.get('N');
    const first = streamValue.dict.entries.get('First');
    if (typeof n !== 'number' || typeof first !== 'number') return null;
    let data: Uint8Array;
    try {
      data = decodeStream(streamValue, this.meter);
    } catch (error) {
      // An undecodable object stream defines nothing.
      rethrowLimit(error);
      return null;
    }
    const head = new PdfLexer(data, 0, this.lexerOptions);
    const offsets = new Map<number, number>();
    try {
      for (let i = 0; i < n; i++) {
        const objNum = Number(head.value());
        offsets.set(objNum, Number(head.value()));
      }
    } catch (error) {
      // A header that does not read defines nothing.
      rethrowLimit(error);
      return null;
    } finally {
      this.meter.add(head.far);
    }
    return { data, first, offsets, values: new Map() };
  }
}
