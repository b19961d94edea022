/** `sign-cli keys use <name>`: makes a profile the active one. */
import { Argument, type Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { existingProfile } from '../../config/profiles.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes, PROFILES } from '../../completion/hints.js';

export const doc: CommandDoc = {
  summary: 'make a profile the active one (the default for every command)',
  details: [
    'Like gh, it warns when SIGN_API_KEY, --api-key-file or SIGN_PROFILE still wins over the profile it selects.',
  ],
  examples: ['printenv SIGN_API_KEY | sign-cli keys add sbx --stdin --force', 'sign-cli keys use sbx'],
};

export function registerUse(keys: Command, action: Action): void {
  defineCommand(keys, 'use', doc)
    .addArgument(completes(new Argument('<name>', 'profile name'), PROFILES))
    .action(action(useCommand));
}

export async function useCommand(ctx: CommandContext, _flags: unknown, [name]: string[]): Promise<number> {
  const config = await existingProfile(ctx, name!);
  await config.set('active_profile', name);
  ctx.output.success(`profile ${name} is now active`);
  // As gh does with GH_TOKEN: say when the environment still wins over what was just chosen.
  if (ctx.env.SIGN_API_KEY)
    ctx.output.warn(
      `SIGN_API_KEY is set in this environment and wins over profile ${name}'s key; unset it to use the profile`,
    );
  else if (ctx.globals.apiKeyFile)
    ctx.output.warn(`--api-key-file wins over profile ${name}'s key for this command`);
  if (ctx.env.SIGN_PROFILE && ctx.env.SIGN_PROFILE !== name)
    ctx.output.warn(
      `SIGN_PROFILE=${ctx.env.SIGN_PROFILE} is set and wins over the active profile; unset it to use ${name}`,
    );
  return ExitCode.ok;
}
