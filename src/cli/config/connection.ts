/**
 * Where a command's service and key come from, with the precedence of
 * docs/configuration.md: flag, then environment, then the profile, then the config
 * setting, then the local sandbox. Each value remembers its source, for
 * --verbose and doctor.
 */
import type { ConfigFile } from './config-file.js';
import { UsageError } from '../../core/errors.js';
import { parseBaseUrl, type PathOverrides } from '../../core/endpoints.js';
import type { Profile } from './config-file.js';
import type { Output } from '../render/output.js';
import { DEFAULT_BASE_URL, settingSpec } from './settings.js';
import { readFlagFile } from '../input/stdin.js';

export interface GlobalOptions {
  baseUrl?: string;
  apiKeyFile?: string;
  apiKey?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
  color: boolean;
  input: boolean;
  retries?: string;
  timeout?: string;
  query?: string;
  raw?: boolean;
  rateStore?: string;
}

export interface Connection {
  baseUrl: string;
  apiKey: string | undefined;
  /** The profile the key came from, with its stored metadata; undefined for env/file keys. */
  profileName: string | undefined;
  keyProfile: Profile | undefined;
  /** Why the chosen profile's key could not be had (its keychain did not answer): commands that need a key fail with it. */
  keyProblem?: string;
  /** Where each value came from, for --verbose and doctor. */
  sources: { baseUrl: string; apiKey: string };
}

/** What resolving needs: the flags, the environment, the config file (opened on demand) and where to warn. */
export interface ConnectionInputs {
  globals: GlobalOptions;
  env: NodeJS.ProcessEnv;
  loadConfig: () => Promise<ConfigFile>;
  output: Output;
}

/** The profile asked for (--profile, SIGN_PROFILE) or the active one; asking for a missing one is an error. */
async function chosenProfile({
  globals,
  env,
  loadConfig,
}: ConnectionInputs): Promise<{ name: string | undefined; profile: Profile | undefined }> {
  const requested = globals.profile ?? (env.SIGN_PROFILE || undefined);
  const config = await loadConfig();
  const name = requested ?? config.get('active_profile');
  const profile = name ? config.get('profiles')?.[name] : undefined;
  if (requested && !profile) {
    throw new UsageError(`profile ${JSON.stringify(requested)} does not exist`, {
      hint: `create it with \`sign-cli keys add ${requested}\`, or pick another with --profile`,
    });
  }
  return { name, profile };
}

export async function resolveConnection(inputs: ConnectionInputs): Promise<Connection> {
  const { globals, env, output } = inputs;
  let baseUrl = globals.baseUrl;
  let baseSource = '--base-url';
  if (!baseUrl && env.SIGN_BASE_URL) [baseUrl, baseSource] = [env.SIGN_BASE_URL, 'SIGN_BASE_URL'];
  let apiKey: string | undefined;
  let keySource = 'none';
  if (env.SIGN_API_KEY) [apiKey, keySource] = [env.SIGN_API_KEY.trim(), 'SIGN_API_KEY'];
  else if (globals.apiKeyFile)
    [apiKey, keySource] = [readKeyFile(globals.apiKeyFile), `--api-key-file ${globals.apiKeyFile}`];

  const { name: profileName, profile } = await chosenProfile(inputs);
  let keyProfile: Profile | undefined;
  if (!baseUrl && profile?.base_url) [baseUrl, baseSource] = [profile.base_url, `profile ${profileName}`];
  let keyProblem: string | undefined;
  if (!apiKey && profile?.api_key) {
    [apiKey, keySource] = [profile.api_key, `profile ${profileName}`];
    keyProfile = profile;
    // Said by every command that takes its key from the file, not only by doctor.
    const path = (await inputs.loadConfig()).path;
    const { readableByOthers } = await import('../../core/journal/ownership.js');
    const mode = readableByOthers(path);
    if (mode)
      output.warn(`${path} holds API keys and other users can read it (mode ${mode}): chmod 600 ${path}`);
  } else if (!apiKey && profile?.keychain) {
    // The keychain is opened only here, for the one profile in use; a failure is said when a key is needed.
    const { readProfileKey } = await import('./profile-key.js');
    const read = await readProfileKey(env, profileName!, profile);
    if ('key' in read) [apiKey, keySource] = [read.key, `profile ${profileName} (OS keychain)`];
    else keyProblem = read.problem;
    keyProfile = profile;
  }
  const configured = (await inputs.loadConfig()).get('settings')?.base_url as string | undefined;
  if (!baseUrl && configured) [baseUrl, baseSource] = [configured, 'config base_url'];
  if (!baseUrl) [baseUrl, baseSource] = [DEFAULT_BASE_URL, 'default (local sandbox)'];
  try {
    baseUrl = parseBaseUrl(baseUrl);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (from ${baseSource})`);
  }
  output.protect(apiKey);
  output.trace(`base URL ${baseUrl} (from ${baseSource}); API key from ${keySource}`);
  return {
    baseUrl,
    apiKey,
    profileName: keyProfile ? profileName : undefined,
    keyProfile,
    ...(keyProblem ? { keyProblem } : {}),
    sources: { baseUrl: baseSource, apiKey: keySource },
  };
}

/** Endpoint paths from config (`paths.<operation>`), checked as `config set` checks them, so a typo is not silently ignored. */
export function checkPathOverrides(paths: Record<string, unknown> | undefined): PathOverrides {
  const out: PathOverrides = {};
  for (const [name, path] of Object.entries(paths ?? {})) {
    try {
      out[name as keyof PathOverrides] = settingSpec(`paths.${name}`).parse(String(path)) as string;
    } catch (error) {
      throw error instanceof UsageError
        ? new UsageError(`config ${error.message}`, error.hint === undefined ? {} : { hint: error.hint })
        : error;
    }
  }
  return out;
}

function readKeyFile(path: string): string {
  const key = readFlagFile('--api-key-file', path).toString('utf8').trim();
  if (key === '' || /\s/.test(key)) {
    throw new UsageError(`--api-key-file ${path}: the file must hold the key alone on one line`);
  }
  return key;
}
