/**
 * Ed25519 keys in the Standard Webhooks form (the asymmetric `v1a` scheme):
 * `whsk_` + base64 of the 32-byte private seed, `whpk_` + base64 of the
 * 32-byte public key, as the Standard Webhooks libraries write them. Signing
 * and verifying use node:crypto (Ed25519, RFC 8032): no dependency.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';

export const ED25519_SECRET_PREFIX = 'whsk_';
export const ED25519_PUBLIC_PREFIX = 'whpk_';
export const ED25519_SIGNATURE_BYTES = 64;

// DER wrappers of a raw Ed25519 key (RFC 8410): PKCS #8 for the seed, SPKI for the public key.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The 32 bytes of a `whsk_`/`whpk_` key (the prefix optional), or an Error saying what is wrong. */
function rawKey(text: string, prefix: string, what: string): Buffer {
  const encoded = text.startsWith(prefix) ? text.slice(prefix.length) : text;
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32)
    throw new Error(`an Ed25519 ${what} is "${prefix}" followed by the base64 of 32 bytes`);
  return bytes;
}

export function ed25519PrivateKey(secret: string): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, rawKey(secret, ED25519_SECRET_PREFIX, 'signing key')]),
    format: 'der',
    type: 'pkcs8',
  });
}

export function ed25519PublicKey(publicKey: string): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_PREFIX, rawKey(publicKey, ED25519_PUBLIC_PREFIX, 'public key')]),
    format: 'der',
    type: 'spki',
  });
}

/** The `whpk_` public key that goes with a `whsk_` signing key. */
export function ed25519PublicKeyOf(secret: string): string {
  const der = createPublicKey(ed25519PrivateKey(secret)).export({ format: 'der', type: 'spki' });
  return `${ED25519_PUBLIC_PREFIX}${der.subarray(SPKI_PREFIX.length).toString('base64')}`;
}

/** A new key pair: `whsk_…` to sign (kept by the sender), `whpk_…` to verify (given to receivers). */
export function newEd25519KeyPair(): { secretKey: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  const secretKey = `${ED25519_SECRET_PREFIX}${der.subarray(PKCS8_PREFIX.length).toString('base64')}`;
  return { secretKey, publicKey: ed25519PublicKeyOf(secretKey) };
}

export function ed25519Sign(key: KeyObject, content: Buffer): Buffer {
  return sign(null, content, key);
}

export function ed25519Verify(key: KeyObject, content: Buffer, signature: Buffer): boolean {
  return verify(null, content, key, signature);
}
