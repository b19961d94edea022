/**
 * Signing webhook deliveries in the three schemes (webhooks.ts explains them),
 * and the primitives verification shares with it: secrets, signed contents,
 * constant-time comparison.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ED25519_SECRET_PREFIX, ed25519PrivateKey, ed25519Sign } from './ed25519.js';

export {
  ED25519_PUBLIC_PREFIX,
  ED25519_SECRET_PREFIX,
  ed25519PublicKeyOf,
  newEd25519KeyPair,
} from './ed25519.js';

export { WEBHOOK_SCHEMES, type WebhookScheme } from './webhook-schemes.js';
export type HmacAlgorithm = 'sha256' | 'sha512';

export const STANDARD_SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;
export const DEFAULT_HMAC_HEADER = 'x-signature';
/** How long the service waits for a receiver's answer to one delivery attempt; a slower answer is a failed attempt, retried. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** A type, not an interface, so signed headers can be handed straight to `verify()` (a HeaderBag). */
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** A new Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newStandardSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

export const SHA256_BYTES = 32;

/** The bytes of `text` when it is the canonical base64 of exactly `length` bytes (padding included), else undefined. */
export function strictBase64(text: string, length: number): Buffer | undefined {
  if (text.length !== Math.ceil(length / 3) * 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === length && bytes.toString('base64') === text ? bytes : undefined;
}

/** The HMAC key of a Standard Webhooks secret (the base64 part, decoded). */
export function standardSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(STANDARD_SECRET_PREFIX)
    ? secret.slice(STANDARD_SECRET_PREFIX.length)
    : secret;
  if (encoded === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new Error('a Standard Webhooks secret is "whsec_" followed by base64');
  }
  return Buffer.from(encoded, 'base64');
}

/** What a Standard Webhooks signature covers, ahead of the raw body: `${id}.${timestamp}.` */
export function standardSignedPrefix(id: string, timestampSeconds: number): string {
  return `${id}.${timestampSeconds}.`;
}

/** What a Stripe signature covers, ahead of the raw body: `${t}.` */
export function stripeSignedPrefix(timestampSeconds: number): string {
  return `${timestampSeconds}.`;
}

/** The base64 signature of one delivery under the Standard Webhooks scheme. */
export function standardSignature(
  secret: string | Buffer,
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const key = typeof secret === 'string' ? standardSecretKey(secret) : secret;
  return createHmac('sha256', key)
    .update(standardSignedPrefix(id, timestampSeconds))
    .update(body)
    .digest('base64');
}

/** The base64 Ed25519 signature (`v1a`) of one delivery, with a `whsk_` signing key. */
export function standardEd25519Signature(
  signingKey: string,
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const content = Buffer.concat([
    Buffer.from(standardSignedPrefix(id, timestampSeconds)),
    typeof body === 'string' ? Buffer.from(body) : body,
  ]);
  return ed25519Sign(ed25519PrivateKey(signingKey), content).toString('base64');
}

/**
 * Headers for one delivery attempt: signed `v1` (HMAC) with a `whsec_`
 * secret, or `v1a` (Ed25519) with a `whsk_` signing key.
 */
export function signStandard(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): WebhookHeaders {
  const signature = secret.startsWith(ED25519_SECRET_PREFIX)
    ? `v1a,${standardEd25519Signature(secret, id, timestampSeconds, body)}`
    : `v1,${standardSignature(secret, id, timestampSeconds, body)}`;
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signature };
}

export function stripeSignature(secret: string, timestampSeconds: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(stripeSignedPrefix(timestampSeconds)).update(body).digest('hex');
}

/** The `Stripe-Signature` header value for a body. */
export function signStripe(secret: string, timestampSeconds: number, body: string | Buffer): string {
  return `t=${timestampSeconds},v1=${stripeSignature(secret, timestampSeconds, body)}`;
}

export function hmacSignature(
  secret: string,
  body: string | Buffer,
  algorithm: HmacAlgorithm = 'sha256',
  encoding: 'hex' | 'base64' = 'hex',
): string {
  return createHmac(algorithm, secret).update(body).digest(encoding);
}

/** Constant-time comparison of two strings of possibly different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
