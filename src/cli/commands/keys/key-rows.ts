/**
 * The merged view of API keys behind `keys list`, `keys check` and `doctor`:
 * local profiles and the service's listing (GET /api/v1/api-keys), matched by
 * masked key, each row marked with where it came from. Never holds a full key
 * beyond the local profile it was read from; rows carry masked keys only.
 */
import { AuthError, UnexpectedResponseError } from '../../../core/errors.js';
import {
  displayKey,
  expiryStatus,
  maskKey,
  maskedKeyMatches,
  type ExpiryStatus,
  type ListedKey,
} from '../../../core/keys.js';
import type { Profile } from '../../config/config-file.js';
import { keyStorageOf, maskedProfileKey, type KeyStorage } from '../../config/profile-key.js';
import type { CommandContext } from '../../context.js';
import { environmentOfKey } from '../../../core/service-identity.js';

/** `env`: the key in use came from SIGN_API_KEY or --api-key-file and matches no profile or listed key. */
export type KeySource = 'local' | 'service' | 'local+service' | 'env';

/**
 * A key as listed (docs/service.md, Authentication and keys: `key` masked), with where it stands and
 * where it comes from.
 */
export interface KeyRow extends ListedKey {
  status: ExpiryStatus;
  days_left: number | null;
  source: KeySource;
  active: boolean;
  /** Scopes this key is required to have (profile `requires`, else config required_scopes). */
  required_scopes: string[];
  /** Where a local profile keeps its key (`keychain`, `file`); null for a key that is not in a profile. */
  storage: KeyStorage | null;
}

/** Whether a listed key (masked) is the profile's: by the full key when it is in the file, else by the recorded mask. */
function listedIsProfiles(listed: string, profile: Profile): boolean {
  if (profile.api_key) return maskedKeyMatches(listed, profile.api_key);
  return profile.key_masked !== undefined && displayKey(listed) === displayKey(profile.key_masked);
}

function latest(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

export interface KeyRowsResult {
  rows: KeyRow[];
  /** Why the service's listing is missing, when it is (unreachable, no key): the local rows stand alone. */
  remoteProblem: string | undefined;
  /**
   * The service refused the key (exit 3) or answered something that is not a
   * key listing (exit 1): the rows are the local ones only, and the command fails
   * after showing them.
   */
  remoteError?: Error;
}

export async function loadKeyRows(
  ctx: CommandContext,
  options: { local: boolean; now: Date; soonDays?: number },
): Promise<KeyRowsResult> {
  const config = await ctx.loadConfig();
  const profiles = config.get('profiles') ?? {};
  // "Active" means the key sign-cli would use right now (an env key wins over the active profile).
  const connection = await ctx.resolveConnection();
  const inUse = connection.apiKey;
  const required = (await ctx.setting<string[]>('required_scopes')) ?? [];
  const status = (expires: string | null) => expiryStatus(expires, options.now, options.soonDays);

  const rows: KeyRow[] = Object.entries(profiles).map(([name, profile]) => {
    const expires = profile.expires ?? null;
    const { status: s, daysLeft } = status(expires);
    if (profile.api_key) ctx.output.protect(profile.api_key);
    return {
      name,
      environment: profile.environment ?? null,
      key: maskedProfileKey(profile),
      last_used: profile.last_used ?? null,
      expires,
      scopes: profile.scopes ?? null,
      status: s,
      days_left: daysLeft,
      source: 'local',
      // The profile the key came from, or one holding the same key (SIGN_API_KEY set to a stored key).
      active:
        inUse !== undefined &&
        (connection.profileName === name ||
          profile.api_key === inUse ||
          (profile.key_masked !== undefined && profile.key_masked === maskKey(inUse))),
      required_scopes: profile.requires ?? required,
      storage: keyStorageOf(profile),
    };
  });

  /** The key in use always shows, marked, even when it is in no profile (an env or file key). */
  const withKeyInUse = (result: KeyRowsResult): KeyRowsResult => {
    if (!inUse || result.rows.some((r) => r.active)) return result;
    result.rows.push({
      name: `(${connection.sources.apiKey})`,
      environment: environmentOfKey(inUse) ?? null,
      key: maskKey(inUse),
      last_used: null,
      expires: null,
      scopes: null,
      status: 'unknown',
      days_left: null,
      source: 'env',
      active: true,
      required_scopes: required,
      storage: null,
    });
    return result;
  };

  if (options.local) return withKeyInUse({ rows, remoteProblem: undefined });
  let listed: ListedKey[];
  try {
    const client = await ctx.client({}, ['listApiKeys']);
    try {
      listed = await client.listApiKeys(ctx.signal);
    } finally {
      await client.close();
    }
  } catch (error) {
    // A key the service refuses (exit 3) or an answer that is not a key listing (exit 1) fails the
    // command, after the local profiles are shown; an unreachable service or no key at all is a warning.
    if (
      (error instanceof AuthError && error.status !== undefined) ||
      error instanceof UnexpectedResponseError
    )
      return { ...withKeyInUse({ rows, remoteProblem: undefined }), remoteError: error };
    return withKeyInUse({ rows, remoteProblem: (error as Error).message });
  }
  for (const remote of listed) {
    // The profile in use is matched by its full key (in hand); the others by what the config holds.
    const match = Object.entries(profiles).find(
      ([name, p]) =>
        remote.key &&
        (name === connection.profileName && inUse !== undefined
          ? maskedKeyMatches(remote.key, inUse)
          : listedIsProfiles(remote.key, p)),
    );
    const row = match ? rows.find((r) => r.name === match[0]) : undefined;
    if (row) {
      // The service knows best about its own keys; local metadata fills the gaps.
      row.source = 'local+service';
      row.environment = remote.environment ?? row.environment;
      row.expires = remote.expires ?? row.expires;
      row.scopes = remote.scopes ?? row.scopes;
      row.last_used = latest(remote.last_used, row.last_used);
      Object.assign(
        row,
        (({ status: s, daysLeft }) => ({ status: s, days_left: daysLeft }))(status(row.expires)),
      );
      continue;
    }
    const { status: s, daysLeft } = status(remote.expires);
    rows.push({
      name: remote.name,
      environment: remote.environment,
      key: remote.key,
      last_used: remote.last_used,
      expires: remote.expires,
      scopes: remote.scopes,
      status: s,
      days_left: daysLeft,
      source: 'service',
      active: inUse !== undefined && maskedKeyMatches(remote.key, inUse),
      required_scopes: required,
      storage: null,
    });
  }
  return withKeyInUse({ rows, remoteProblem: undefined });
}
