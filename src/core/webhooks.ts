/**
 * Webhook signatures. SPEC §6 says only "signed with HMAC"; the default scheme
 * is Standard Webhooks (https://www.standardwebhooks.com):
 *   signed content  = `${webhook-id}.${webhook-timestamp}.${raw body}`
 *   signature       = base64(HMAC-SHA256(base64decode(secret without "whsec_"), content))
 *   header          = `webhook-signature: v1,<signature>` (several, space-separated)
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const STANDARD_SECRET_PREFIX = 'whsec_';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A new Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newStandardSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The HMAC key of a Standard Webhooks secret (the base64 part, decoded). */
export function standardSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new Error('a Standard Webhooks secret is "whsec_" followed by base64');
  }
  return Buffer.from(encoded, 'base64');
}

/** The base64 signature of one delivery under the Standard Webhooks scheme. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
  return createHmac('sha256', standardSecretKey(secret))
    .update(`${id}.${timestampSeconds}.`)
    .update(body)
    .digest('base64');
}

/** Headers for one delivery attempt, signed with the given secret. */
export function signStandard(secret: string, id: string, timestampSeconds: number, body: string | Buffer): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${standardSignature(secret, id, timestampSeconds, body)}`,
  };
}

/** Constant-time comparison of two strings of possibly different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
