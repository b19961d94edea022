/** `sign-cli journal show <id>`: every input of one journal, its state, key and envelope. */
import { Argument, type Command } from 'commander';
import { findJournal } from '../../../core/journal/journal-admin.js';
import type { Action } from '../../action.js';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { cellText, type Column } from '../../render/cell.js';
import { formatTime } from '../../render/time.js';
import { journalSource, STORE_OPTION, type StoreFlags } from './journal-source.js';

export const doc: CommandDoc = {
  summary: "show one journal's inputs: state, Idempotency-Key, envelope id, when, and the error",
  details: [
    "The id is the one `journal list` prints (a unique prefix of 6 digits or more will do). One row per input and API key it was sent with: where it was last read from, its state (`created`, `sending`, `unknown`, `failed`), the envelope id, the Idempotency-Key, and the time or the error. `--json` prints an array of the entries as the journal holds them: `{id, ref, key, state, envelope_id, error, contract_id, at, fp}` (`fp` is a digest of the API key, never the key). An entry no run wrote (a hand edit, a value of the wrong type) is skipped with a warning naming where it is (`path:line`, or the store's key and field), and the rest is shown.",
  ],
  examples: [
    'journal=$(sign-cli journal list --query "[0].id")',
    'sign-cli journal show "$journal"',
    'sign-cli journal show "$journal" --json --query "[?state==\'unknown\'].ref"',
  ],
};

const COLUMNS: readonly Column[] = [
  { head: 'INPUT', cut: true, min: 12 },
  { head: 'STATE' },
  { head: 'ENVELOPE' },
  { head: 'IDEMPOTENCY KEY', cut: true, min: 12 },
  { head: 'AT / ERROR', cut: true, min: 12 },
];

export function registerShow(journal: Command, action: Action): void {
  defineCommand(journal, 'show', doc)
    .addArgument(new Argument('<id>', 'the journal, as `journal list` names it'))
    .option(...STORE_OPTION)
    .action(action(showCommand));
}

export async function showCommand(ctx: CommandContext, flags: StoreFlags, [id]: string[]): Promise<number> {
  const source = await journalSource(ctx, flags);
  const journal = findJournal(await source.list(), id!, source.where);
  const entries = await source.entries(journal);
  if (ctx.output.json) {
    ctx.output.jsonDocument(entries);
    return ExitCode.ok;
  }
  const { printTable } = await import('../../render/table.js');
  await printTable(
    ctx.output,
    COLUMNS,
    // Every value escaped to one line: a ref or an error with a line break cannot fake a row.
    entries.map((e) =>
      [e.ref, e.state, e.envelope_id, e.key, e.error !== undefined ? e.error : formatTime(e.at)].map(
        cellText,
      ),
    ),
  );
  return ExitCode.ok;
}
