/** `sign-cli config get <name>`: one setting, or the value that applies when it is not set. */
import { Argument, type Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes } from '../../completion/hints.js';
import { settingCandidates } from './setting-candidates.js';
import type { CommandContext } from '../../context.js';
import { SETTINGS, settingSpec } from '../../config/settings.js';
import { show, shown } from './values.js';

export const doc: CommandDoc = {
  summary: 'print one setting',
  details: [
    'An unset setting prints the value that applies (its default), like `gh config get`; a setting with no default and no value prints nothing and exits 1. `--json` gives `{name, value, source}`, `source` being `config`, `default` or null.',
  ],
  examples: ['sign-cli config get rate', 'sign-cli config get timeout --json'],
};

export function registerGet(config: Command, action: Action): void {
  defineCommand(config, 'get', doc)
    .addArgument(
      completes(
        new Argument(
          '<name>',
          `${Object.keys(SETTINGS).join(', ')}, paths.<operation>, sandbox.accept.<field>`,
        ),
        { kind: 'values', values: settingCandidates() },
      ),
    )
    .action(action(getCommand));
}

export async function getCommand(ctx: CommandContext, _flags: unknown, [name]: string[]): Promise<number> {
  const spec = settingSpec(name!);
  const stored = (await ctx.loadConfig()).get(spec.path);
  // Unset: the value that applies, like `git config --default` / `gh config get`.
  const value = stored ?? spec.default;
  if (ctx.output.json)
    ctx.output.jsonDocument({
      name,
      value: shown(value, spec) ?? null,
      source: stored !== undefined ? 'config' : value !== undefined ? 'default' : null,
    });
  else if (value !== undefined) ctx.output.verbatim(show(value, spec));
  return value === undefined ? ExitCode.failed : ExitCode.ok;
}
