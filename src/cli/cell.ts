/**
 * What a table cell or a record field shows, and how a column is described:
 * apart from table.ts so that commands can build their rows and columns
 * without loading the width measuring (string-width) at start-up.
 */
import { untrusted } from '../core/text.js';

export interface Column {
  /** The head, written in upper case. */
  head: string;
  /** Free text that may be cut with … to fit a terminal. Every other column is shown whole. */
  cut?: boolean;
  /** The narrowest a cut column gets (default 8, so a cut value still says something). */
  min?: number;
}

/**
 * A value as a cell or a field shows it: nothing for null or absent, strings
 * as they are, the rest as JSON; on one line, every control and bidi
 * character escaped (text from input or a server cannot fake a line, hide
 * text or recolour the terminal), so widths are measured on what is shown.
 */
export const cellText = (value: unknown): string =>
  value === undefined || value === null ? '' : untrusted(typeof value === 'string' ? value : JSON.stringify(value));
