/**
 * The text encoding of an input file, decided once per file, before any of
 * it is read as envelopes. UTF-8 (with or without a BOM) and UTF-16 (with a
 * BOM, or recognised without one by its zero bytes) are read as they are.
 * A file that is not valid UTF-8 is refused once, naming the encoding it most
 * likely is (chardet, a well-kept detector, on the bytes around the first bad
 * one) and the fix: save it as UTF-8, or read it as that encoding with
 * `--encoding` (any WHATWG label Node's TextDecoder knows, e.g. windows-1256).
 * Decoding is streamed with the same decision, so memory stays flat.
 */
import { closeSync, createReadStream, openSync, readFileSync, readSync } from 'node:fs';
import { UsageError } from '../../core/errors.js';
import { readBoundedFile, type InputBound } from './stdin.js';

export interface EncodingDecision {
  /** The WHATWG label the file is decoded with. */
  encoding: string;
  /** Bytes of byte order mark at the start (skipped). */
  bom: number;
  /** How it was decided, for `--verbose` and messages. */
  how: 'bom' | 'zero bytes' | 'utf-8' | 'given';
}

const SNIFF_BYTES = 65_536;

/**
 * A whole file read at once (a JSON envelope: small), decoded by the same rule as
 * decideEncoding, without streams: reading a JSON file stays as cheap as it was.
 * With a bound, a larger file is refused (readBoundedFile), never read whole.
 */
export async function readTextFile(
  path: string,
  name: string,
  label?: string,
  bound?: InputBound,
): Promise<string> {
  const bytes = bound ? readBoundedFile(path, bound) : readFileSync(path);
  const sniffed = sniff(bytes);
  // Decoded whole, a byte order mark kept as U+FEFF: the JSON reader takes one off, as before (a second is an error).
  if (label !== undefined) return textDecoder(checkLabel(label)).decode(bytes);
  if (sniffed) return textDecoder(sniffed.encoding, true).decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw await notUtf8(name, bytes, newlines(bytes, firstInvalid(bytes)) + 1);
  }
}

/** The first bytes of a file (at most 64 KiB). */
function head(path: string): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** A byte order mark, or UTF-16 told by its zero bytes (ASCII text in UTF-16 has one in every pair). */
export function sniff(bytes: Uint8Array): EncodingDecision | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { encoding: 'utf-8', bom: 3, how: 'bom' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', bom: 2, how: 'bom' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', bom: 2, how: 'bom' };
  const pairs = Math.floor(Math.min(bytes.length, 4096) / 2);
  if (pairs < 2) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < pairs; i++) {
    if (bytes[2 * i] === 0) evenZero++;
    if (bytes[2 * i + 1] === 0) oddZero++;
  }
  // Text has no zero bytes; UTF-16 of Latin or Arabic text has them in one half of the pairs.
  if (oddZero > pairs * 0.3 && evenZero < pairs * 0.05)
    return { encoding: 'utf-16le', bom: 0, how: 'zero bytes' };
  if (evenZero > pairs * 0.3 && oddZero < pairs * 0.05)
    return { encoding: 'utf-16be', bom: 0, how: 'zero bytes' };
  return undefined;
}

/** Windows-1252's characters for bytes 0x80–0x9F (the WHATWG index), where ISO-8859-1 has C1 controls. */
const CP1252_80_9F = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

/** What decodes a file: a TextDecoder, or the stand-in below. */
export interface Decoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

/**
 * A decoder for `encoding`. Node 20's TextDecoder decodes windows-1252 as ISO-8859-1
 * (bytes 0x80–0x9F as C1 controls: “smart quotes” and … lost); where it does, those
 * bytes are mapped here. Node 24 decodes it right, and gets its own decoder.
 */
export function textDecoder(encoding: string, fatal = false): Decoder {
  const native = new TextDecoder(encoding, { fatal, ignoreBOM: true });
  if (native.encoding !== 'windows-1252' || native.decode(Uint8Array.of(0x85)) === '\u2026') return native;
  return {
    decode: (input) =>
      input
        ? Buffer.from(input.buffer, input.byteOffset, input.byteLength)
            .toString('latin1')
            .replace(/[\u0080-\u009f]/g, (c) => String.fromCharCode(CP1252_80_9F[c.charCodeAt(0) - 0x80]!))
        : '',
  };
}

/** `--encoding`: a label Node's TextDecoder knows, or a usage error naming a few. */
export function checkLabel(label: string): string {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    throw new UsageError(`--encoding ${label}: not an encoding this Node knows`, {
      hint: 'give a WHATWG label such as windows-1256 (Arabic Windows), windows-1252 (Western Windows), iso-8859-6 or utf-16le',
    });
  }
}

/** chardet's names for the encodings spreadsheets write, as the label `--encoding` takes and what people call them. */
const GUESSES: Record<string, { label: string; what: string }> = {
  'windows-1256': { label: 'windows-1256', what: 'Arabic Windows' },
  'ISO-8859-6': { label: 'windows-1256', what: 'Arabic' },
  'windows-1252': { label: 'windows-1252', what: 'Western Windows' },
  'ISO-8859-1': { label: 'windows-1252', what: 'Western Windows' },
  'ISO-8859-15': { label: 'windows-1252', what: 'Western Windows' },
  'windows-1251': { label: 'windows-1251', what: 'Cyrillic Windows' },
  'ISO-8859-9': { label: 'windows-1254', what: 'Turkish Windows' },
  'ISO-8859-2': { label: 'windows-1250', what: 'Central European Windows' },
  'ISO-8859-7': { label: 'windows-1253', what: 'Greek Windows' },
  'ISO-8859-8': { label: 'windows-1255', what: 'Hebrew Windows' },
  Shift_JIS: { label: 'shift_jis', what: 'Japanese' },
  GB18030: { label: 'gb18030', what: 'Chinese' },
  Big5: { label: 'big5', what: 'Traditional Chinese' },
  'EUC-KR': { label: 'euc-kr', what: 'Korean' },
};

/**
 * Whether the bytes beyond ASCII read as Arabic letters in Windows-1256 (Excel's "CSV" on an
 * Arabic Windows): chardet needs more text than a short sheet has to tell 1256 from 1252.
 */
function looksArabic1256(sample: Uint8Array): boolean {
  const high = sample.filter((b) => b >= 0x80);
  if (high.length < 4) return false;
  const text = textDecoder('windows-1256').decode(high);
  const arabic = [...text].filter((ch) => /[\u0600-\u06ff]/.test(ch)).length;
  return arabic / high.length > 0.6;
}

/** The encoding chardet finds most likely for bytes that are not UTF-8. */
async function guess(sample: Uint8Array): Promise<{ label: string; what: string } | undefined> {
  if (looksArabic1256(sample)) return GUESSES['windows-1256'];
  // chardet is CommonJS: its functions are on the namespace, or on its default export once bundled.
  const chardet = (await import('chardet')) as unknown as {
    analyse?: typeof import('chardet').analyse;
    default?: { analyse: typeof import('chardet').analyse };
  };
  const analyse = chardet.analyse ?? chardet.default!.analyse;
  for (const { name } of analyse(sample)) {
    const known = GUESSES[name];
    if (known) return known;
    if (name !== 'UTF-8' && name !== 'ASCII') return { label: name.toLowerCase(), what: name };
  }
  return undefined;
}

/** The offset of the first byte that breaks UTF-8 in `bytes` (a sequence cut by the end is not counted). */
function firstInvalid(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    const follow = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (follow < 0) return i;
    if (i + follow >= bytes.length) return bytes.length;
    for (let k = 1; k <= follow; k++) if ((bytes[i + k]! & 0xc0) !== 0x80) return i;
    i += follow + 1;
  }
  return bytes.length;
}

const newlines = (bytes: Uint8Array, end = bytes.length) => {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
};

/**
 * Decides how `path` is decoded: `label` when given; else a BOM or UTF-16's
 * zero bytes; else UTF-8, checked over the whole file (streamed), or refused
 * once with the most likely encoding. `name` is the file as messages call it.
 */
export async function decideEncoding(path: string, name: string, label?: string): Promise<EncodingDecision> {
  const first = head(path);
  const sniffed = sniff(first);
  if (label !== undefined) {
    const encoding = checkLabel(label);
    return {
      encoding,
      bom: sniffed && sniffed.how === 'bom' && sniffed.encoding === encoding ? sniffed.bom : 0,
      how: 'given',
    };
  }
  if (sniffed) return sniffed;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lines = 0;
  let bad: { line: number; sample: Uint8Array } | undefined;
  const stream = createReadStream(path, { highWaterMark: SNIFF_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        bad = { line: lines + newlines(chunk, firstInvalid(chunk)) + 1, sample: chunk };
        break;
      }
      lines += newlines(chunk);
    }
    if (!bad) {
      try {
        decoder.decode();
      } catch {
        bad = { line: lines + 1, sample: first };
      }
    }
  } finally {
    stream.destroy();
  }
  if (!bad) return { encoding: 'utf-8', bom: 0, how: 'utf-8' };
  throw await notUtf8(name, bad.sample, bad.line);
}

/** The one error for a file that is not UTF-8: where, what it most likely is, and the fixes. */
async function notUtf8(name: string, sample: Uint8Array, line: number): Promise<UsageError> {
  const likely = await guess(sample);
  return new UsageError(
    `${name}: not UTF-8 text (from line ${line})${likely ? `; it looks like ${likely.label} (${likely.what})` : ''}, so its letters would be read wrong`,
    {
      hint: `save it as "CSV UTF-8" (Excel), "Text CSV" with character set Unicode (UTF-8) (LibreOffice) or download it as CSV (Google Sheets, always UTF-8); or read it as it is with --encoding ${likely?.label ?? 'windows-1256'}`,
    },
  );
}

/** The file decoded as decided, in chunks of text (a decoder in streaming mode: no character is split). */
export async function* decodedText(path: string, decision: EncodingDecision): AsyncGenerator<string> {
  const decoder = textDecoder(decision.encoding, decision.how !== 'given');
  const stream = createReadStream(path, { start: decision.bom, highWaterMark: SNIFF_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    stream.destroy();
  }
}
