/**
 * Characters no one can see: zero-width spaces and joiners, left-to-right
 * and right-to-left marks, word joiners and invisible operators, a BOM in the
 * middle of text. Pasted from a web page, a chat or a spreadsheet, they make
 * `emp004@company.sa\u200b` a different address from the one the signer reads,
 * and an error about them unreadable. In e-mails, phones, ids, URLs and the
 * other machine values they are refused, named by code point and shown
 * escaped. In names and titles, the zero-width joiner and non-joiner stay
 * where a script needs them (between letters of Arabic, Persian, Syriac or
 * the Indic scripts, which join or break ligatures with them); anything else
 * invisible is refused there too.
 */
import type { FieldIssue } from '../errors.js';
import { isRecord } from './records.js';

/** The invisible characters refused: U+200B–U+200F, U+2060–U+2064, U+FEFF (the bidi controls U+202A–U+202E are plain-text.ts's). */
const INVISIBLE = /[\u200b-\u200f\u2060-\u2064\ufeff]/;
const INVISIBLE_ALL = /[\u200b-\u200f\u2060-\u2064\ufeff]/g;

const NAMES: Record<string, string> = {
  '\u200b': 'zero width space',
  '\u200c': 'zero width non-joiner',
  '\u200d': 'zero width joiner',
  '\u200e': 'left-to-right mark',
  '\u200f': 'right-to-left mark',
  '\u2060': 'word joiner',
  '\u2061': 'function application',
  '\u2062': 'invisible times',
  '\u2063': 'invisible separator',
  '\u2064': 'invisible plus',
  '\ufeff': 'zero width no-break space (byte order mark)',
};

/** Letters of the scripts that use ZWJ and ZWNJ: Arabic (with Persian and Urdu), Syriac, N'Ko, and the Indic scripts. */
const JOINING_LETTER =
  /[\u0600-\u06ff\u0700-\u074f\u0750-\u077f\u07c0-\u07ff\u08a0-\u08ff\u0900-\u0dff\ufb50-\ufdff\ufe70-\ufefe]/;

const codePoint = (ch: string) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/** The text with every invisible character as a visible `\u200b` escape. */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE_ALL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The first invisible character a field of this kind may not hold, or undefined. */
export function invisibleIn(
  text: string,
  kind: 'text' | 'machine',
): { char: string; index: number } | undefined {
  if (!INVISIBLE.test(text)) return undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (!INVISIBLE.test(ch)) continue;
    const joiner = ch === '\u200c' || ch === '\u200d';
    if (
      kind === 'text' &&
      joiner &&
      JOINING_LETTER.test(text[i - 1] ?? '') &&
      JOINING_LETTER.test(text[i + 1] ?? '')
    )
      continue;
    return { char: ch, index: i };
  }
  return undefined;
}

/** The fields that are text a person reads; every other string of an envelope is a machine value. */
const TEXT_FIELDS = new Set(['title', 'name']);

/**
 * Every string of the envelope checked for invisible characters: one error
 * per field, naming the character and showing the value escaped.
 */
export function checkInvisible(
  value: unknown,
  path: string,
  depth: number,
  maxDepth: number,
  errors: FieldIssue[],
): void {
  if (typeof value === 'string') {
    const key = path.slice(path.lastIndexOf('.') + 1);
    const kind = TEXT_FIELDS.has(key) ? 'text' : 'machine';
    const found = invisibleIn(value, kind);
    if (!found) return;
    const shown = showInvisible(value.length > 80 ? `${value.slice(0, 80)}…` : value);
    const why =
      kind === 'text'
        ? 'a name holds one only between letters of a script that joins with it (Arabic, Persian, the Indic scripts)'
        : 'an address, number, id or URL holds no invisible character';
    errors.push({
      path,
      message: `contains an invisible ${NAMES[found.char] ?? 'character'} (${codePoint(found.char)}) at character ${found.index + 1}, shown as "${shown}": ${why}; delete it (it often comes with text copied from a web page, a chat or a spreadsheet)`,
    });
    return;
  }
  if (depth > maxDepth) return;
  if (Array.isArray(value))
    value.forEach((item, i) => checkInvisible(item, `${path}[${i}]`, depth + 1, maxDepth, errors));
  else if (isRecord(value))
    for (const [name, item] of Object.entries(value))
      checkInvisible(item, path ? `${path}.${name}` : name, depth + 1, maxDepth, errors);
}
