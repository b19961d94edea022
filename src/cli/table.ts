/** Tables with cli-table3; plain borders when colour is off so output stays greppable. */
import { createRequire } from 'node:module';
import type { Output } from './output.js';

const require = createRequire(import.meta.url);

export function renderTable(output: Output, head: string[], rows: string[][]): string {
  // cli-table3 is CommonJS and only needed by commands that draw tables.
  const Table = require('cli-table3') as typeof import('cli-table3');
  const table = new Table({
    head: head.map((h) => output.out.bold(h)),
    style: { head: [], border: [] },
    // No rule between rows: easier to scan, and a row stays one line for grep.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  table.push(...rows);
  return table.toString();
}
