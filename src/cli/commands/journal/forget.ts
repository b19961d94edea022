/** `sign-cli journal forget`: deletes journals, by id or by age. */
import { Argument, type Command } from 'commander';
import { UsageError } from '../../../core/errors.js';
import { findJournal, type JournalInfo } from '../../../core/journal/journal-admin.js';
import type { Action } from '../../action.js';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { parseRetention } from '../../flags/since.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { journalSource, STORE_OPTION, type StoreFlags } from './journal-source.js';

export const doc: CommandDoc = {
  summary: 'delete journals by id, or those not written for a while (--older-than)',
  details: [
    'A forgotten journal no longer stops a re-run from sending: its inputs go out again with their derived Idempotency-Keys, which the service replays only while it remembers them (24 hours on the sandbox). So it asks first on a terminal; elsewhere (CI, a pipe, `--no-input`) it needs `--yes`. A journal a running create holds is refused.',
  ],
  examples: ['sign-cli journal forget --older-than 30d --yes'],
};

interface ForgetFlags extends StoreFlags {
  olderThan?: string;
  yes?: boolean;
}

export function registerForget(journal: Command, action: Action): void {
  defineCommand(journal, 'forget', doc)
    .addArgument(new Argument('[id...]', 'journals, as `journal list` names them'))
    .option('--older-than <duration>', 'every journal not written for this long (90m, 12h, 7d, 2w)')
    .option('-y, --yes', 'do not ask first')
    .option(...STORE_OPTION)
    .action(action(forgetCommand));
}

export async function forgetCommand(ctx: CommandContext, flags: ForgetFlags, ids: string[]): Promise<number> {
  const olderThanMs =
    flags.olderThan !== undefined ? parseRetention(flags.olderThan, '--older-than') : undefined;
  if (ids.length === 0 && olderThanMs === undefined)
    throw new UsageError('name the journals to forget, or --older-than <duration>', {
      hint: 'see them with `sign-cli journal list`',
    });
  const source = await journalSource(ctx, flags);
  const all = await source.list();
  const chosen = new Map<string, JournalInfo>();
  for (const id of ids) {
    const journal = findJournal(all, id, source.where);
    chosen.set(journal.id, journal);
  }
  if (olderThanMs !== undefined) {
    const before = ctx.io.clock.now() - olderThanMs;
    for (const journal of all) if (Date.parse(journal.updated) < before) chosen.set(journal.id, journal);
  }
  const targets = [...chosen.values()];
  if (targets.length === 0) {
    ctx.output.info(`nothing to forget in ${source.where}`);
    return ExitCode.ok;
  }
  const busy = targets.filter((j) => j.inUse);
  if (busy.length > 0)
    throw new UsageError(`journal ${busy[0]!.id} is in use by a running create`, {
      hint: 'wait for it to finish, then forget it',
    });
  const inputs = targets.reduce((n, j) => n + j.inputs, 0);
  const { confirmFirst } = await import('../../interactive/ask.js');
  const go = await confirmFirst(ctx, {
    message: `Forget ${targets.length} journal${targets.length === 1 ? '' : 's'} (${inputs} input${inputs === 1 ? '' : 's'})? A re-run would send them again.`,
    yes: flags.yes,
    unattended: new UsageError('forgetting a journal needs --yes where nobody can be asked', {
      hint: 'add --yes',
    }),
  });
  if (!go) {
    ctx.output.info('nothing was forgotten');
    return ExitCode.ok;
  }
  for (const journal of targets) await source.forget(journal);
  ctx.output.success(
    `forgot ${targets.length} journal${targets.length === 1 ? '' : 's'} (${inputs} input${inputs === 1 ? '' : 's'}) in ${source.where}`,
  );
  return ExitCode.ok;
}
