/**
 * Where a profile's key is kept, and getting it back: in the OS keychain
 * (keychain.ts) by default, in the 0600 config file when no keychain answers
 * or with `--insecure-storage`. Profiles written by earlier versions hold the
 * key in the file (`api_key`) and keep working; `keys add` again moves one
 * into the keychain. The config file of a keychain profile holds the
 * reference (`keychain`) and the key masked (`key_masked`), so that
 * listings show a key without opening the keychain.
 */
import { randomUUID } from 'node:crypto';
import { maskKey } from '../../core/keys.js';
import type { Profile } from './config-file.js';
import {
  KEYCHAIN_SERVICE,
  KeychainUnavailableError,
  openKeychain,
  type KeychainReference,
} from './keychain.js';

export type KeyStorage = 'keychain' | 'file';

/** Where the profile's key is: `keychain`, `file`, or null when it holds none. */
export function keyStorageOf(profile: Profile): KeyStorage | null {
  if (profile.keychain) return 'keychain';
  return profile.api_key ? 'file' : null;
}

/** The profile's key masked, from the file's key or the recorded mask; '' when it holds none. */
export function maskedProfileKey(profile: Profile): string {
  if (profile.api_key) return maskKey(profile.api_key);
  return profile.key_masked ?? '';
}

/** What a profile's entry in the config holds for its key, and where that is. */
export interface StoredKey {
  storage: KeyStorage;
  /** The fields that replace api_key / keychain / key_masked in the profile. */
  fields: Pick<Profile, 'api_key' | 'keychain' | 'key_masked' | 'insecure_storage'>;
  /** For `file` by default: why no keychain took it. */
  fallbackReason?: string;
  /** For `keychain`: which one ("the Secret Service"). */
  keychainLabel?: string;
}

/**
 * Stores a key for profile `name`: in the keychain unless `insecure`, falling
 * back to the file (with the reason) when none answers. Each keychain entry
 * has an account of its own (the profile's name and a random part): two config
 * directories on one machine with a profile of the same name do not share it.
 */
export async function storeProfileKey(
  env: NodeJS.ProcessEnv,
  name: string,
  key: string,
  insecure: boolean,
): Promise<StoredKey> {
  const inFile: StoredKey['fields'] = { api_key: key };
  if (insecure) return { storage: 'file', fields: { ...inFile, insecure_storage: true } };
  // Turned off for this machine on purpose: the file, without a warning at each add.
  if (env.SIGN_KEYCHAIN === 'off') return { storage: 'file', fields: inFile };
  try {
    const keychain = await openKeychain(env);
    const reference: KeychainReference = {
      service: KEYCHAIN_SERVICE,
      account: `${name}:${randomUUID().slice(0, 8)}`,
    };
    await keychain.set(reference.account, key);
    // Read back: a keychain that accepts a write but keeps nothing (a locked collection on some desktops) is not one.
    const kept = await keychain.get(reference.account).catch((error: unknown) => error);
    if (kept !== key) {
      // Not left behind where nothing points to it: the key goes to the file instead.
      await keychain.delete(reference.account).catch(() => false);
      throw kept instanceof KeychainUnavailableError
        ? kept
        : new KeychainUnavailableError(`${keychain.label} did not keep the key`);
    }
    return {
      storage: 'keychain',
      fields: { keychain: reference, key_masked: maskKey(key) },
      keychainLabel: keychain.label,
    };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return { storage: 'file', fields: inFile, fallbackReason: error.message };
  }
}

/** The key of a profile, or why it cannot be had (a keychain that does not answer, or lost the entry). */
export async function readProfileKey(
  env: NodeJS.ProcessEnv,
  name: string,
  profile: Profile,
): Promise<{ key: string } | { problem: string }> {
  if (profile.api_key) return { key: profile.api_key };
  if (!profile.keychain) return { problem: `profile ${name} holds no key` };
  const where = `${profile.keychain.service}/${profile.keychain.account}`;
  try {
    const keychain = await openKeychain(env);
    const key = await keychain.get(profile.keychain.account);
    if (key) return { key: key.trim() };
    return { problem: `the key of profile ${name} is not in ${keychain.label} any more (entry ${where})` };
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return {
      problem: `the key of profile ${name} is in the OS keychain (entry ${where}), and ${error.message}`,
    };
  }
}

/**
 * Deletes a profile's keychain entry (when it has one); the reason when that
 * could not be done, so the caller can say which entry is left behind.
 */
export async function deleteProfileKey(
  env: NodeJS.ProcessEnv,
  profile: Profile,
): Promise<string | undefined> {
  if (!profile.keychain) return undefined;
  try {
    await (await openKeychain(env)).delete(profile.keychain.account);
    return undefined;
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    return `${error.message}; the entry ${profile.keychain.service}/${profile.keychain.account} is left in it`;
  }
}
