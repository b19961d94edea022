/**
 * One line of human output that fits the terminal: the one way every streamed
 * line (a listener's event, a bulk run's envelope, the watch view) is put
 * together. A line is made of parts: sign-cli's own words (a string), values
 * shown whole (ids, contract ids, times) and free text (titles, names, URLs,
 * a server's error), each value escaped and its whitespace runs collapsed
 * (cell.ts). On a terminal, when the line is wider than the width, the
 * alignment padding goes first, then free text is cut with … (down to its
 * `min`), then optional words of ours are left out whole (never cut
 * mid-word), then free text is cut to its … alone. So a value never pushes
 * the line past the width, and nothing it holds can wrap to the start of a
 * line of its own. Only ids, times and our own words are never cut: a line of
 * those wider than the terminal is wrapped between words (layout/wrap.ts), its next
 * lines indented, with all its words and its free text cut to a third of the
 * width at most, never left to the terminal to break inside an id. In a pipe
 * nothing is cut or wrapped.
 */
import { cellText } from './cell.js';
import { cutTo, displayWidth } from '../layout/width.js';
import { wrapLine } from '../layout/wrap.js';

export interface Part {
  /** What is shown: our own words, or a value already through cellText (see `free`, `whole`). */
  text: string;
  /** Free text: cut with … when the line is too wide. */
  cut?: boolean;
  /** The narrowest free text is cut to before optional words are left out (default 8). */
  min?: number;
  /** Among free text, lower is cut first (default 0). */
  rank?: number;
  /** Words of ours the line can do without: left out whole when it cannot fit them; lower goes first. */
  optional?: number;
  /** Padded to this many columns while there is room (a column a reader's eye follows). */
  pad?: number;
  /** Colour, applied after cutting (a cut never splits a colour code). */
  paint?: (text: string) => string;
  /** Cut from the start, keeping the end (a path: its file name): `…/dir/envelope.json`. */
  keepEnd?: boolean;
}

/** A part; `false`, `undefined` and '' are left out, so a part can be written `cond && …`. */
export type LinePart = string | Part | false | undefined;

const DEFAULT_MIN = 8;

/** A value as free text: escaped, whitespace collapsed, cut first when the line is too wide. */
export const free = (value: unknown, options: Omit<Part, 'text' | 'cut'> = {}): Part => ({
  text: cellText(value),
  cut: true,
  ...options,
});

/** A value shown whole (an id, a contract id, a time): escaped, whitespace collapsed, never cut. */
export const whole = (value: unknown, options: Omit<Part, 'text' | 'cut'> = {}): Part => ({
  text: cellText(value),
  ...options,
});

/** Our own words, left out whole (lowest `rank` first) when the line cannot fit them. */
export const optional = (text: string, rank = 0, paint?: (text: string) => string): Part => ({
  text,
  optional: rank,
  ...(paint ? { paint } : {}),
});

/**
 * Cuts the free parts by `excess` columns at most, lowest rank first and, within a rank, the
 * widest first (they shrink together), none below its floor. Returns what is still in excess.
 */
function shrink(
  parts: readonly Part[],
  widths: number[],
  kept: readonly boolean[],
  excess: number,
  floorOf: (part: Part) => number,
): number {
  const ranks = [...new Set(parts.filter((p, i) => p.cut && kept[i]).map((p) => p.rank ?? 0))].sort(
    (a, b) => a - b,
  );
  for (const rank of ranks) {
    if (excess <= 0) return excess;
    const group = parts.flatMap((p, i) => (p.cut && kept[i] && (p.rank ?? 0) === rank ? [i] : []));
    const give = (cap: number) =>
      group.reduce((sum, i) => sum + Math.max(0, widths[i]! - Math.max(cap, floorOf(parts[i]!))), 0);
    if (give(0) <= excess) {
      excess -= give(0);
      for (const i of group) widths[i] = Math.min(widths[i]!, floorOf(parts[i]!));
      continue;
    }
    // The widest cap at which the group gives enough: every part above it is cut to it.
    let low = 0;
    let high = Math.max(...group.map((i) => widths[i]!));
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (give(mid) >= excess) low = mid;
      else high = mid - 1;
    }
    excess -= give(low);
    for (const i of group) widths[i] = Math.min(widths[i]!, Math.max(low, floorOf(parts[i]!)));
  }
  return excess;
}

/**
 * The line of `parts` for a terminal `width` columns wide, or a pipe (undefined: nothing cut).
 * On a terminal, a line that still does not fit once everything that may be cut is cut comes
 * back as several, broken between words (joined by line breaks).
 */
export function fitLine(input: readonly LinePart[], width: number | undefined): string {
  const parts = input
    .filter((p): p is string | Part => p !== false && p !== undefined && p !== '')
    .map((p) => (typeof p === 'string' ? { text: p } : p));
  const natural = parts.map((p) => (width === undefined ? 0 : displayWidth(p.text)));
  const pads = parts.map((p, i) =>
    width === undefined && p.pad !== undefined
      ? Math.max(0, p.pad - [...p.text].length)
      : Math.max(0, (p.pad ?? 0) - natural[i]!),
  );
  const kept = parts.map(() => true);
  let widths = natural.slice();
  const total = () => parts.reduce((sum, _p, i) => sum + (kept[i] ? widths[i]! + pads[i]! : 0), 0);
  const render = () =>
    parts
      .map((p, i) => {
        if (!kept[i]) return '';
        const text =
          widths[i]! < natural[i]! ? cutTo(p.text, widths[i]!, p.keepEnd ? 'start' : 'end') : p.text;
        return `${p.paint ? p.paint(text) : text}${' '.repeat(pads[i]!)}`;
      })
      .join('')
      .trimEnd();
  if (width !== undefined && total() > width) {
    // The padding first, from the end of the line.
    for (let i = parts.length - 1; i >= 0 && total() > width; i--)
      pads[i] = Math.max(0, pads[i]! - (total() - width));
    const atMin = () => {
      widths = natural.slice();
      return shrink(parts, widths, kept, total() - width, (p) =>
        Math.min(p.min ?? DEFAULT_MIN, displayWidth(p.text)),
      );
    };
    let excess = atMin();
    // Then our optional words, whole, while free text would have to go below its minimum.
    const droppable = parts
      .flatMap((p, i) => (p.optional === undefined ? [] : [i]))
      .sort((a, b) => parts[a]!.optional! - parts[b]!.optional! || b - a);
    for (const i of droppable) {
      if (excess <= 0) break;
      kept[i] = false;
      excess = atMin();
    }
    // Last, free text down to its … alone, when that makes the line fit.
    if (excess > 0) shrink(parts, widths, kept, excess, () => 1);
    if (displayWidth(render()) > width) {
      // It cannot fit on one line: it wraps, so nothing is left out, and free text keeps up to a
      // third of the line (a file name, a title that says which).
      kept.fill(true);
      widths = natural.map((w, i) =>
        parts[i]!.cut ? Math.min(w, Math.max(parts[i]!.min ?? DEFAULT_MIN, Math.floor(width / 3))) : w,
      );
    }
  }
  const line = render();
  return width === undefined ? line : wrapLine(line, width, '  ', displayWidth).join('\n');
}
