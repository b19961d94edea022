/**
 * Text a spreadsheet export lost: letters replaced by `?` (Excel's plain
 * "CSV" on a Windows whose code page has no such letters writes each Arabic
 * letter as `?`), mojibake (a UTF-8 file opened as Windows-1252 or 1256 and
 * saved again: `Ø£Ø­Ù…Ø¯`, `ط£ط­ظ…ط¯` for `أحمد`), and U+FFFD, a character an
 * earlier conversion already replaced. Mojibake is told by the rule ftfy and
 * others use: the text, encoded back to the code page, is valid UTF-8 with
 * multi-byte sequences, which real text in those code pages almost never is;
 * what that UTF-8 says is shown as what the cell most likely meant.
 */

import { textDecoder } from './encoding.js';

export type LossKind = 'question marks' | 'mojibake' | 'replacement character';

export interface Loss {
  kind: LossKind;
  /** For mojibake: what the text most likely said. */
  meant?: string;
}

/** A word (between spaces and punctuation) made only of two or more `?`: letters a code page could not hold. */
const QUESTION_RUN = /(?:^|[\s,;:.()"'«»\-/])\?{2,}(?=$|[\s,;:.()"'«»\-/])/u;

/** Code page → its character for each byte 0x80–0xFF, and back. */
interface CodePage {
  name: string;
  encode: Map<string, number>;
}

const pages = new Map<string, CodePage>();

function codePage(name: 'windows-1252' | 'windows-1256'): CodePage {
  let page = pages.get(name);
  if (!page) {
    const decoder = textDecoder(name);
    const encode = new Map<string, number>();
    for (let b = 0x80; b <= 0xff; b++) encode.set(decoder.decode(Uint8Array.of(b)), b);
    page = { name, encode };
    pages.set(name, page);
  }
  return page;
}

/** The text as `page` bytes, or undefined when a character is not in it (or nothing is beyond ASCII). */
function encodeBack(text: string, page: CodePage): Uint8Array | undefined {
  const out: number[] = [];
  let high = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80) {
      out.push(code);
      continue;
    }
    const byte = page.encode.get(ch);
    if (byte === undefined) return undefined;
    out.push(byte);
    high++;
  }
  return high >= 2 ? Uint8Array.from(out) : undefined;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What mojibake `text` most likely said, or undefined when it is not mojibake. */
export function unmojibake(text: string): string | undefined {
  for (const name of ['windows-1252', 'windows-1256'] as const) {
    const bytes = encodeBack(text, codePage(name));
    if (!bytes) continue;
    let decoded: string;
    try {
      decoded = strictUtf8.decode(bytes);
    } catch {
      continue;
    }
    // At least one multi-byte sequence, and shorter than the mojibake: something was really joined.
    if (decoded !== text && decoded.length < text.length) return decoded;
  }
  return undefined;
}

const escapeClass = (chars: Iterable<string>) =>
  [...chars].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/**
 * What begins mojibake in either code page: the character of a UTF-8 lead byte
 * (0xC2–0xEF) followed by the character of a continuation byte (0x80–0xBF) that
 * is not a letter (letters pair up in real text: an Arabic word in 1256, say).
 * A cheap filter before the exact test.
 */
const MOJIBAKE_HINT = (() => {
  const leads = new Set<string>();
  const continuations = new Set<string>();
  for (const name of ['windows-1252', 'windows-1256'] as const) {
    for (const [ch, byte] of codePage(name).encode) {
      if (byte >= 0xc2 && byte <= 0xef) leads.add(ch);
      if (byte >= 0x80 && byte <= 0xbf && !/\p{L}/u.test(ch)) continuations.add(ch);
    }
  }
  return new RegExp(`[${escapeClass(leads)}][${escapeClass(continuations)}]`);
})();

/** What a cell lost, if anything. */
export function lossIn(cell: string): Loss | undefined {
  if (cell.includes('\ufffd')) return { kind: 'replacement character' };
  if (cell.includes('??') && QUESTION_RUN.test(cell)) return { kind: 'question marks' };
  if (MOJIBAKE_HINT.test(cell)) {
    // Word by word: a cell may mix a mangled name with ASCII that was never touched.
    const meant = unmojibake(cell);
    if (meant !== undefined) return { kind: 'mojibake', meant };
  }
  return undefined;
}

/** Whether text may hold a loss (a fast filter over raw file text, before the per-cell test). */
export function mayHoldLoss(text: string): boolean {
  return text.includes('\ufffd') || text.includes('??') || MOJIBAKE_HINT.test(text);
}
