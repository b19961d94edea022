/** `sign-cli journal list`: the create journals, with how many inputs are in each state. */
import type { Command } from 'commander';
import type { JournalInfo } from '../../../core/journal/journal-admin.js';
import type { Action } from '../../action.js';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { cellText, type Column } from '../../render/cell.js';
import { formatTime } from '../../render/time.js';
import { journalSource, STORE_OPTION, type StoreFlags } from './journal-source.js';

export const doc: CommandDoc = {
  summary: 'list the create journals: inputs created, in doubt and failed, last write and expiry',
  details: [
    'One row per journal, newest first: its id (for `show` and `forget`), the service and environment (a store records them; a file shows where its inputs were last read from), how many inputs it holds, how many were created, are in doubt (`sending` or `unknown`: a re-run sends them again with their keys) or failed, when it was last written and when it expires. `in use` marks a journal a running create holds. `--json` prints an array of `{id, location, service, environment, example, inputs, states: {created, sending, unknown, failed}, updated, expires, in_use}`. A key or entry no run wrote (a store key of another type, a line that is not an entry) is skipped with a warning naming it, and the rest is listed.',
  ],
  examples: [
    'sign-cli journal list',
    'sign-cli journal list --json --query "[].{id: id, created: states.created, in_doubt: states.unknown}"',
  ],
};

const COLUMNS: readonly Column[] = [
  { head: 'ID' },
  { head: 'FOR', cut: true, min: 12 },
  { head: 'INPUTS' },
  { head: 'CREATED' },
  { head: 'IN DOUBT' },
  { head: 'FAILED' },
  { head: 'UPDATED', whole: true },
  { head: 'EXPIRES', whole: true },
];

export function registerList(journal: Command, action: Action): void {
  defineCommand(journal, 'list', doc)
    .option(...STORE_OPTION)
    .action(action(listCommand));
}

/** A journal as `--json` prints it. */
export function journalJson(journal: JournalInfo) {
  return {
    id: journal.id,
    location: journal.location,
    service: journal.service ?? null,
    environment: journal.environment ?? null,
    example: journal.example ?? null,
    inputs: journal.inputs,
    states: journal.states,
    updated: journal.updated,
    expires: journal.expires,
    in_use: journal.inUse,
  };
}

export async function listCommand(ctx: CommandContext, flags: StoreFlags): Promise<number> {
  const source = await journalSource(ctx, flags);
  const journals = await source.list();
  if (ctx.output.json) {
    ctx.output.jsonDocument(journals.map(journalJson));
    return ExitCode.ok;
  }
  if (journals.length === 0) {
    ctx.output.info(`no journals in ${source.where}`);
    return ExitCode.ok;
  }
  const { printTable } = await import('../../render/table.js');
  await printTable(
    ctx.output,
    COLUMNS,
    // Every value escaped to one line: a service, environment or ref is text a store or a file held.
    journals.map((j) =>
      [
        j.id + (j.inUse ? ' (in use)' : ''),
        j.service !== undefined ? `${j.service} ${j.environment ?? ''}`.trim() : (j.example ?? ''),
        String(j.inputs),
        String(j.states.created),
        String(j.states.sending + j.states.unknown),
        String(j.states.failed),
        formatTime(j.updated),
        formatTime(j.expires),
      ].map(cellText),
    ),
  );
  return ExitCode.ok;
}
