/** `sign-cli config unset <name>`: one setting back to its default. */
import { Argument, type Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes } from '../../completion/hints.js';
import { settingCandidates } from './setting-candidates.js';
import type { CommandContext } from '../../context.js';
import { settingSpec } from '../../config/settings.js';

export const doc: CommandDoc = {
  summary: 'remove one setting, back to its default',
  examples: ['sign-cli config set rate 300', 'sign-cli config unset rate'],
};

export function registerUnset(config: Command, action: Action): void {
  defineCommand(config, 'unset', doc)
    .addArgument(
      completes(new Argument('<name>', 'setting name'), { kind: 'values', values: settingCandidates() }),
    )
    .action(action(unsetCommand));
}

export async function unsetCommand(ctx: CommandContext, _flags: unknown, [name]: string[]): Promise<number> {
  await (await ctx.loadConfig()).delete(settingSpec(name!).path);
  ctx.output.success(`${name} unset`);
  return ExitCode.ok;
}
