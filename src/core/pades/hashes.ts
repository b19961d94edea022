/**
 * The hash algorithms signatures and timestamps name (RFC 5754, RFC 8702, RFC 8419, FIPS 202),
 * by OID, as node:crypto computes them; and which of them are too weak to accept by default.
 * SHAKE256 is the digest Ed448 signatures use (RFC 8419): 512 bits of output.
 */
import { createHash, hash as oneShot, type Hash } from 'node:crypto';

export const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '2.16.840.1.101.3.4.2.7': 'sha3-224',
  '2.16.840.1.101.3.4.2.8': 'sha3-256',
  '2.16.840.1.101.3.4.2.9': 'sha3-384',
  '2.16.840.1.101.3.4.2.10': 'sha3-512',
  // id-shake256, and id-shake256-len (whose parameter says 512 bits, the only length Ed448 uses).
  '2.16.840.1.101.3.4.2.12': 'shake256',
  '2.16.840.1.101.3.4.2.18': 'shake256',
};

/**
 * Hashes too weak to accept for a signature made today (ETSI TS 119 312, and what pyHanko and
 * DSS refuse by default): still computed, so that a verdict can say the bytes are intact, but
 * refused as a policy unless weak algorithms are allowed.
 */
export const WEAK_HASHES = new Set(['sha1', 'md5']);

/** A hash of node:crypto by the name HASHES gives it (SHAKE256 with its 512 bits). */
export function newHash(name: string): Hash {
  return name === 'shake256' ? createHash('shake256', { outputLength: 64 }) : createHash(name);
}

/**
 * The hash of `bytes` (one or several parts) with the named algorithm. One part is hashed by
 * node:crypto's one-shot hash, which makes no Hash object (a stream): a verify hashes tens of
 * certificates, names and keys, and each Hash cost more to make than its hashing.
 */
export function hashOf(name: string, ...parts: Uint8Array[]): Buffer {
  if (parts.length === 1 && name !== 'shake256') return oneShot(name, parts[0]!, 'buffer');
  const hash = newHash(name);
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** The algorithm as people write it: SHA-256, SHA3-512, SHAKE256, SHA-1. */
export function hashLabel(name: string): string {
  if (name.startsWith('sha3-')) return `SHA3-${name.slice(5)}`;
  if (name === 'shake256') return 'SHAKE256';
  return name.replace(/^sha/, 'SHA-').replace(/^md5$/, 'MD5');
}
