/**
 * Tables with cli-table3; plain borders when colour is off so output stays
 * greppable. On a terminal a table fits its width: the widest columns that may
 * be shortened are cut (with …) until it fits, while the columns a person
 * copies from (key masks, ids, dates) stay whole. Piped output is never cut.
 */
import type { Output } from './output.js';

/** A value as a table cell or a line shows it: nothing for null or absent, strings as they are, the rest as JSON. */
export const cellText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

export interface TableOptions {
  /** Columns never shortened (0-based). */
  keep?: readonly number[];
  /** Narrowest width of a column that may be shortened, when not MIN_COLUMN (a date: 10). */
  min?: Readonly<Record<number, number>>;
}

/** A column is not cut below this many characters ("sig…"). */
const MIN_COLUMN = 4;
/** Printable length: colour codes take no room. */
const visibleLength = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '').length;

/**
 * Content widths that fit `width` columns with cli-table3's borders (one
 * character per border, one space of padding on each side), cutting the widest
 * shortenable column one character at a time; undefined when it fits already.
 */
export function fitColumns(natural: readonly number[], width: number, keep: ReadonlySet<number>, min: Readonly<Record<number, number>> = {}): number[] | undefined {
  const widths = [...natural];
  const total = () => widths.reduce((sum, w) => sum + w + 2, 0) + widths.length + 1;
  if (total() <= width) return undefined;
  while (total() > width) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (!keep.has(i) && widths[i]! > (min[i] ?? MIN_COLUMN) && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    }
    if (widest < 0) break; // as narrow as it goes: the terminal wraps the rest
    widths[widest]!--;
  }
  return widths;
}

export async function renderTable(output: Output, head: string[], rows: string[][], options: TableOptions = {}): Promise<string> {
  // cli-table3 is loaded only by commands that draw tables (its own chunk in the bundle).
  const { default: Table } = await import('cli-table3');
  const columns = Math.max(head.length, ...rows.map((r) => r.length));
  const natural = Array.from({ length: columns }, (_, i) => Math.max(visibleLength(head[i] ?? ''), ...rows.map((r) => visibleLength(r[i] ?? ''))));
  const fitted = output.columns === undefined ? undefined : fitColumns(natural, output.columns, new Set(options.keep ?? []), options.min);
  const table = new Table({
    head: head.map((h) => output.out.bold(h)),
    style: { head: [], border: [] },
    // No rule between rows: easier to scan, and a row stays one line for grep.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    ...(fitted ? { colWidths: fitted.map((w) => w + 2) } : {}),
  });
  table.push(...rows);
  return table.toString();
}
