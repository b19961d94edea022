/**
 * What revocation checking reads of a certificate beyond what x509.ts keeps for paths: where its
 * status is published (the OCSP responders of its Authority Information Access, the URLs of its
 * CRL distribution points), whether it may sign CRLs (cRLSign) or OCSP responses for its issuer
 * (id-kp-OCSPSigning), whether a responder's own status need not be checked (id-pkix-ocsp-nocheck),
 * and the hash of its public key that OCSP's certificate ids and responder ids name. Read again
 * from the certificate's body when asked, and kept per certificate: few certificates need them.
 */
import { TAG, bits, children, explicit, is, octets, oid, readDer, sequence, value } from '../der.js';
import { hashOf } from '../hashes.js';
import type { Certificate } from '../x509.js';

export const REVOCATION_OID = {
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ocspAccess: '1.3.6.1.5.5.7.48.1',
  crlDistributionPoints: '2.5.29.31',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  ocspNoCheck: '1.3.6.1.5.5.7.48.1.5',
  keyUsage: '2.5.29.15',
} as const;

export interface CertificateFacts {
  /** The OCSP responders its Authority Information Access names (http and https URLs). */
  ocspUrls: string[];
  /** The full-name URLs of its CRL distribution points (http and https; ldap and others left out). */
  crlUrls: string[];
  /** Other URLs its distribution points or access name, which are not fetched (ldap:). */
  otherUrls: string[];
  /** Whether it may sign CRLs: no key usage extension, or one with cRLSign. */
  crlSign: boolean;
  /** Whether its extended key usage allows signing OCSP responses for its issuer. */
  ocspSigning: boolean;
  /** Whether it carries id-pkix-ocsp-nocheck: a responder whose own status is not checked (RFC 6960 4.2.2.2.1). */
  ocspNoCheck: boolean;
}

const FACTS = new WeakMap<Certificate, CertificateFacts>();

/** The extensions of a certificate's body, by OID: their values' bytes. */
function extensions(cert: Certificate): Map<string, Uint8Array> {
  const found = new Map<string, Uint8Array>();
  const tbs = sequence(readDer(cert.tbs), "the certificate's body");
  const list = tbs.find((n) => is(n, 3, 2));
  if (!list) return found;
  for (const extension of sequence(explicit(list), 'the extensions')) {
    const parts = sequence(extension, 'an extension');
    found.set(oid(parts[0]), octets(parts.at(-1)));
  }
  return found;
}

/** The uniformResourceIdentifier names ([6] IA5String) among GeneralNames. */
function uris(generalNames: ReturnType<typeof readDer>): string[] {
  return children(generalNames)
    .filter((name) => is(name, 6, 2))
    .map((name) => Buffer.from(value(name)).toString('latin1'));
}

const fetchable = (url: string) => /^https?:\/\//i.test(url);

/** The facts of `cert`; a malformed extension reads as absent. */
export function certificateFacts(cert: Certificate): CertificateFacts {
  const known = FACTS.get(cert);
  if (known) return known;
  const facts: CertificateFacts = {
    ocspUrls: [],
    crlUrls: [],
    otherUrls: [],
    crlSign: true,
    ocspSigning: cert.extKeyUsage?.includes(REVOCATION_OID.ocspSigning) === true,
    ocspNoCheck: false,
  };
  let found = new Map<string, Uint8Array>();
  try {
    found = extensions(cert);
  } catch {
    // Unreadable extensions: x509.ts read them already, so this does not happen for a parsed certificate.
  }
  facts.ocspNoCheck = found.has(REVOCATION_OID.ocspNoCheck);
  const keyUsage = found.get(REVOCATION_OID.keyUsage);
  if (keyUsage) {
    try {
      facts.crlSign = ((bits(readDer(keyUsage))[0] ?? 0) & 0x02) !== 0;
    } catch {
      facts.crlSign = false;
    }
  }
  const access = found.get(REVOCATION_OID.authorityInfoAccess);
  if (access) {
    try {
      for (const description of sequence(readDer(access), 'authority information access')) {
        const [method, location] = sequence(description, 'an access description');
        if (oid(method) !== REVOCATION_OID.ocspAccess || !is(location, 6, 2)) continue;
        const url = Buffer.from(value(location)).toString('latin1');
        (fetchable(url) ? facts.ocspUrls : facts.otherUrls).push(url);
      }
    } catch {
      // A malformed access extension names no responder.
    }
  }
  const points = found.get(REVOCATION_OID.crlDistributionPoints);
  if (points) {
    try {
      for (const point of sequence(readDer(points), 'CRL distribution points')) {
        // DistributionPoint: [0] distributionPoint { [0] fullName GeneralNames | [1] nameRelativeToCRLIssuer }.
        const name = sequence(point, 'a distribution point').find((n) => is(n, 0, 2));
        const full = name ? children(name).find((n) => is(n, 0, 2)) : undefined;
        for (const url of full ? uris(full) : [])
          (fetchable(url) ? facts.crlUrls : facts.otherUrls).push(url);
      }
    } catch {
      // A malformed distribution point names no CRL.
    }
  }
  FACTS.set(cert, facts);
  return facts;
}

/** The subjectPublicKey BIT STRING's bytes (what OCSP's issuerKeyHash and byKey responder ids hash). */
export function publicKeyBits(cert: Certificate): Uint8Array {
  const [, key] = sequence(readDer(cert.spki), 'the public key');
  if (!is(key, TAG.bitString)) throw new Error('the public key is not a BIT STRING');
  return bits(key);
}

const KEY_HASHES = new WeakMap<Certificate, Map<string, Buffer>>();

/** The hash of the certificate's public key with `algorithm` (node:crypto's name), kept: every response is matched against every certificate. */
export function keyHash(cert: Certificate, algorithm: string): Buffer {
  let hashes = KEY_HASHES.get(cert);
  if (!hashes) KEY_HASHES.set(cert, (hashes = new Map<string, Buffer>()));
  let hash = hashes.get(algorithm);
  if (!hash) hashes.set(algorithm, (hash = hashOf(algorithm, publicKeyBits(cert))));
  return hash;
}
