/** `sign-cli config path`: where the config file is. */
import type { Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import type { CommandContext } from '../../context.js';

export const doc: CommandDoc = {
  summary: 'print where the config file is',
  details: [
    '`$SIGN_CONFIG_DIR/config.json`, else `~/.config/sign-cli/config.json`; mode 0600, and refused when another user owns or can write it.',
  ],
  examples: ['sign-cli config path', 'sign-cli config path --json'],
};

export function registerPath(config: Command, action: Action): void {
  defineCommand(config, 'path', doc).action(action(pathCommand));
}

export async function pathCommand(ctx: CommandContext): Promise<number> {
  const { path } = await ctx.loadConfig();
  if (ctx.output.json) ctx.output.jsonDocument({ path });
  else ctx.output.line(path);
  return ExitCode.ok;
}
