/**
 * Letters a spreadsheet export lost, found once per file before a row is
 * read as an envelope: each column the template uses is checked cell by
 * cell (lossy.ts), and what was found is one error for the whole file,
 * naming each column, its first rows, what a mangled cell most likely said,
 * and how to export again. Nothing is sent when it is found.
 */
import { UsageError } from '../../core/errors.js';
import { lossIn, type LossKind } from './lossy.js';

export interface ColumnLoss {
  column: string;
  kind: LossKind;
  rows: number[];
  count: number;
  /** The first cell, and for mojibake what it most likely said. */
  example: { cell: string; meant?: string };
}

const SHOWN_ROWS = 3;

/** Every loss in the columns `used`, by column and kind, in the order found. */
export async function scanSheet(
  records: AsyncIterable<{ row: number; cells: string[] }>,
  header: string[],
  used: ReadonlySet<string>,
  allowQuestionMarks: boolean,
): Promise<ColumnLoss[]> {
  const found = new Map<string, ColumnLoss>();
  let first = true;
  for await (const { row, cells } of records) {
    if (first) {
      first = false;
      continue;
    }
    cells.forEach((cell, i) => {
      const column = header[i];
      if (column === undefined || !used.has(column)) return;
      const loss = lossIn(cell);
      if (!loss || (allowQuestionMarks && loss.kind === 'question marks')) return;
      const key = `${column}\u0000${loss.kind}`;
      const entry = found.get(key) ?? {
        column,
        kind: loss.kind,
        rows: [],
        count: 0,
        example: { cell, ...(loss.meant ? { meant: loss.meant } : {}) },
      };
      entry.count++;
      if (entry.rows.length < SHOWN_ROWS) entry.rows.push(row);
      found.set(key, entry);
    });
  }
  return [...found.values()];
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

function rowsText(loss: ColumnLoss): string {
  const more = loss.count - loss.rows.length;
  return `row${loss.count === 1 ? '' : 's'} ${loss.rows.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/** The one error for a file whose export lost letters. */
export function lossError(name: string, losses: ColumnLoss[]): UsageError {
  const parts = losses.map((loss) => {
    const where = `column ${loss.column} (${rowsText(loss)})`;
    switch (loss.kind) {
      case 'question marks':
        return `${where} has "?" where letters were, e.g. ${JSON.stringify(clip(loss.example.cell))}`;
      case 'mojibake':
        return `${where} has mojibake, e.g. ${JSON.stringify(clip(loss.example.cell))}, most likely ${JSON.stringify(clip(loss.example.meant ?? ''))}`;
      default:
        return `${where} has U+FFFD, a character an earlier conversion could not read, e.g. ${JSON.stringify(clip(loss.example.cell))}`;
    }
  });
  const kinds = new Set(losses.map((l) => l.kind));
  const advice = [
    kinds.has('question marks')
      ? 'Excel\'s plain "CSV" on a Windows without these letters writes "?" for them: save as "CSV UTF-8" instead and export again (--allow-question-marks if the text really holds "??")'
      : null,
    kinds.has('mojibake')
      ? 'a UTF-8 file was opened as Windows-1252 or 1256 and saved again: export again from the original sheet as CSV UTF-8'
      : null,
    kinds.has('replacement character')
      ? 'the letters were lost before this file was written: export again from the original sheet as CSV UTF-8'
      : null,
  ].filter(Boolean);
  return new UsageError(
    `${name}: the export lost letters, so names would be sent wrong: ${parts.join('; ')}`,
    { hint: advice.join('; ') },
  );
}
