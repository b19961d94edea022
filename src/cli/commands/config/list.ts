/** `sign-cli config list`: every setting as a run would use it now, and where it comes from. */
import type { Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import type { Column } from '../../render/cell.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import type { CommandContext } from '../../context.js';
import { masked, show } from './values.js';

export const doc: CommandDoc = {
  summary:
    'print every setting as a run would use it now, where each value comes from (flag, env, profile, config, default), and the profiles; keys masked',
  details: [
    'Sources read `flag --timeout`, `env SIGN_BASE_URL`, `profile prod`, `config` or `default`; the API key and the webhook secret are masked. `--json` prints the stored file (keys masked) plus `"effective": [{name, value, source}]`.',
    '  NAME       VALUE                  SOURCE\n  base_url   http://127.0.0.1:4010  env SIGN_BASE_URL\n  api_key    sk_test_****sTmO       env SIGN_API_KEY\n  timeout    30                     default',
  ],
  examples: ['sign-cli config list', 'SIGN_TIMEOUT=10 sign-cli config list --json'],
};

const SETTING_COLUMNS: readonly Column[] = [
  { head: 'NAME' },
  { head: 'VALUE', cut: true, min: 16 },
  { head: 'SOURCE' },
];
const PROFILE_COLUMNS: readonly Column[] = [
  { head: 'PROFILE' },
  { head: 'KEY' },
  { head: 'ENV' },
  { head: 'BASE URL', cut: true, min: 16 },
  { head: 'EXPIRES' },
];

export function registerList(config: Command, action: Action): void {
  defineCommand(config, 'list', doc).action(action(listCommand));
}

export async function listCommand(ctx: CommandContext): Promise<number> {
  const store = await ctx.loadConfig();
  const view = masked(store.store);
  const { effectiveSettings } = await import('./effective-settings.js');
  const effective = await effectiveSettings(ctx);
  if (ctx.output.json) {
    // The stored file as before (keys masked), plus what applies now and why.
    ctx.output.jsonDocument({ ...view, effective });
    return ExitCode.ok;
  }
  const { out } = ctx.output;
  // The table code (and its width measuring) loads only when a table is drawn.
  const { printTable } = await import('../../render/table.js');
  await printTable(
    ctx.output,
    SETTING_COLUMNS,
    effective.map((e) => [e.name, e.value ?? out.dim('(not set)'), e.source]),
  );
  const profiles = Object.entries(view.profiles as Record<string, Record<string, unknown>>);
  if (profiles.length > 0) {
    ctx.output.line();
    await printTable(
      ctx.output,
      PROFILE_COLUMNS,
      profiles.map(([name, p]) => [
        name === store.get('active_profile') ? `${name} *` : name,
        show(p.api_key ?? (p.key_masked === undefined ? undefined : `${show(p.key_masked)} (keychain)`)),
        show(p.environment),
        show(p.base_url),
        show(p.expires),
      ]),
    );
  }
  return ExitCode.ok;
}
