/** `sign-cli keys use <name>`: makes a profile the active one. */
import type { Command } from 'commander';
import { ExitCode } from '../../../core/errors.js';
import { existingProfile } from '../../profiles.js';
import type { Action } from '../../action.js';

export function registerUse(keys: Command, action: Action): void {
  keys
    .command('use')
    .description('make a profile the active one (the default for every command)')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExample:\n  $ sign-cli keys use prod')
    .action(
      action(async (ctx, _flags, [name]) => {
        const config = await existingProfile(ctx, name!);
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
