/**
 * An incremental update (ISO 32000-2 7.5.6): new and replaced objects appended
 * after the file's last `%%EOF`, with a cross-reference section of their own
 * whose /Prev names the one before, so every earlier byte stays where it was
 * and every earlier signature still covers what it covered. The section is
 * written as the file's last one was: a table after a table, a stream after a
 * stream (a reader that met streams first may not read a table after them).
 * Objects are the verifier's own model (core/pades/pdf-objects.ts), written
 * back in PDF syntax; strings are written in hex, which needs no escaping.
 */
import { dictOf, isRef, pdfName, type PdfDict, type PdfRef, type PdfValue } from '../pades/pdf-objects.js';
import { catalogOf, type PdfFile, type Revision } from '../pades/pdf-file.js';

/** Bytes written as they are: a signature dictionary whose /ByteRange and /Contents are filled in later. */
export interface RawObject {
  kind: 'raw';
  bytes: Uint8Array;
}

/** Why a file cannot take an update from this writer: said to the person as it is. */
export class UpdateRefusedError extends Error {
  override readonly name = 'UpdateRefusedError';
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** A name's characters (latin1, as the lexer decoded them), with #xx where PDF syntax needs it. */
function nameText(name: string): string {
  let out = '/';
  for (const ch of name) {
    const code = ch.charCodeAt(0) & 0xff;
    const delimiter = '()<>[]{}/%#'.includes(ch);
    out += code < 0x21 || code > 0x7e || delimiter ? `#${code.toString(16).padStart(2, '0')}` : ch;
  }
  return out;
}

/** A number as PDF writes it: never in exponent form. */
function numberText(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(10).replace(/0+$/, '').replace(/\.$/, '');
}

/** One value in PDF syntax, as bytes (a stream's data is written as stored, with its /Length). */
export function serialize(value: PdfValue): Buffer {
  const parts: Buffer[] = [];
  const write = (v: PdfValue): void => {
    if (v === null) parts.push(latin1('null'));
    else if (typeof v === 'boolean') parts.push(latin1(v ? 'true' : 'false'));
    else if (typeof v === 'number') parts.push(latin1(numberText(v)));
    else if (Array.isArray(v)) {
      parts.push(latin1('['));
      v.forEach((item, i) => {
        if (i > 0) parts.push(latin1(' '));
        write(item);
      });
      parts.push(latin1(']'));
    } else
      switch (v.kind) {
        case 'name':
          parts.push(latin1(nameText(v.name)));
          break;
        case 'string':
          parts.push(v.raw ? Buffer.from(v.raw) : latin1(`<${Buffer.from(v.bytes).toString('hex')}>`));
          break;
        case 'ref':
          parts.push(latin1(`${v.num} ${v.gen} R`));
          break;
        case 'dict':
          writeDict(v);
          break;
        case 'stream': {
          const entries = new Map(v.dict.entries);
          entries.set('Length', v.raw.length);
          writeDict({ kind: 'dict', entries });
          parts.push(latin1('\nstream\r\n'), Buffer.from(v.raw), latin1('\nendstream'));
          break;
        }
      }
  };
  const writeDict = (d: PdfDict): void => {
    parts.push(latin1('<<'));
    for (const [key, item] of d.entries) {
      parts.push(latin1(`${nameText(key)} `));
      write(item);
      parts.push(latin1(' '));
    }
    parts.push(latin1('>>'));
  };
  write(value);
  return Buffer.concat(parts);
}

/** A dictionary from plain entries (names as `{ name }` via pdfName). */
export const dict = (entries: Record<string, PdfValue>): PdfDict => ({
  kind: 'dict',
  entries: new Map(Object.entries(entries)),
});

export const ref = (num: number, gen = 0): PdfRef => ({ kind: 'ref', num, gen });
export { pdfName };

/** Where a file's last cross-reference starts: the number after its last `startxref`. */
function lastStartxref(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const at = text.lastIndexOf('startxref', bytes.length, 'latin1');
  const m = /^startxref\s+(\d+)/.exec(text.toString('latin1', at, Math.min(bytes.length, at + 40)));
  if (at === -1 || !m) throw new UpdateRefusedError('no startxref at its end');
  return Number(m[1]);
}

/**
 * The objects an update adds or replaces, over the last revision of a file that reads cleanly;
 * `bytes()` writes the update after the file.
 */
export class PdfUpdate {
  readonly last: Revision;
  private readonly objects = new Map<number, PdfValue | RawObject>();
  private nextNumber: number;

  constructor(private readonly file: PdfFile) {
    if (file.repaired)
      throw new UpdateRefusedError('its cross-reference is damaged (it reads only as repaired)');
    if (file.tail || file.trailingBytes > 0)
      throw new UpdateRefusedError('bytes follow its last %%EOF that are not a revision');
    if (file.encryption.state !== 'none') throw new UpdateRefusedError('it is encrypted');
    this.last = file.revisions.at(-1)!;
    const size = this.last.trailer.entries.get('Size');
    const highest = Math.max(0, ...this.last.objects.keys());
    this.nextNumber = Math.max(typeof size === 'number' ? size : 0, highest + 1);
  }

  /** A new object number. */
  allocate(): number {
    return this.nextNumber++;
  }

  /** Adds an object (a new number from allocate(), or one of the revision's, replaced). */
  set(num: number, value: PdfValue | RawObject): void {
    this.objects.set(num, value);
  }

  /** An object as the update leaves it: its replacement, or the revision's. */
  get(num: number): PdfValue | undefined {
    const replaced = this.objects.get(num);
    if (replaced && !Array.isArray(replaced) && typeof replaced === 'object' && replaced.kind === 'raw')
      return undefined;
    return this.objects.has(num) ? replaced : this.last.get(num);
  }

  /** A value with its references followed, through the update's objects first. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    for (let i = 0; i < 32 && isRef(value); i++) value = this.get(value.num);
    return isRef(value) ? undefined : value;
  }

  /** The catalog's reference and a copy of it to change (set() it back). */
  catalog(): { num: number; dict: PdfDict } {
    const root = this.last.trailer.entries.get('Root');
    const catalog = isRef(root) ? dictOf(this.resolve(root)) : catalogOf(this.last);
    if (!isRef(root) || !catalog) throw new UpdateRefusedError('it has no document catalog');
    return { num: root.num, dict: { kind: 'dict', entries: new Map(catalog.entries) } };
  }

  /** The file with the update after it: each object, then a cross-reference section and trailer naming the previous one. */
  bytes(): Buffer {
    const pdf = this.file.bytes;
    const prev = lastStartxref(pdf);
    const tail = pdf[pdf.length - 1];
    const parts: Buffer[] = [Buffer.from(pdf.buffer, pdf.byteOffset, pdf.length)];
    let length = pdf.length;
    const push = (b: Buffer) => {
      parts.push(b);
      length += b.length;
    };
    if (tail !== 0x0a && tail !== 0x0d) push(latin1('\n'));
    const offsets = new Map<number, { offset: number; gen: number }>();
    for (const [num, value] of [...this.objects].sort((a, b) => a[0] - b[0])) {
      // A replaced object keeps its generation: references to it name it.
      const entry = this.last.objects.get(num);
      const gen = entry?.type === 'offset' ? entry.gen : 0;
      offsets.set(num, { offset: length, gen });
      const body =
        typeof value === 'object' && value !== null && !Array.isArray(value) && value.kind === 'raw'
          ? Buffer.from(value.bytes)
          : serialize(value);
      push(Buffer.concat([latin1(`${num} ${gen} obj\n`), body, latin1('\nendobj\n')]));
    }
    const trailer = new Map<string, PdfValue>();
    for (const key of ['Root', 'Info', 'ID']) {
      const v = this.last.trailer.entries.get(key);
      if (v !== undefined) trailer.set(key, v);
    }
    trailer.set('Prev', prev);
    const xrefAt = length;
    if (this.streamSections(prev)) {
      const num = this.allocate();
      offsets.set(num, { offset: xrefAt, gen: 0 });
      push(xrefStream(num, offsets, this.nextNumber, trailer));
    } else {
      trailer.set('Size', this.nextNumber);
      push(
        Buffer.concat([
          xrefTable(offsets),
          latin1('trailer\n'),
          serialize({ kind: 'dict', entries: trailer }),
        ]),
      );
    }
    push(latin1(`\nstartxref\n${xrefAt}\n%%EOF\n`));
    return Buffer.concat(parts, length);
  }

  /** Whether the file's last section is a cross-reference stream (an object where `xref` would be). */
  private streamSections(prev: number): boolean {
    const head = Buffer.from(this.file.bytes.subarray(prev, prev + 64)).toString('latin1');
    return !/^\s*xref/.test(head);
  }
}

/** Consecutive runs of the sorted numbers: [first, count]. */
function runs(nums: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const n of nums) {
    const run = out.at(-1);
    if (run && run[0] + run[1] === n) run[1]++;
    else out.push([n, 1]);
  }
  return out;
}

/** A cross-reference table of the objects written (20 bytes an entry, as the format fixes). */
function xrefTable(offsets: Map<number, { offset: number; gen: number }>): Buffer {
  const nums = [...offsets.keys()].sort((a, b) => a - b);
  let text = 'xref\n';
  for (const [first, count] of runs(nums)) {
    text += `${first} ${count}\n`;
    for (let n = first; n < first + count; n++)
      text += `${String(offsets.get(n)!.offset).padStart(10, '0')} ${String(offsets.get(n)!.gen).padStart(5, '0')} n\r\n`;
  }
  return latin1(text);
}

/** A cross-reference stream (ISO 32000-2 7.5.8), uncompressed, that lists itself too. */
function xrefStream(
  num: number,
  offsets: Map<number, { offset: number; gen: number }>,
  size: number,
  trailer: Map<string, PdfValue>,
): Buffer {
  const nums = [...offsets.keys()].sort((a, b) => a - b);
  const highest = Math.max(...[...offsets.values()].map((o) => o.offset));
  const width = Math.max(4, Math.ceil(Math.log2(highest + 1) / 8));
  const data = Buffer.alloc(nums.length * (1 + width + 2));
  nums.forEach((n, i) => {
    const at = i * (3 + width);
    data[at] = 1;
    data.writeUIntBE(offsets.get(n)!.offset, at + 1, width);
    data.writeUInt16BE(offsets.get(n)!.gen, at + 1 + width);
  });
  const entries = new Map<string, PdfValue>([
    ['Type', pdfName('XRef')],
    ['Size', size],
    ['Index', runs(nums).flat()],
    ['W', [1, width, 2]],
    ...trailer,
  ]);
  return Buffer.concat([
    latin1(`${num} 0 obj\n`),
    serialize({ kind: 'stream', dict: { kind: 'dict', entries }, raw: data }),
    latin1('\nendobj'),
  ]);
}
