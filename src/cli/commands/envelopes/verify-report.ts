/**
 * What an archive run (`envelopes verify <file|dir>...`) shows: its progress on a terminal
 * (stderr, one line redrawn in place; nothing in a pipe or a file), and at the end the files that
 * did not verify, each with its reason (a table fitted to the terminal: the reason wraps between
 * words under its column, by the one wrapper of layout/), then the counts as the last line. With
 * --json, stdout holds the files' lines alone and the counts go to stderr.
 */
import type { Clock } from '../../../core/clock.js';
import type { CommandContext } from '../../context.js';
import { cellText, type Column } from '../../render/cell.js';
import type { Output } from '../../render/output.js';
import type { FileOutcome } from './verify-one.js';

/** How often the progress line is drawn again, at most. */
const REDRAW_MS = 100;

/** What a run counted. */
export interface RunCounts {
  total: number;
  valid: number;
  invalid: number;
  unreadable: number;
}

export const counted = (c: RunCounts) => c.valid + c.invalid + c.unreadable;

const n = (x: number) => x.toLocaleString('en-US');
const pdfs = (x: number) => `${n(x)} PDF${x === 1 ? '' : 's'}`;

/** `57/189 · 1 valid · 55 invalid · 1 unreadable`: the counts, as the progress line and the summary say them. */
function tally(c: RunCounts): string {
  return `${n(c.valid)} valid · ${n(c.invalid)} invalid · ${n(c.unreadable)} unreadable`;
}

/** The progress line on a terminal's stderr: how many of how many, the counts, the file just done. */
export class RunProgress {
  private readonly enabled: boolean;
  private drawnAt: number | undefined;

  constructor(
    private readonly output: Output,
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    this.enabled = output.stderrIsTTY;
  }

  /** Before the files are known. */
  looking(): void {
    if (this.enabled) this.output.status('looking for PDFs…');
  }

  /** Drawn at the start, after the first file, then at most every REDRAW_MS of the command's clock. */
  update(counts: RunCounts, last?: string): void {
    if (!this.enabled) return;
    const now = this.clock.now();
    if (last !== undefined && this.drawnAt !== undefined && now - this.drawnAt < REDRAW_MS) return;
    this.drawnAt = last === undefined ? undefined : now;
    this.output.status(
      `verifying ${n(counted(counts))}/${n(counts.total)} · ${tally(counts)}${last === undefined ? '' : ` · ${cellText(last)}`}`,
    );
  }

  done(): void {
    if (this.enabled) this.output.status('');
  }
}

const FAILED_COLUMNS: readonly Column[] = [
  { head: 'FILE' },
  { head: 'RESULT' },
  { head: 'REASON', cut: true, min: 24, wrapWhen: () => true },
];

/** A reason without the file's name in front, which the table's FILE column already shows. */
function withoutName(file: string, reason: string): string {
  for (const prefix of [`${file}: `, `the file ${file}: `])
    if (reason.startsWith(prefix)) return reason.slice(prefix.length);
  return reason;
}

/** The run's last line: the counts, and what was left when it was stopped. */
export function countsLine(counts: RunCounts, interrupted: boolean): string {
  const done = counted(counts);
  const parts = `${n(counts.valid)} valid, ${n(counts.invalid)} invalid, ${n(counts.unreadable)} unreadable`;
  if (interrupted)
    return `interrupted after ${n(done)} of ${pdfs(counts.total)}: ${parts}; ${n(counts.total - done)} not verified`;
  return `${pdfs(counts.total)}: ${parts}`;
}

/**
 * The summary on stdout (the table of the files that did not verify, then the counts), or with
 * --json the counts on stderr. `failed` holds only what the table needs.
 */
export async function printSummary(
  ctx: CommandContext,
  counts: RunCounts,
  failed: readonly Pick<FileOutcome, 'file' | 'result' | 'reason'>[],
  interrupted: boolean,
): Promise<void> {
  const { output } = ctx;
  const ok = !interrupted && counts.valid === counts.total;
  const mark = ok ? output.out.green('✓') : output.out.red('✗');
  if (output.json) {
    output.info(`${ok ? output.err.green('✓') : output.err.red('✗')} ${countsLine(counts, interrupted)}`);
    return;
  }
  if (failed.length > 0) {
    const { printTable } = await import('../../render/table.js');
    await printTable(
      output,
      FAILED_COLUMNS,
      failed.map((f) => [cellText(f.file), f.result, cellText(withoutName(f.file, f.reason))]),
    );
    output.line();
  }
  output.line(`${mark} ${countsLine(counts, interrupted)}`);
}
