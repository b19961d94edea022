/** `sign-cli keys add <name> [--stdin]`: store a key in a profile; never from a flag value. */
import { Command, Option } from 'commander';
import { ExitCode, UsageError } from '../../../core/errors.js';
import { parseBaseUrl } from '../../../core/endpoints.js';
import { maskKey } from '../../../core/keys.js';
import type { Profile } from '../../config.js';
import type { CommandContext } from '../../context.js';
import { checkProfileName } from '../../key-rows.js';
import { parseScopes } from '../../settings.js';
import type { Action } from '../../run.js';
import { readStdinLine } from '../../io.js';
import { promptExit } from '../../interactive/prompt-exit.js';

interface AddFlags {
  stdin?: boolean;
  environment?: string;
  expires?: string;
  scope?: string[];
  require?: string[];
  baseUrl?: string;
  force?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerAdd(keys: Command, action: Action): void {
  keys
    .command('add')
    .description('store an API key in a profile (read from stdin or a hidden prompt, never from a flag)')
    .argument('<name>', 'profile name')
    .option('--stdin', 'read the key from standard input')
    .option('--environment <env>', 'environment of the key, e.g. live or test (default: from an sk_<env>_ prefix)')
    .option('--expires <YYYY-MM-DD>', 'expiry date of the key')
    .addOption(new Option('--scope <scope>', 'a scope the key has (repeatable)').argParser(collect))
    .addOption(new Option('--require <scope>', 'a scope this key must keep; `keys check` fails without it (repeatable)').argParser(collect))
    .option('--force', 'replace an existing profile of that name')
    .addHelpText(
      'after',
      `
The key goes to the profile's base URL with --base-url (a global option).

Examples:
  $ sign-cli keys add prod                                   # hidden prompt
  $ printenv PROD_KEY | sign-cli keys add prod --stdin --environment live --expires 2027-06-30 \\
      --scope envelopes:write --scope envelopes:read --base-url https://esign.example.com`,
    )
    .action(action(addCommand));
}

async function readKey(ctx: CommandContext, flags: AddFlags, name: string): Promise<string> {
  if (flags.stdin) return readStdinLine({ signal: ctx.signal, hint: `reading the API key for profile ${name} from stdin (one line); Ctrl-C to cancel` });
  if (!ctx.canPrompt) {
    throw new UsageError('no key given: pipe it in with --stdin (a key is never accepted as a flag value)', {
      hint: `printenv MY_KEY | sign-cli keys add ${name} --stdin`,
    });
  }
  const { password } = await import('@inquirer/prompts');
  try {
    return await password({ message: `API key for profile ${name}:`, mask: '*' }, { signal: ctx.signal });
  } catch (error) {
    throw promptExit(error);
  }
}

async function addCommand(ctx: CommandContext, flags: AddFlags, [rawName]: string[]): Promise<number> {
  const name = checkProfileName(rawName ?? '');
  if (flags.expires !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(flags.expires) || Number.isNaN(Date.parse(flags.expires)))) {
    throw new UsageError(`--expires must be a date YYYY-MM-DD, got ${JSON.stringify(flags.expires)}`);
  }
  const scopes = flags.scope ? parseScopes(flags.scope, '--scope') : undefined;
  const requires = flags.require ? parseScopes(flags.require, '--require') : undefined;
  const baseUrl = ctx.globals.baseUrl === undefined ? undefined : parseBaseUrl(ctx.globals.baseUrl);
  const config = await ctx.loadConfig();
  if (config.get('profiles')?.[name] && !flags.force) {
    throw new UsageError(`profile ${name} already exists`, { hint: `pass --force to replace it, or \`sign-cli keys remove ${name}\`` });
  }
  const key = (await readKey(ctx, flags, name)).trim();
  ctx.output.protect(key);
  if (key === '' || /\s/.test(key)) {
    throw new UsageError('the key must be one word, with no spaces or line breaks inside', { hint: 'check what was pasted or piped in' });
  }
  // Short keys are stored (the service decides what a key is) but are unusual enough to mention.
  if (key.length < 12) ctx.output.warn(`that key is only ${key.length} characters long; it is stored, and shown fully masked`);
  const environment = flags.environment ?? /^sk_([a-z]+)_/.exec(key)?.[1];
  const profile: Profile = {
    api_key: key,
    ...(baseUrl ? { base_url: baseUrl } : {}),
    ...(environment ? { environment } : {}),
    ...(flags.expires ? { expires: flags.expires } : {}),
    ...(scopes ? { scopes } : {}),
    ...(requires ? { requires } : {}),
  };
  config.set(`profiles.${name}`, profile);
  const first = !config.get('active_profile') || !config.get('profiles')?.[config.get('active_profile')!];
  if (first) config.set('active_profile', name);
  ctx.output.success(`stored ${maskKey(key)} as profile ${name}${first ? ' (now active)' : `; \`sign-cli keys use ${name}\` makes it active`}`);
  return ExitCode.ok;
}
