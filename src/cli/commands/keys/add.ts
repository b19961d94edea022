/** `sign-cli keys add <name> [--stdin]`: store a key in a profile; never from a flag value. */
import { Command, Option } from 'commander';
import { AuthError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import { parseBaseUrl } from '../../../core/endpoints.js';
import { maskKey, maskedKeyMatches, type ListedKey } from '../../../core/keys.js';
import type { Profile } from '../../config/config-file.js';
import type { CommandContext } from '../../context.js';
import { collect } from '../../flags/values.js';
import { checkProfileName } from '../../config/profiles.js';
import { parseScopes } from '../../config/settings.js';
import type { Action } from '../../action.js';
import { readStdinLine } from '../../input/stdin.js';
import { deleteProfileKey, storeProfileKey } from '../../config/profile-key.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface AddFlags {
  stdin?: boolean;
  environment?: string;
  expires?: string;
  scope?: string[];
  require?: string[];
  baseUrl?: string;
  force?: boolean;
  offline?: boolean;
  insecureStorage?: boolean;
}

export const doc: CommandDoc = {
  summary: 'store an API key in a profile (read from stdin or a hidden prompt, never from a flag)',
  details: [
    "The key is read from stdin (`--stdin`, exactly one line) or a hidden prompt, and kept in the OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows); the config file keeps the profile's metadata, the key masked and where it is in the keychain. Where no keychain answers (a server, a container, CI) the key is kept in the config file (mode 0600) with one warning line; `--insecure-storage` chooses the file on purpose. It is first checked with the service (as `gh auth login` does): its environment, scopes and expiry come from the service's key listing; a key the service refuses is not stored (exit 3); one that cannot be checked is stored with a warning. `--offline` skips the check. The key goes to the profile's base URL with `--base-url` (a global option). The first profile becomes active.",
  ],
  more: [
    "Metadata for keys the service does not list, or offline: `--environment` (default: from an `sk_<env>_` prefix), `--expires YYYY-MM-DD`, `--scope` (repeatable). The service's listing wins over them, with a warning when they disagree. `--require <scope>` is a scope `keys check` insists on; `--force` replaces an existing profile.",
    'A key kept in the config file (by an earlier version, or for want of a keychain) moves into the keychain when the same key is added again to the same profile; no `--force` is needed for that. `keys list` and `doctor` say where each key is kept.',
    'For a real service (the host and PROD_KEY are yours to fill in):',
    '  printenv PROD_KEY | sign-cli keys add prod --stdin --base-url https://esign.example.com --require envelopes:write',
  ],
  examples: [
    'printenv SIGN_API_KEY | sign-cli keys add sbx --stdin --base-url "$SIGN_BASE_URL"   # checked with the sandbox',
    'printenv SIGN_API_KEY | sign-cli keys add laptop --stdin --offline --expires 2027-06-30   # stored unchecked',
  ],
};

export function registerAdd(keys: Command, action: Action): void {
  defineCommand(keys, 'add', doc)
    .argument('<name>', 'profile name')
    .option('--stdin', 'read the key from standard input')
    .option(
      '--environment <env>',
      'environment of the key, e.g. live or test (default: from an sk_<env>_ prefix)',
    )
    .option('--expires <YYYY-MM-DD>', 'expiry date of the key')
    .addOption(new Option('--scope <scope>', 'a scope the key has (repeatable)').argParser(collect))
    .addOption(
      new Option(
        '--require <scope>',
        'a scope this key must keep; `keys check` fails without it (repeatable)',
      ).argParser(collect),
    )
    .option('--force', 'replace an existing profile of that name')
    .option('--offline', 'store the key without checking it with the service')
    .option('--insecure-storage', 'keep the key in the config file (mode 0600) instead of the OS keychain')
    .action(action(addCommand));
}

async function readKey(ctx: CommandContext, flags: AddFlags, name: string): Promise<string> {
  if (flags.stdin)
    return readStdinLine({
      signal: ctx.signal,
      hint: `reading the API key for profile ${name} from stdin (one line); Ctrl-C to cancel`,
      stdin: ctx.io.stdin,
      stderr: ctx.io.stderr,
    });
  if (!ctx.canPrompt) {
    throw new UsageError('no key given: pipe it in with --stdin (a key is never accepted as a flag value)', {
      hint: `printenv MY_KEY | sign-cli keys add ${name} --stdin`,
    });
  }
  const { ask } = await import('../../interactive/ask.js');
  return ask(ctx, (prompter, context) =>
    prompter.password({ message: `API key for profile ${name}:`, mask: '*' }, context),
  );
}

export async function addCommand(ctx: CommandContext, flags: AddFlags, [rawName]: string[]): Promise<number> {
  const name = checkProfileName(rawName ?? '');
  if (
    flags.expires !== undefined &&
    (!/^\d{4}-\d{2}-\d{2}$/.test(flags.expires) || Number.isNaN(Date.parse(flags.expires)))
  ) {
    throw new UsageError(`--expires must be a date YYYY-MM-DD, got ${JSON.stringify(flags.expires)}`);
  }
  const scopes = flags.scope ? parseScopes(flags.scope, '--scope') : undefined;
  const requires = flags.require ? parseScopes(flags.require, '--require') : undefined;
  const baseUrl = ctx.globals.baseUrl === undefined ? undefined : parseBaseUrl(ctx.globals.baseUrl);
  const config = await ctx.loadConfig();
  const existing = config.get('profiles')?.[name];
  const alreadyExists = () =>
    new UsageError(`profile ${name} already exists`, {
      hint: `pass --force to replace it, or \`sign-cli keys remove ${name}\``,
    });
  // A profile whose key is in the file may be added again with the same key (to move it into the keychain).
  if (existing && !flags.force && !existing.api_key) throw alreadyExists();
  const key = (await readKey(ctx, flags, name)).trim();
  ctx.output.protect(key);
  if (key === '') {
    throw new UsageError(flags.stdin ? 'no key was given: stdin was empty' : 'no key was given', {
      hint: `pipe the key in, e.g. printenv MY_KEY | sign-cli keys add ${name} --stdin`,
    });
  }
  if (/\s/.test(key)) {
    throw new UsageError('the key must be one word, with no spaces or line breaks inside', {
      hint: 'check what was pasted or piped in',
    });
  }
  // Short keys are stored (the service decides what a key is) but are unusual enough to mention.
  if (existing && !flags.force && existing.api_key !== key) throw alreadyExists();
  if (key.length < 12)
    ctx.output.warn(`that key is only ${key.length} characters long; it is stored, and shown fully masked`);
  const listed = flags.offline ? undefined : await askService(ctx, key, baseUrl);
  const stated = {
    environment: flags.environment ?? /^sk_([a-z]+)_/.exec(key)?.[1],
    expires: flags.expires,
    scopes,
  };
  // The service knows best about its own keys; what the flags said fills the gaps, and a disagreement is shown.
  if (listed) {
    for (const [field, mine, theirs] of [
      ['--environment', flags.environment, listed.environment],
      ['--expires', flags.expires, listed.expires],
      ['--scope', scopes?.join(' '), listed.scopes?.join(' ')],
    ] as const) {
      if (mine !== undefined && theirs !== undefined && theirs !== null && mine !== theirs)
        ctx.output.warn(
          `${field} says ${mine}, but the service lists ${theirs} for this key; storing the service's`,
        );
    }
  }
  const environment = listed?.environment ?? stated.environment;
  const expires = listed?.expires ?? stated.expires;
  const keyScopes = listed?.scopes ?? stated.scopes;
  const stored = await storeProfileKey(ctx.env, name, key, flags.insecureStorage === true);
  if (stored.fallbackReason) {
    ctx.output.warn(
      `no OS keychain answered (${stored.fallbackReason}); the key is kept in ${config.path} (mode 0600) instead: --insecure-storage chooses that without this warning`,
    );
  }
  // Moving a key (added again, same key, no --force) keeps what the profile knew; what this run learnt wins.
  const {
    api_key: _key,
    keychain: _entry,
    key_masked: _masked,
    insecure_storage: _insecure,
    ...known
  } = existing && !flags.force ? existing : ({} as Profile);
  const profile: Profile = {
    ...known,
    ...stored.fields,
    ...(baseUrl ? { base_url: baseUrl } : {}),
    ...(environment ? { environment } : {}),
    ...(expires ? { expires } : {}),
    ...(keyScopes ? { scopes: keyScopes } : {}),
    ...(requires ? { requires } : {}),
    ...(listed?.last_used ? { last_used: listed.last_used } : {}),
  };
  try {
    await config.set(`profiles.${name}`, profile);
  } catch (error) {
    // The config could not be written: the new keychain entry would point nowhere.
    await deleteProfileKey(ctx.env, profile);
    throw error;
  }
  // The replaced key's keychain entry goes once the new key is safely stored.
  const left =
    existing?.keychain && existing.keychain.account !== stored.fields.keychain?.account
      ? await deleteProfileKey(ctx.env, existing)
      : undefined;
  if (left) ctx.output.warn(`could not delete the replaced key from the keychain: ${left}`);
  const first = !config.get('active_profile') || !config.get('profiles')?.[config.get('active_profile')!];
  if (first) await config.set('active_profile', name);
  const checked = listed
    ? `; checked with the service: ${[environment, expires && `expires ${expires}`, keyScopes?.join(' ')].filter(Boolean).join(', ')}`
    : '';
  const where = stored.storage === 'keychain' ? `in ${stored.keychainLabel}` : `in ${config.path}`;
  const moved =
    existing && !flags.force && stored.storage === 'keychain'
      ? `moved ${maskKey(key)} of profile ${name} from the config file ${where}`
      : undefined;
  ctx.output.success(
    `${moved ?? `stored ${maskKey(key)} as profile ${name} ${where}`}${checked}${first ? ' (now active)' : config.get('active_profile') === name ? '' : `; \`sign-cli keys use ${name}\` makes it active`}`,
  );
  return ExitCode.ok;
}

/**
 * The key as the service lists it (environment, scopes, expiry), checked
 * before it is stored, as `gh auth login` checks a token. A key the service
 * refuses is not stored (exit 3); a service that cannot be reached leaves a
 * warning, and the key is stored with what the flags say.
 */
async function askService(
  ctx: CommandContext,
  key: string,
  baseUrl: string | undefined,
): Promise<ListedKey | undefined> {
  const url = baseUrl ?? (await ctx.resolveConnection()).baseUrl;
  const { SignClient } = await import('../../../core/client/client.js');
  const client = new SignClient({
    baseUrl: url,
    apiKey: key,
    retry: { maxRetries: 0 },
    timeoutMs: 5_000,
    paths: await ctx.pathOverrides(),
  });
  try {
    const keys = await client.listApiKeys(ctx.signal);
    const mine = keys.find((k) => maskedKeyMatches(k.key, key));
    if (!mine)
      ctx.output.warn(
        `the service at ${url} accepted the key but does not list it; stored with what the flags say`,
      );
    return mine;
  } catch (error) {
    if (error instanceof AuthError && error.status !== undefined) {
      // What the service said (its code and message) is the reason a newcomer needs: an expired key above all.
      const said = /HTTP \d{3} ([^;]+);/.exec(error.message)?.[1];
      const expired = /expired/i.test(said ?? '');
      throw new AuthError(
        `the service at ${url} refused this key${expired ? ': it has expired' : ''} (HTTP ${error.status}${said ? ` ${said}` : ''}); it was not stored`,
        error.status,
        {
          hint: expired
            ? "add a key that has not expired (a new one from where the account's keys are made)"
            : 'check the key and the base URL; --offline stores it without asking',
        },
      );
    }
    ctx.output.warn(
      `could not check the key with the service at ${url} (${(error as Error).message}); stored with what the flags say (--offline skips this check)`,
    );
    return undefined;
  } finally {
    await client.close();
  }
}
