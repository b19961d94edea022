/**
 * The sandbox's keys on disk: RSA with PKCS#1 v1.5 signatures (deterministic,
 * so a signed copy made again is the same bytes), PEM files readable by the
 * owner only. Shared by the signing identity and the timestamp authority.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import type { webcrypto as WebCrypto } from 'node:crypto';
import { pemToDer, webcrypto } from './web-crypto.js';

export type CryptoKey = WebCrypto.CryptoKey;
export type CryptoKeyPair = WebCrypto.CryptoKeyPair;

export const ALGORITHM = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

/** Readable by the owner only, whatever the umask (as credentials.env). */
export function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

export const pem = (label: string, der: ArrayBuffer | Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der as Uint8Array)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END ${label}-----\n`;

/** A PKCS#8 private key (PEM) for signing. */
export async function importSigningKey(text: string): Promise<CryptoKey> {
  return webcrypto().subtle.importKey(
    'pkcs8',
    pemToDer(text),
    { name: ALGORITHM.name, hash: ALGORITHM.hash },
    false,
    ['sign'],
  );
}
