/** `sign-cli keys check`: exit 1 when a key is expired, expiring, or lacks a required scope. Made for CI. */
import type { Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { parseIntegerOption } from '../../flags/values.js';
import { loadKeyRows, type KeyRow } from './key-rows.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface CheckFlags {
  expiringWithin: string;
  local?: boolean;
}

export interface KeyProblem {
  name: string;
  key: string;
  problem: 'expired' | 'expiring' | 'missing_scope';
  detail: string;
}

export const doc: CommandDoc = {
  summary: 'exit 1 when any key is expired, expires soon, or lacks a scope it must have (for scheduled CI)',
  details: [
    "One line per problem: expired, expiring within `--expiring-within` days, or missing a required scope (the profile's `--require`, else the `required_scopes` setting). `--json` gives `{checked, expiring_within_days, problems: [{name, key, problem, detail}]}`.",
  ],
  examples: ['sign-cli keys check', 'sign-cli keys check --expiring-within 30 --json'],
};

export function registerCheck(keys: Command, action: Action): void {
  defineCommand(keys, 'check', doc)
    .option('--expiring-within <days>', 'how soon counts as expiring', '14')
    .option('--local', 'only local profiles; no network')
    .action(action(checkCommand));
}

export function keyProblems(rows: KeyRow[]): KeyProblem[] {
  const problems: KeyProblem[] = [];
  for (const row of rows) {
    const who = { name: row.name, key: row.key };
    if (row.status === 'expired') {
      problems.push({
        ...who,
        problem: 'expired',
        detail: `${row.name} (${row.key}) expired on ${row.expires}, ${-(row.days_left ?? 0)} day(s) ago`,
      });
    } else if (row.status === 'expiring') {
      problems.push({
        ...who,
        problem: 'expiring',
        detail: `${row.name} (${row.key}) expires on ${row.expires}, in ${row.days_left} day(s)`,
      });
    }
    if (row.scopes) {
      for (const scope of row.required_scopes.filter((s) => !row.scopes!.includes(s))) {
        problems.push({
          ...who,
          problem: 'missing_scope',
          detail: `${row.name} (${row.key}) lacks the required scope ${scope}`,
        });
      }
    }
  }
  return problems;
}

export async function checkCommand(ctx: CommandContext, flags: CheckFlags): Promise<number> {
  const { output } = ctx;
  const soonDays = parseIntegerOption('--expiring-within', flags.expiringWithin, 0, 3650);
  const { rows, remoteProblem, remoteError } = await loadKeyRows(ctx, {
    local: flags.local === true,
    now: new Date(ctx.io.clock.now()),
    soonDays,
  });
  // A key the service refuses is the problem a scheduled check is for: exit 3, not a verdict on dates.
  if (remoteError) throw remoteError;
  if (remoteProblem)
    output.warn(`could not read the service's key listing (${remoteProblem}); checking local profiles only`);
  const problems = keyProblems(rows);
  if (output.json) output.jsonDocument({ checked: rows.length, expiring_within_days: soonDays, problems });
  else
    for (const problem of problems)
      output.line(`${output.out.red('✗')} ${problem.problem}: ${problem.detail}`);
  const unknown = rows.filter((r) => r.status === 'unknown').length;
  if (problems.length > 0) {
    output.info(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${rows.length} key${rows.length === 1 ? '' : 's'}`,
    );
    return ExitCode.failed;
  }
  output.info(
    `${output.err.green('✓')} ${rows.length} key${rows.length === 1 ? '' : 's'} checked: none expired, none expiring within ${soonDays} days, no required scope missing` +
      (unknown ? ` (${unknown} with no known expiry)` : ''),
  );
  return ExitCode.ok;
}
