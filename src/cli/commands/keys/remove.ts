/** `sign-cli keys remove <name>`: deletes a stored profile and its key. */
import { Argument, type Command } from 'commander';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { existingProfile } from '../../config/profiles.js';
import { deleteProfileKey } from '../../config/profile-key.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes, PROFILES } from '../../completion/hints.js';

export const doc: CommandDoc = {
  summary: 'delete a stored profile and its key',
  details: [
    'The key goes too: from the OS keychain, or with the profile from the config file. The active profile, removed, leaves none active.',
  ],
  examples: [
    'printenv SIGN_API_KEY | sign-cli keys add old-ci --stdin --offline',
    'sign-cli keys remove old-ci',
  ],
};

export function registerRemove(keys: Command, action: Action): void {
  defineCommand(keys, 'remove', doc)
    .addArgument(completes(new Argument('<name>', 'profile name'), PROFILES))
    .action(action(removeCommand));
}

export async function removeCommand(ctx: CommandContext, _flags: unknown, [name]: string[]): Promise<number> {
  const config = await existingProfile(ctx, name!);
  const profile = config.get('profiles')![name!]!;
  // The keychain entry first: a profile removed while its key stays in the keychain is said, with the entry's name.
  const left = await deleteProfileKey(ctx.env, profile);
  if (left) ctx.output.warn(`could not delete the key from the keychain: ${left}`);
  await config.delete(`profiles.${name}`);
  if (config.get('active_profile') === name) await config.delete('active_profile');
  ctx.output.success(`removed profile ${name}`);
  return ExitCode.ok;
}
