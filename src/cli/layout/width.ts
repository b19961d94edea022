/**
 * How many columns text takes on a terminal, and text cut to a number of
 * columns: the one measure of the tables, the fitted lines and the wrapped
 * messages. Plain ASCII is measured at once; anything else needs
 * string-width, loaded only once some text needs it (see `prepareWidths`).
 */

const ANSI = /\u001b\[[0-9;]*m/g;
/**
 * Printable ASCII, the marks sign-cli itself draws (… of a cut cell, ✓ and ✗, the · and → of its
 * lines) and its own colour codes: one column a character once the codes are out (string-width
 * says the same). Written as escapes: the bundle holds no character beyond Latin-1
 * (scripts/build/build.mjs).
 */
const PLAIN = /^(?:[\x20-\x7e\u00b7\u2026\u2192\u2713\u2717]|\u001b\[[0-9;]*m)*$/;

/**
 * string-width, once some text needs it. Setting it up (its grapheme segmenter and
 * Unicode-property patterns) costs more than the rest of a command's start-up, which a table of ids, dates and
 * Latin names never needs, so every printer first awaits `prepareWidths` with its text.
 */
let unicodeWidth: ((text: string) => number) | undefined;

/** Loads the Unicode width measure, for a printer that measures text as it comes (a listener's events, a bulk run's lines). */
export async function loadUnicodeWidth(): Promise<void> {
  unicodeWidth ??= (await import('string-width')).default;
}

/** Loads the Unicode width measure if any of `texts` is not plain ASCII; sync measuring of that text needs it done. */
export async function prepareWidths(texts: Iterable<string>): Promise<void> {
  if (unicodeWidth) return;
  for (const text of texts) {
    if (!PLAIN.test(text)) {
      unicodeWidth = (await import('string-width')).default;
      return;
    }
  }
}

/** Columns a string takes on a terminal: wide (CJK) characters count two, colour codes and combining marks none. */
export function displayWidth(text: string): number {
  if (PLAIN.test(text)) return text.replace(ANSI, '').length;
  if (!unicodeWidth)
    throw new Error('displayWidth: a text that is not plain ASCII was measured before prepareWidths');
  return unicodeWidth(text);
}

/**
 * The columns `text` takes at most, measured at once, with no measure loaded: exact for plain
 * ASCII and once the Unicode measure is loaded, else two columns for every character beyond
 * ASCII (no character takes more), so a line judged to fit does fit. For a message written as
 * it happens (an error, a warning), which cannot wait for the measure to load.
 */
export function widthAtMost(text: string): number {
  if (PLAIN.test(text) || unicodeWidth) return displayWidth(text);
  let columns = 0;
  for (const char of text.replace(ANSI, '')) columns += char.charCodeAt(0) < 0x80 ? 1 : 2;
  return columns;
}

let segmenter: Intl.Segmenter | undefined;

/**
 * `text` cut to at most `width` columns, ending in … when cut (colour is dropped from a cut cell);
 * `from: 'start'` keeps its end instead, after a … (a path's file name). Measured as widthAtMost:
 * exactly once prepareWidths has loaded the measure, else never wider than it says.
 */
export function cutTo(text: string, width: number, from: 'end' | 'start' = 'end'): string {
  if (widthAtMost(text) <= width) return text;
  if (width <= 0) return '';
  const bare = text.replace(ANSI, '');
  // Plain ASCII: a character is a column (no segmenter to set up).
  if (PLAIN.test(text))
    return from === 'end' ? `${bare.slice(0, width - 1)}…` : `…${bare.slice(bare.length - (width - 1))}`;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const segments = [...segmenter.segment(bare)].map((s) => s.segment);
  if (from === 'start') segments.reverse();
  const kept: string[] = [];
  let used = 0;
  for (const segment of segments) {
    const w = widthAtMost(segment);
    if (used + w > width - 1) break;
    kept.push(segment);
    used += w;
  }
  return from === 'end' ? `${kept.join('')}…` : `…${kept.reverse().join('')}`;
}
