/** `sign-cli keys remove <name>` and `sign-cli keys use <name>`. */
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../run.js';

async function existing(ctx: CommandContext, name: string) {
  const config = await ctx.loadConfig();
  if (!config.get('profiles')?.[name]) {
    const known = Object.keys(config.get('profiles') ?? {});
    throw new UsageError(`no profile named ${JSON.stringify(name)}`, { hint: known.length ? `profiles: ${known.join(', ')}` : 'add one with `sign-cli keys add <name>`' });
  }
  return config;
}

export function registerRemove(keys: Command, action: Action): void {
  keys
    .command('remove')
    .description('delete a stored profile and its key')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExample:\n  $ sign-cli keys remove old-ci')
    .action(
      action(async (ctx, _flags, [name]) => {
        const config = await existing(ctx, name!);
        config.delete(`profiles.${name}`);
        if (config.get('active_profile') === name) config.delete('active_profile');
        ctx.output.success(`removed profile ${name}`);
        return ExitCode.ok;
      }),
    );
}

export function registerUse(keys: Command, action: Action): void {
  keys
    .command('use')
    .description('make a profile the active one (the default for every command)')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExample:\n  $ sign-cli keys use prod')
    .action(
      action(async (ctx, _flags, [name]) => {
        const config = await existing(ctx, name!);
        config.set('active_profile', name);
        ctx.output.success(`profile ${name} is now active`);
        // As gh does with GH_TOKEN: say when the environment still wins over what was just chosen.
        if (ctx.env.SIGN_API_KEY) ctx.output.warn(`SIGN_API_KEY is set in this environment and wins over profile ${name}'s key; unset it to use the profile`);
        else if (ctx.globals.apiKeyFile) ctx.output.warn(`--api-key-file wins over profile ${name}'s key for this command`);
        if (ctx.env.SIGN_PROFILE && ctx.env.SIGN_PROFILE !== name) ctx.output.warn(`SIGN_PROFILE=${ctx.env.SIGN_PROFILE} is set and wins over the active profile; unset it to use ${name}`);
        return ExitCode.ok;
      }),
    );
}
