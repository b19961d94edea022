/**
 * The signature algorithms x509.ts verifies with node:crypto, by the OID of their algorithm
 * identifier (RFC 3279, 4055, 5758, 8410, 8702; BSI TR-03111's plain ECDSA): the key's kind and
 * the hash, when the identifier names one.
 */
export type Scheme =
  | { kind: 'rsa'; hash: string | null }
  | { kind: 'ecdsa'; hash: string | null; plain?: boolean }
  | { kind: 'pss' }
  | { kind: 'eddsa'; name: 'Ed25519' | 'Ed448' };
export const SCHEMES: Record<string, Scheme> = {
  '1.2.840.113549.1.1.1': { kind: 'rsa', hash: null },
  '1.2.840.113549.1.1.5': { kind: 'rsa', hash: 'sha1' },
  '1.2.840.113549.1.1.14': { kind: 'rsa', hash: 'sha224' },
  '1.2.840.113549.1.1.11': { kind: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { kind: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { kind: 'rsa', hash: 'sha512' },
  // RSA PKCS#1 v1.5 and ECDSA with SHA-3 (RFC 8702, NIST's CSOR).
  '2.16.840.1.101.3.4.3.13': { kind: 'rsa', hash: 'sha3-224' },
  '2.16.840.1.101.3.4.3.14': { kind: 'rsa', hash: 'sha3-256' },
  '2.16.840.1.101.3.4.3.15': { kind: 'rsa', hash: 'sha3-384' },
  '2.16.840.1.101.3.4.3.16': { kind: 'rsa', hash: 'sha3-512' },
  '1.2.840.113549.1.1.10': { kind: 'pss' },
  '1.2.840.10045.2.1': { kind: 'ecdsa', hash: null },
  '1.2.840.10045.4.1': { kind: 'ecdsa', hash: 'sha1' },
  '1.2.840.10045.4.3.1': { kind: 'ecdsa', hash: 'sha224' },
  '1.2.840.10045.4.3.2': { kind: 'ecdsa', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { kind: 'ecdsa', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { kind: 'ecdsa', hash: 'sha512' },
  '2.16.840.1.101.3.4.3.9': { kind: 'ecdsa', hash: 'sha3-224' },
  '2.16.840.1.101.3.4.3.10': { kind: 'ecdsa', hash: 'sha3-256' },
  '2.16.840.1.101.3.4.3.11': { kind: 'ecdsa', hash: 'sha3-384' },
  '2.16.840.1.101.3.4.3.12': { kind: 'ecdsa', hash: 'sha3-512' },
  // Plain ECDSA (BSI TR-03111 ecdsa-plain-*): r and s side by side, not a DER SEQUENCE.
  '0.4.0.127.0.7.1.1.4.1.1': { kind: 'ecdsa', hash: 'sha1', plain: true },
  '0.4.0.127.0.7.1.1.4.1.2': { kind: 'ecdsa', hash: 'sha224', plain: true },
  '0.4.0.127.0.7.1.1.4.1.3': { kind: 'ecdsa', hash: 'sha256', plain: true },
  '0.4.0.127.0.7.1.1.4.1.4': { kind: 'ecdsa', hash: 'sha384', plain: true },
  '0.4.0.127.0.7.1.1.4.1.5': { kind: 'ecdsa', hash: 'sha512', plain: true },
  '0.4.0.127.0.7.1.1.4.1.8': { kind: 'ecdsa', hash: 'sha3-224', plain: true },
  '0.4.0.127.0.7.1.1.4.1.9': { kind: 'ecdsa', hash: 'sha3-256', plain: true },
  '0.4.0.127.0.7.1.1.4.1.10': { kind: 'ecdsa', hash: 'sha3-384', plain: true },
  '0.4.0.127.0.7.1.1.4.1.11': { kind: 'ecdsa', hash: 'sha3-512', plain: true },
  '1.3.101.112': { kind: 'eddsa', name: 'Ed25519' },
  '1.3.101.113': { kind: 'eddsa', name: 'Ed448' },
};
