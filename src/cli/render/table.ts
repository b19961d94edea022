/**
 * The one face of every table (as gh and kubectl draw theirs): no borders,
 * UPPER CASE heads, two spaces between columns, one line per row so a row
 * stays greppable. On a terminal a table fits its width: the columns of free
 * text (titles, URLs, details; `cut: true`) give way first, cut with …; the
 * columns a person reads by (ids, names, times, types, states, errors) are
 * never cut. When even those do not fit, each row is shown stacked, one
 * `label: value` line per column, rows apart by a blank line, each value but
 * an id or a time (`whole`) cut to its line: a value never wraps, so none can
 * start a line of its own. Piped output is never cut and never stacked.
 */
import type { Column } from './cell.js';
import { cutTo, displayWidth, prepareWidths } from '../layout/width.js';
import { wrapLine } from '../layout/wrap.js';

export { cellText, type Column } from './cell.js';
export { cutTo, displayWidth, loadUnicodeWidth, prepareWidths } from '../layout/width.js';

export type Layout = { kind: 'table'; widths: number[] } | { kind: 'stacked' };

/** Columns between two cells. */
export const GAP = '  ';
const DEFAULT_MIN = 8;

/** Every cell and head of a table, for prepareWidths. */
function* tableTexts(columns: readonly Column[], rows: readonly (readonly string[])[]): Iterable<string> {
  for (const column of columns) yield column.head;
  for (const row of rows) yield* row;
}
const padTo = (text: string, width: number): string =>
  text + ' '.repeat(Math.max(0, width - displayWidth(text)));

/**
 * How rows are laid out in `width` columns (undefined: a pipe, nothing cut).
 * The widest cut column loses a column at a time until the table fits; when
 * every cut column is at its narrowest and it still does not, stacked.
 */
export function planLayout(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
): Layout {
  const widths = columns.map((c, i) =>
    Math.max(displayWidth(c.head), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  if (width === undefined) return { kind: 'table', widths };
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1);
  while (total() > width) {
    let widest = -1;
    columns.forEach((column, i) => {
      // A cut column keeps at least `min` columns (its head is cut with it).
      if (
        column.cut &&
        widths[i]! > (column.min ?? DEFAULT_MIN) &&
        (widest < 0 || widths[i]! > widths[widest]!)
      )
        widest = i;
    });
    if (widest < 0) return { kind: 'stacked' };
    widths[widest]!--;
  }
  return { kind: 'table', widths };
}

export interface Style {
  /** How heads and labels are drawn (bold on a terminal with colour). */
  head(text: string): string;
}

const plainStyle: Style = { head: (text) => text };

/**
 * One table row: cells padded to the widths, cut columns cut; the last column is not padded. A
 * cell its column wraps (`wrapWhen`) is wrapped between words instead, its next lines under its
 * column (the row's lines joined by line breaks).
 */
export function tableLine(
  columns: readonly Column[],
  cells: readonly string[],
  widths: readonly number[],
): string {
  const pieces = columns.map((column, i) => {
    const cell = cells[i] ?? '';
    if (!column.cut || displayWidth(cell) <= widths[i]!) return [cell];
    return column.wrapWhen?.(cells)
      ? wrapLine(cell, widths[i]!, '', displayWidth)
      : [cutTo(cell, widths[i]!)];
  });
  const height = Math.max(...pieces.map((p) => p.length));
  return Array.from({ length: height }, (_, line) =>
    columns
      .map((_column, i) => {
        const piece = pieces[i]![line] ?? '';
        return i === columns.length - 1 ? piece : padTo(piece, widths[i]!);
      })
      .join(GAP)
      .trimEnd(),
  ).join('\n');
}

/** The head line of a table. */
export function headLine(
  columns: readonly Column[],
  widths: readonly number[],
  style: Style = plainStyle,
): string {
  return columns
    .map((column, i) => {
      const head = displayWidth(column.head) > widths[i]! ? cutTo(column.head, widths[i]!) : column.head;
      return style.head(i === columns.length - 1 ? head : padTo(head, widths[i]!));
    })
    .join(GAP)
    .trimEnd();
}

/** A field of a record: an id or a time is `whole`, never cut; a `wrap` value wraps under its column instead. */
export interface RecordField {
  label: string;
  value: string;
  whole?: boolean;
  wrap?: boolean;
}

/**
 * One record as `label: value` lines, labels aligned (the stacked layout, and
 * `envelopes get`). On a terminal every value but a `whole` one is cut to what
 * is left of the width, so that no value wraps: a title padded to the width
 * cannot put a `status: completed` of its own at the start of the next line.
 */
export function recordLines(
  fields: readonly RecordField[],
  width: number | undefined,
  style: Style = plainStyle,
): string[] {
  const labelWidth = Math.max(0, ...fields.map((f) => displayWidth(f.label) + 1));
  return fields.flatMap(({ label, value, whole, wrap }) => {
    const room = width === undefined ? undefined : width - labelWidth - GAP.length;
    const head = `${style.head(padTo(`${label}:`, labelWidth))}${GAP}`;
    if (wrap && room !== undefined && displayWidth(value) > room) {
      const [first = '', ...rest] = wrapLine(value, Math.max(room, 1), '', displayWidth);
      return [`${head}${first}`.trimEnd(), ...rest.map((l) => `${' '.repeat(labelWidth + GAP.length)}${l}`)];
    }
    const shown =
      !whole && room !== undefined && displayWidth(value) > room ? cutTo(value, Math.max(room, 1)) : value;
    return [`${head}${shown}`.trimEnd()];
  });
}

/** A row in the stacked layout: the column heads, in lower case, as labels. */
export function stackedLines(
  columns: readonly Column[],
  cells: readonly string[],
  width: number | undefined,
  style: Style = plainStyle,
): string[] {
  return recordLines(
    columns.map((column, i) => ({
      label: column.head.toLowerCase(),
      value: cells[i] ?? '',
      ...(column.whole ? { whole: true } : {}),
      ...(column.wrapWhen?.(cells) ? { wrap: true } : {}),
    })),
    width,
    style,
  );
}

/** The lines of a whole table (head and rows) or of its stacked rows, for a terminal of `width` columns or a pipe. */
export function tableLines(
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
  style: Style = plainStyle,
): string[] {
  return linesFor(planLayout(columns, rows, width), columns, rows, width, style, true);
}

/**
 * Lines for rows under a layout already chosen: a listing streamed page by
 * page keeps its first page's layout. `first`: these rows start the output
 * (a table's head goes first; a stacked record needs no blank line before it).
 */
export function linesFor(
  layout: Layout,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
  width: number | undefined,
  style: Style,
  first: boolean,
): string[] {
  if (layout.kind === 'stacked') {
    return rows.flatMap((row, i) => [
      ...(i === 0 && first ? [] : ['']),
      ...stackedLines(columns, row, width, style),
    ]);
  }
  return [
    ...(first ? [headLine(columns, layout.widths, style)] : []),
    ...rows.flatMap((row) => tableLine(columns, row, layout.widths).split('\n')),
  ];
}

/** What the printers need of Output (a type only: no cycle at run time). */
interface TableOutput {
  readonly columns: number | undefined;
  readonly out: { bold(text: string): string };
  line(text: string): void;
}

const styleOf = (output: TableOutput): Style => ({ head: (text) => output.out.bold(text) });

/** A whole table on stdout, fitted to the terminal (or stacked), whole in a pipe. */
export async function printTable(
  output: TableOutput,
  columns: readonly Column[],
  rows: readonly (readonly string[])[],
): Promise<void> {
  await prepareWidths(tableTexts(columns, rows));
  for (const line of tableLines(columns, rows, output.columns, styleOf(output))) output.line(line);
}

/** One record as `label: value` lines on stdout. */
export async function printRecord(output: TableOutput, fields: readonly RecordField[]): Promise<void> {
  await prepareWidths(fields.flatMap((f) => [f.label, f.value]));
  for (const line of recordLines(fields, output.columns, styleOf(output))) output.line(line);
}

/** Rows of a listing as its pages arrive: the layout is chosen on the first page and kept. */
export class StreamedTable {
  private layout: Layout | undefined;

  constructor(
    private readonly output: TableOutput,
    private readonly columns: readonly Column[],
  ) {}

  async write(rows: readonly (readonly string[])[]): Promise<void> {
    if (rows.length === 0) return;
    await prepareWidths(tableTexts(this.columns, rows));
    const first = this.layout === undefined;
    this.layout ??= planLayout(this.columns, rows, this.output.columns);
    for (const line of linesFor(
      this.layout,
      this.columns,
      rows,
      this.output.columns,
      styleOf(this.output),
      first,
    ))
      this.output.line(line);
  }

  /** Whether any row was written. */
  get started(): boolean {
    return this.layout !== undefined;
  }
}
