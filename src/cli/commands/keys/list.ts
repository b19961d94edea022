/** `sign-cli keys list`: every key, masked, with environment, scopes, last use and expiry. */
import type { Command } from 'commander';
import { ExitCode, exitCodeOf } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { loadKeyRows, type KeyRow } from './key-rows.js';
import type { Output } from '../../render/output.js';
import { cellText, type Column } from '../../render/cell.js';
import { formatTime } from '../../render/time.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

export const doc: CommandDoc = {
  summary: "list API keys: the service's listing merged with local profiles, keys masked",
  details: [
    'Name, environment, the key masked (`sk_live_****abcd`: the leading part and the last four characters), last used, expiry with days left (marked within 14 days, and once expired), scopes, where the row comes from: `local`, `service`, `local+service`, or `env` for a key from SIGN_API_KEY or --api-key-file that is in no profile, and where a local key is kept: `keychain` (the OS keychain) or `file` (the config file). `*` marks the key sign-cli would use now.',
  ],
  more: [
    'If the service cannot be reached the local rows are shown with a warning. When the service refuses the key in use (expired, revoked, unknown), the stored profiles are still shown, then the error says what is wrong, and the exit code is 3. sign-cli records when it last used each local key.',
    '`--json` prints an array of `{name, environment, key, last_used, expires, scopes, status, days_left, source, active, storage}`, `status` being `active`, `expiring`, `expired` or `unknown`, `storage` being `keychain`, `file` or null (not a local profile).',
    "Before a request, sign-cli warns on stderr when a key's stored metadata says it is expired or lacks the scope the operation needs (create `envelopes:write`, get `envelopes:read`, signed copy `contracts:read`, audit trail `audit:read`); a 401/403 exits 3 with a hint naming the key (masked) and its profile.",
  ],
  examples: ['sign-cli keys list', 'sign-cli keys list --local --json     # offline'],
};

export function registerList(keys: Command, action: Action): void {
  defineCommand(keys, 'list', doc)
    .option('--local', 'only local profiles; no network')
    .action(action(listCommand));
}

/** Every column is read by: too narrow a terminal shows each key stacked rather than a cut scope or date. */
export const KEY_COLUMNS: readonly Column[] = [
  { head: 'NAME' },
  { head: 'ENV' },
  { head: 'KEY', whole: true },
  { head: 'LAST USED', whole: true },
  { head: 'EXPIRES' },
  { head: 'SCOPES' },
  { head: 'SOURCE' },
  { head: 'STORED' },
];

/** "2027-06-30 (221 days)", yellow within 14 days, red once expired. */
export function expiresCell(output: Output, row: KeyRow): string {
  if (!row.expires) return output.out.dim('unknown');
  const days = row.days_left ?? 0;
  const expires = cellText(row.expires);
  if (row.status === 'expired')
    return output.out.red(`${expires} (expired ${-days} day${days === -1 ? '' : 's'} ago)`);
  const text = `${expires} (${days === 0 ? 'last day' : `${days} day${days === 1 ? '' : 's'} left`})`;
  return row.status === 'expiring' ? output.out.yellow(text) : text;
}

export async function listCommand(ctx: CommandContext, flags: { local?: boolean }): Promise<number> {
  const { output } = ctx;
  const now = new Date(ctx.io.clock.now());
  const { rows, remoteProblem, remoteError } = await loadKeyRows(ctx, { local: flags.local === true, now });
  if (remoteProblem)
    output.warn(`could not read the service's key listing (${remoteProblem}); showing local profiles only`);
  // A refused key still shows what is stored (the refused one among it), then says what is wrong.
  const done = (): number => {
    if (!remoteError) return ExitCode.ok;
    output.error(remoteError);
    output.info(
      `the service's listing is missing: ${rows.length === 0 ? 'no local profiles to show' : 'the keys above are the local profiles only'}`,
    );
    return exitCodeOf(remoteError);
  };
  if (output.json) {
    output.jsonDocument(
      rows.map((r) => ({
        name: r.name,
        environment: r.environment,
        key: r.key,
        last_used: r.last_used,
        expires: r.expires,
        scopes: r.scopes,
        status: r.status,
        days_left: r.days_left,
        source: r.source,
        active: r.active,
        storage: r.storage,
      })),
    );
    return done();
  }
  if (rows.length === 0) {
    if (!remoteError)
      output.info(
        "no keys: add one with `sign-cli keys add <name>`, or set SIGN_API_KEY to see the service's listing",
      );
    return done();
  }
  const { printTable } = await import('../../render/table.js');
  await printTable(
    output,
    KEY_COLUMNS,
    rows.map((r) => [
      // Names, environments and scopes come from the service: escaped like any of its text.
      r.active ? `${cellText(r.name)} *` : cellText(r.name),
      cellText(r.environment),
      cellText(r.key),
      r.last_used ? formatTime(r.last_used) : 'never',
      expiresCell(output, r),
      r.scopes ? cellText(r.scopes.join(' ')) : output.out.dim('unknown'),
      r.source,
      r.storage ?? output.out.dim('-'),
    ]),
  );
  if (rows.some((r) => r.active)) output.info('* the key sign-cli uses now');
  return done();
}
