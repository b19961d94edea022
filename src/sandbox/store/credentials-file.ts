/**
 * `credentials.env` in the sandbox's data dir: shell exports of its key and
 * webhook secret, the one file that holds them in clear (0600). The sandbox
 * writes it at every start and reads its secrets back from it; `sandbox
 * --detach` reads it to describe a sandbox already running. Apart from
 * server.ts so that the CLI can read it without loading the server.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519PublicKeyOf } from '../../core/webhooks/webhooks.js';

export const CREDENTIALS_FILE = 'credentials.env';

export interface Credentials {
  apiKey: string;
  webhookSecret: string;
  /** With `--signing ed25519`: the sandbox's `whsk_` signing key, kept in credentials.env only. */
  signingKey?: string | undefined;
}

/** What a credentials.env this sandbox wrote holds, with its base URL; empty when there is none. */
export function readCredentialsFile(dataDir: string): Partial<Credentials> & { baseUrl?: string } {
  let text: string;
  try {
    text = readFileSync(join(dataDir, CREDENTIALS_FILE), 'utf8');
  } catch {
    return {};
  }
  const value = (name: string) => new RegExp(`^export ${name}='([^']*)'$`, 'm').exec(text)?.[1];
  // With --signing ed25519, SIGN_WEBHOOK_SECRET also lists the public key (for `webhooks listen`).
  const webhookSecret = value('SIGN_WEBHOOK_SECRET')
    ?.split(',')
    .find((s) => s.startsWith('whsec_'));
  return {
    baseUrl: value('SIGN_BASE_URL'),
    apiKey: value('SIGN_API_KEY'),
    webhookSecret,
    signingKey: value('SIGN_SANDBOX_SIGNING_KEY'),
  };
}

/** Writes shell exports for the sandbox's credentials, readable by the owner only, on every start. */
export function writeCredentialsFile(
  dataDir: string,
  baseUrl: string,
  { apiKey, webhookSecret, signingKey }: Credentials,
): void {
  const path = join(dataDir, CREDENTIALS_FILE);
  const publicKey = signingKey ? ed25519PublicKeyOf(signingKey) : undefined;
  // With Ed25519 signing, SIGN_WEBHOOK_SECRET lists the public key too, so `. credentials.env; sign-cli webhooks listen` verifies v1a.
  const text =
    `export SIGN_BASE_URL='${baseUrl}'\nexport SIGN_API_KEY='${apiKey}'\nexport SIGN_WEBHOOK_SECRET='${webhookSecret}${publicKey ? `,${publicKey}` : ''}'\n` +
    (publicKey
      ? `export SIGN_WEBHOOK_PUBLIC_KEY='${publicKey}'\nexport SIGN_SANDBOX_SIGNING_KEY='${signingKey}'\n`
      : '');
  writeFileSync(path, text, { mode: 0o600 });
  // writeFileSync's mode applies only when it creates the file: an existing one is made private too.
  chmodSync(path, 0o600);
}
