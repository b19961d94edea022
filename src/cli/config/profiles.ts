/**
 * Profiles: a stored API key with its service and what is known of it. Here,
 * the rule for their names, shared by `keys add` and shell completion; the
 * profiles themselves live in the config file (config-file.ts).
 */
import { UsageError } from '../../core/errors.js';
import type { ConfigFile } from './config-file.js';

export const PROFILE_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME_RE.test(name)) {
    throw new UsageError(
      `profile name ${JSON.stringify(name)} is not valid: use letters, digits, - and _ (up to 64), starting with a letter or digit`,
    );
  }
  return name;
}

/** The config holding the profile `name`; a usage error naming the profiles there are when it has none. */
export async function existingProfile(ctx: { loadConfig(): Promise<ConfigFile> }, name: string) {
  const config = await ctx.loadConfig();
  if (!config.get('profiles')?.[name]) {
    const known = Object.keys(config.get('profiles') ?? {});
    throw new UsageError(`no profile named ${JSON.stringify(name)}`, {
      hint: known.length ? `profiles: ${known.join(', ')}` : 'add one with `sign-cli keys add <name>`',
    });
  }
  return config;
}
