/**
 * What a table cell or a record field shows, and how a column is described:
 * apart from table.ts so that commands can build their rows and columns
 * without loading the width measuring (string-width) at start-up.
 */
import { untrusted } from '../../core/envelope/text.js';

export interface Column {
  /** The head, written in upper case. */
  head: string;
  /** Free text that may be cut with … to fit a terminal. Every other column is shown whole. */
  cut?: boolean;
  /** The narrowest a cut column gets (default 8, so a cut value still says something). */
  min?: number;
  /**
   * An id or a time: never cut, not even on a line of its own in the stacked layout, where
   * every other value is cut to the line so that no value can wrap onto a line of its own.
   */
  whole?: boolean;
  /**
   * Rows whose cell in this cut column wraps between words, under its column, instead of being
   * cut: text a reader needs whole (a failed check's reason). Only on a terminal.
   */
  wrapWhen?: (row: readonly string[]) => boolean;
}

/**
 * A value as a cell or a field shows it: nothing for null or absent, strings
 * as they are, the rest as JSON; on one line, every control and bidi
 * character escaped (text from input or a server cannot fake a line, hide
 * text or recolour the terminal), and every run of whitespace one space (a
 * name padded with 40 spaces cannot push the rest of it into a column, or
 * onto a line, of its own), so widths are measured on what is shown. Human
 * output only: JSON output shows values exactly.
 */
export const cellText = (value: unknown): string =>
  value === undefined || value === null
    ? ''
    : collapseSpaces(untrusted(typeof value === 'string' ? value : JSON.stringify(value)));

/**
 * Runs of whitespace as one space: spaces, and the no-break, wide and
 * typographic spaces and line separators that would fake alignment as well
 * (tabs and line breaks are escaped before this, as `\t` and `\n`).
 */
export const collapseSpaces = (text: string): string =>
  /\s\s|[^\S ]/.test(text) ? text.replace(/\s+/g, ' ') : text;
