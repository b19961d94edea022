/**
 * Envelopes from a spreadsheet: a CSV of recipients and an envelope template
 * (core/envelope/template.ts), one envelope per row, as an InputSet like the NDJSON
 * one, streamed in constant memory through csv-parse. CSV as spreadsheets
 * write it: UTF-8 or UTF-16 (input/encoding.ts decides once per file, or
 * --encoding), a BOM, Excel's `sep=;` first line, CRLF, quoted fields with
 * delimiters, quotes and line breaks, `;` as the delimiter (Excel in many
 * locales; detected from the header line, or --delimiter), header names
 * trimmed. A file whose export lost letters (`?`, mojibake) is refused once,
 * before a row is read (input/sheet-scan.ts). Rows are named as a spreadsheet
 * numbers them: `recipients.csv:row 12`, the header being row 1; each
 * envelope carries which column filled which field, so errors name the column.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { InputParseError, UsageError } from '../../core/errors.js';
import { parseJsonText } from '../../core/envelope/json-source.js';
import { normalizeEnvelope } from '../../core/envelope/normalize.js';
import { renderTemplate, templatePlaceholders, type ColumnSources } from '../../core/envelope/template.js';
import {
  ENVELOPE_BOUND,
  readableOnce,
  spoolOnce,
  spoolStdin,
  type InputSet,
  type ReadInput,
} from './envelope-inputs.js';
import type { Io } from '../process/io.js';
import { readBoundedFile } from './stdin.js';
import { decideEncoding, decodedText, type EncodingDecision } from './encoding.js';
import { mayHoldLoss } from './lossy.js';

export interface CsvSource {
  /** The CSV file, or `-` for stdin. */
  csv: string;
  /** The envelope template (JSON). */
  template: string;
  /** One character; detected from the header line when not given. */
  delimiter?: string;
  /** --encoding: read the file as this WHATWG encoding instead of deciding. */
  encoding?: string;
  /** Cells of "??" are what the sheet holds, not letters an export lost. */
  allowQuestionMarks?: boolean;
  /** Country whose national phone numbers become E.164. */
  defaultCountry?: string;
}

const CANDIDATES = [',', ';', '\t', '|'];

/** The delimiter of the header line: the candidate that occurs most outside quotes (a comma when none does). */
export function detectDelimiter(headerLine: string): string {
  const counts = new Map(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ',';
  for (const [c, n] of counts) if (n > counts.get(best)!) best = c;
  return best;
}

function checkDelimiter(value: string): string {
  const delimiter = value === '\\t' || value.toLowerCase() === 'tab' ? '\t' : value;
  if ([...delimiter].length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new UsageError(
      `--delimiter must be one character such as ; or , (or tab), got ${JSON.stringify(value)}`,
    );
  }
  return delimiter;
}

/** Excel's first line naming the delimiter (`sep=;`), which it reads and does not show as a row. */
const SEP_LINE = /^sep=(.)\r?$/;

/** The first line of the decoded file (up to 64 KiB of text): a `sep=` line or the header. */
async function firstLine(path: string, decision: EncodingDecision): Promise<string> {
  let text = '';
  for await (const chunk of decodedText(path, decision)) {
    text += chunk;
    if (text.includes('\n') || text.length > 65_536) break;
  }
  return text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
}

/** The decoded text, without a `sep=` first line. */
async function* sheetText(
  path: string,
  decision: EncodingDecision,
  sepLine: boolean,
): AsyncGenerator<string> {
  let skipping = sepLine;
  for await (const chunk of decodedText(path, decision)) {
    if (!skipping) {
      yield chunk;
      continue;
    }
    const end = chunk.indexOf('\n');
    if (end === -1) continue;
    skipping = false;
    if (end + 1 < chunk.length) yield chunk.slice(end + 1);
  }
}

interface Row {
  /** The row as a spreadsheet shows it: the header is row 1, and blank lines count. */
  row: number;
  cells: string[];
}

/** A record longer than this is a quote never closed, not data: an envelope body is at most 1 MiB. */
const MAX_RECORD_BYTES = 1_048_576;

/**
 * The records of a CSV file, each with its spreadsheet row number, streamed.
 * csv-parse's own errors (a quote never closed or opened mid-field) become a
 * usage error naming the file and the last good row. The file is closed
 * however the reading ends (a break, an error, Ctrl-C).
 */
async function* csvRecords(
  path: string,
  name: string,
  delimiter: string,
  decision: EncodingDecision,
  sepLine: boolean,
): AsyncGenerator<Row> {
  const { parse, CsvError } = await import('csv-parse');
  const file = Readable.from(sheetText(path, decision, sepLine));
  const parser = file.pipe(
    parse({
      bom: true,
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: MAX_RECORD_BYTES,
    }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { records: number; empty_lines: number };
    }>) {
      yield { row: info.records + info.empty_lines, cells: record };
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // csv-parse puts its counts on the error: the row it could not read comes after them. (Its
    // message says "line", a physical line, which a quoted line break makes differ from the row.)
    const { records, empty_lines: empty } = error as unknown as { records?: number; empty_lines?: number };
    const at = typeof records === 'number' ? ` at row ${records + (empty ?? 0) + 1}` : '';
    throw new UsageError(`${name}: not readable as CSV${at}: ${error.message}`, {
      hint: 'a field holding the delimiter, a quote or a line break must be quoted, its quotes doubled ("")',
    });
  } finally {
    file.destroy();
    parser.destroy();
  }
}

function readTemplate(path: string): unknown {
  let text: string;
  try {
    // An envelope JSON, bounded as one (envelope-inputs.ts): past the service's limit it is never read whole.
    text = readBoundedFile(path, { ...ENVELOPE_BOUND, what: `--template ${path}` }).toString('utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `--template ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      { hint: 'give an envelope JSON whose strings may hold {{column}} placeholders' },
    );
  }
  try {
    return parseJsonText(text, path, 0);
  } catch (error) {
    if (error instanceof InputParseError)
      throw new UsageError(`--template ${error.message}`, {
        hint: "fix the template's JSON at that position",
      });
    throw error;
  }
}

export interface CsvInputs extends InputSet {
  /** Columns the template never uses (a warning each, not an error). */
  unusedColumns: string[];
  /** Columns (1-based) whose header cell is empty: ignored, with a warning. */
  namelessColumns: number[];
  delimiter: string;
}

/**
 * Opens the CSV and the template and checks them against each other before a
 * row is read: a placeholder with no column is a usage error (exit 2).
 * `signal` is asked for only when the CSV comes on stdin.
 */
export async function openCsvInputs(
  source: CsvSource,
  signal: () => AbortSignal,
  io: Io,
): Promise<CsvInputs> {
  const template = readTemplate(source.template);
  const placeholders = templatePlaceholders(template);
  if (placeholders.length === 0)
    throw new UsageError(
      `--template ${source.template} has no {{column}} placeholder: every row would be the same envelope`,
      { hint: 'put {{column}} where a row\'s value goes, e.g. "name": "{{signer_name}}"' },
    );
  // Stdin, or a pipe given as a path (`--csv <(…)`, a named pipe), is read once into a private
  // copy: the encoding is decided over the whole of it, and a create reads it twice.
  const stdin =
    source.csv === '-'
      ? await spoolStdin(io, signal(), 'recipients CSV')
      : readableOnce(source.csv)
        ? await spoolOnce(source.csv)
        : undefined;
  const path = stdin?.path ?? source.csv;
  const name = source.csv === '-' ? 'stdin' : source.csv;
  try {
    try {
      if (!statSync(path).isFile())
        throw new UsageError(`--csv ${source.csv}: not a file; give the CSV itself`);
      closeSync(openSync(path, 'r'));
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(
        `--csv ${source.csv}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
    const decision = await decideEncoding(path, name, source.encoding);
    const line = await firstLine(path, decision);
    const sep = SEP_LINE.exec(line);
    const delimiter =
      source.delimiter !== undefined
        ? checkDelimiter(source.delimiter)
        : sep
          ? sep[1]!
          : detectDelimiter(line);
    const records = csvRecords(path, name, delimiter, decision, sep !== null);
    const [first, second] = [await records.next(), await records.next()];
    await records.return(undefined);
    if (first.done)
      throw new UsageError(`--csv ${name}: the file is empty; its first row must name the columns`);
    if (second.done)
      throw new UsageError(`${name}: no rows under the header row`, {
        hint: 'one row per envelope, under a header row naming the columns',
      });
    // Spreadsheets write empty header cells for columns that were only formatted: ignored, with a warning.
    const header = first.value.cells.map((c) => c.trim());
    const nameless = header.flatMap((c, i) => (c === '' ? [i + 1] : []));
    const twice = header.find((c, i) => c !== '' && header.indexOf(c) !== i);
    if (twice !== undefined)
      throw new UsageError(`${name}:row 1: the column ${JSON.stringify(twice)} is named twice`);
    const missing = placeholders.filter((p) => !header.includes(p));
    if (missing.length > 0) {
      throw new UsageError(
        `${source.template}: ${missing.map((m) => `{{${m}}}`).join(', ')} ${missing.length === 1 ? 'has no column' : 'have no columns'} in ${name}`,
        {
          hint: `its columns: ${header.filter(Boolean).join(', ')}${delimiter === ',' && header.length === 1 ? ' (one column: is the delimiter ; or tab? --delimiter)' : ''}`,
        },
      );
    }
    // Letters an export lost: looked for in the raw text first, cell by cell only where it may hold some.
    if (await fileMayHoldLoss(path, decision)) {
      const { scanSheet, lossError } = await import('./sheet-scan.js');
      const losses = await scanSheet(
        csvRecords(path, name, delimiter, decision, sep !== null),
        header,
        new Set(placeholders),
        source.allowQuestionMarks === true,
      );
      if (losses.length > 0) throw lossError(name, losses);
    }
    let identity: string | undefined;
    return {
      delimiter,
      unusedColumns: header.filter((c) => c !== '' && !placeholders.includes(c)),
      namelessColumns: nameless,
      get identity() {
        identity ??= createHash('sha256')
          .update('csv\n')
          .update(
            `${stdin ? `stdin:${stdin.hash ?? createHash('sha256').update(readFileSync(stdin.path)).digest('hex')}` : resolve(source.csv)}\n${resolve(source.template)}`,
          )
          .digest('hex');
        return identity;
      },
      async *read(): AsyncGenerator<ReadInput> {
        let headerSeen = false;
        for await (const { row, cells } of csvRecords(path, name, delimiter, decision, sep !== null)) {
          if (!headerSeen) {
            headerSeen = true;
            continue;
          }
          // A row of delimiters only (how exports end, or a row cleared by hand) is a blank row.
          if (cells.every((cell) => cell.trim() === '')) continue;
          const where = `${name}:row ${row}`;
          if (cells.length !== header.length) {
            const fix =
              cells.length < header.length
                ? 'a missing delimiter, or a line break outside quotes?'
                : `a ${delimiter === '\t' ? 'tab' : delimiter} inside a value that is not quoted?`;
            yield {
              source: where,
              error: new Error(
                `has ${cells.length} field${cells.length === 1 ? '' : 's'}, the header has ${header.length} (${fix})`,
              ),
            };
            continue;
          }
          const values = Object.fromEntries(
            header.flatMap((column, i) => (column === '' ? [] : [[column, cells[i]!]])),
          );
          const columns: ColumnSources = new Map();
          const rendered = renderTemplate(template, values, columns);
          yield {
            source: where,
            value: normalizeEnvelope(
              rendered,
              source.defaultCountry ? { defaultCountry: source.defaultCountry } : {},
            ),
            columns,
          };
        }
      },
      close: () => {
        if (stdin) rmSync(stdin.dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (stdin) rmSync(stdin.dir, { recursive: true, force: true });
    throw error;
  }
}

/** Whether the decoded file may hold lost letters (a fast look at the raw text; the cells are judged only then). */
async function fileMayHoldLoss(path: string, decision: EncodingDecision): Promise<boolean> {
  let tail = '';
  for await (const chunk of decodedText(path, decision)) {
    // Two characters of the last chunk kept: a "??" or a mojibake pair may straddle the cut.
    if (mayHoldLoss(tail + chunk)) return true;
    tail = chunk.slice(-2);
  }
  return false;
}
