/**
 * The sandbox's own key and webhook secret (and Ed25519 signing key). The
 * state log holds only their hashes, so they come from credentials.env (or,
 * once, from an older log that held them in clear).
 */
import { join } from 'node:path';
import { SCOPES } from '../../core/endpoints.js';
import { ed25519PublicKeyOf, newEd25519KeyPair, newStandardSecret } from '../../core/webhooks/webhooks.js';
import { CREDENTIALS_FILE, readCredentialsFile, type Credentials } from './credentials-file.js';
import { DAY_MS, isoDate } from './days.js';
import { newId, randomBase62 } from '../ids.js';
import { SandboxStore } from './store.js';
import { hashSecret, keyFields, type StoredKey } from './records.js';

/**
 * A new data dir gets fresh credentials; if credentials.env was lost, new ones
 * are issued (the old ones cannot be recovered from hashes) and a notice says so.
 */
export function sandboxCredentials(
  store: SandboxStore,
  dataDir: string,
  now: number,
  notices: string[],
): Credentials {
  if (store.isNew) {
    const apiKey = `sk_test_${randomBase62(32)}`;
    const key: StoredKey = {
      id: newId('key'),
      name: 'sandbox',
      ...keyFields(apiKey),
      environment: 'test',
      scopes: [...SCOPES],
      expires: isoDate(now + 365 * DAY_MS),
      created_at: new Date(now).toISOString(),
      last_used: null,
    };
    const webhookSecret = newStandardSecret();
    store.saveKey(key);
    store.saveSettings(hashSecret(webhookSecret), key.id);
    return { apiKey, webhookSecret };
  }
  const admin = store.keys.get(store.adminKeyId);
  if (!admin)
    throw new Error(
      `${join(dataDir, 'state.jsonl')} names no usable sandbox key; move the data dir away to start afresh`,
    );
  const saved = readCredentialsFile(dataDir);
  const candidates = [saved.apiKey, store.clearSecrets.keys.get(admin.id)];
  let apiKey = candidates.find((k) => k !== undefined && hashSecret(k) === admin.key_hash);
  if (apiKey === undefined) {
    apiKey = `sk_test_${randomBase62(32)}`;
    store.saveKey({ ...admin, ...keyFields(apiKey) });
    notices.push(
      `${CREDENTIALS_FILE} did not hold the sandbox key, and the state keeps only its hash: a new key was issued`,
    );
  }
  let webhookSecret = [saved.webhookSecret, store.clearSecrets.webhookSecret].find(
    (s) => s !== undefined && hashSecret(s) === store.webhookSecretHash,
  );
  if (webhookSecret === undefined) {
    webhookSecret = newStandardSecret();
    store.saveSettings(hashSecret(webhookSecret), admin.id);
    notices.push(
      `${CREDENTIALS_FILE} did not hold the webhook secret, and the state keeps only its hash: a new secret was issued (update your listener)`,
    );
  }
  return { apiKey, webhookSecret };
}

/**
 * The Ed25519 signing key (`--signing ed25519`): the one in credentials.env,
 * else a new one (with a notice when the data dir is not new: receivers need
 * the new public key).
 */
export function ed25519SigningKey(dataDir: string, isNew: boolean, notices: string[]): string {
  const saved = readCredentialsFile(dataDir).signingKey;
  if (saved) {
    try {
      ed25519PublicKeyOf(saved);
      return saved;
    } catch {
      // unusable: a new one below
    }
  }
  if (!isNew)
    notices.push(
      `${CREDENTIALS_FILE} held no Ed25519 signing key: a new key pair was made (give receivers the new webhook_public_key)`,
    );
  return newEd25519KeyPair().secretKey;
}
