/** `sign-cli keys remove <name>`: deletes a stored profile and its key. */
import type { Command } from 'commander';
import { ExitCode } from '../../../core/errors.js';
import { existingProfile } from '../../profiles.js';
import type { Action } from '../../action.js';

export function registerRemove(keys: Command, action: Action): void {
  keys
    .command('remove')
    .description('delete a stored profile and its key')
    .argument('<name>', 'profile name')
    .addHelpText('after', '\nExample:\n  $ sign-cli keys remove old-ci')
    .action(
      action(async (ctx, _flags, [name]) => {
        const config = await existingProfile(ctx, name!);
        config.delete(`profiles.${name}`);
        if (config.get('active_profile') === name) config.delete('active_profile');
        ctx.output.success(`removed profile ${name}`);
        return ExitCode.ok;
      }),
    );
}
