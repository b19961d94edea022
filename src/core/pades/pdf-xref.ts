/**
 * The cross-reference of a PDF (ISO 32000-2 7.5.4, 7.5.8): its sections,
 * tables or streams, read once each and shared by every revision that reaches
 * them; objects read at their offsets, or from object streams, decoded once.
 */
import { PdfLexer, PdfSyntaxError, decodeStream, isDict, isName, isStream, objectHeader, type PdfDict, type PdfRef, type PdfValue } from './pdf-objects.js';

export type Entry = { type: 'free' } | { type: 'offset'; offset: number; gen: number } | { type: 'compressed'; stream: number; index: number };

export interface Section {
  entries: Map<number, Entry>;
  trailer: PdfDict;
  prev: number | undefined;
  xrefStm: number | undefined;
}

export class Reader {
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
