/**
 * Revocation data as `extend` needs to know it: which certificate an OCSP
 * response or a CRL speaks of (to tell what a copy lacks), what a CMS carries
 * of it (Adobe's adbe-revocationInfoArchival, CAdES revocation values), and
 * where a certificate says its issuer answers (AIA, CRL distribution points).
 * Nothing here judges the data: whether a response is signed by whom it
 * should be, and says good, is `verify`'s to check.
 */
import { createHash } from 'node:crypto';
import {
  DerError,
  TAG,
  children,
  encoded,
  explicit,
  is,
  octets,
  oid,
  integerHex,
  readDer,
  sequence,
  value,
  type Der,
} from '../pades/der.js';
import { HASHES } from '../pades/hashes.js';
import { sameName, type Certificate } from '../pades/x509.js';
import type { SignerInfo } from '../pades/cms.js';
import * as der from './der-write.js';
import { noValidationData, type ValidationData } from './dss.js';

const OID = {
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  adbeRevocation: '1.2.840.113583.1.1.8',
  revocationValues: '1.2.840.113549.1.9.16.2.24',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ocspAccess: '1.3.6.1.5.5.7.48.1',
  crlDistributionPoints: '2.5.29.31',
} as const;

/** The CertIDs an OCSPResponse answers for: hash algorithm, issuer name hash, serial. */
export function ocspSubjects(response: Uint8Array): { hash: string; nameHash: Buffer; serial: string }[] {
  try {
    const [status, bytes] = sequence(readDer(response), 'the OCSPResponse');
    if (value(status!)[0] !== 0 || !bytes) return [];
    const [type, basic] = sequence(explicit(bytes), 'the response bytes');
    if (oid(type) !== OID.ocspBasic) return [];
    const [tbs] = sequence(readDer(octets(basic)), 'the BasicOCSPResponse');
    const responses = sequence(tbs, 'the ResponseData').find((n) => is(n, TAG.sequence));
    return sequence(responses, 'the responses').flatMap((single) => {
      const [algorithm, nameHash, , serial] = sequence(sequence(single, 'a SingleResponse')[0], 'the CertID');
      const hash = HASHES[oid(sequence(algorithm, 'its hash')[0])];
      return hash ? [{ hash, nameHash: Buffer.from(octets(nameHash)), serial: integerHex(serial) }] : [];
    });
  } catch (error) {
    if (error instanceof DerError) return [];
    throw error;
  }
}

/** The issuer name (DER) of a CRL, or undefined when it does not read as one. */
export function crlIssuer(crl: Uint8Array): Uint8Array | undefined {
  try {
    const [tbs] = sequence(readDer(crl), 'the CRL');
    const fields = sequence(tbs, "the CRL's body");
    const issuer = fields[is(fields[0], TAG.integer) ? 2 : 1];
    return issuer ? encoded(issuer) : undefined;
  } catch (error) {
    if (error instanceof DerError) return undefined;
    throw error;
  }
}

/** Whether `data` holds an OCSP response for `cert` or a CRL of its issuer. */
export function covers(data: ValidationData, cert: Certificate): boolean {
  const byOcsp = data.ocspResponses.some((response) =>
    ocspSubjects(response).some(
      (s) => s.serial === cert.serial && s.nameHash.equals(createHash(s.hash).update(cert.issuer).digest()),
    ),
  );
  return (
    byOcsp ||
    data.crls.some((crl) => {
      const issuer = crlIssuer(crl);
      return issuer !== undefined && sameName(issuer, cert.issuer);
    })
  );
}

/** A signed structure's look: SEQUENCE { body, algorithm, BIT STRING, ... } (a CRL, a BasicOCSPResponse). */
const looksSigned = (node: Der) =>
  is(node, TAG.sequence) && children(node).length >= 3 && is(children(node)[2], TAG.bitString);

/** The items of a [n] holding a SEQUENCE OF (explicit), or the items themselves (implicit). */
function tagged(node: Der): Der[] {
  const items = children(node);
  return items.length === 1 && !looksSigned(items[0]!) ? children(items[0]!) : items;
}

/** A BasicOCSPResponse as the OCSPResponse a DSS holds (status successful, the basic type). */
const asOcspResponse = (basic: Uint8Array) =>
  der.sequence(
    der.enumerated(0),
    der.explicit(0, der.sequence(der.objectIdentifier(OID.ocspBasic), der.octetString(basic))),
  );

/** What a signer info carries of revocation data: adbe-revocationInfoArchival (signed), CAdES revocation values (unsigned). */
export function carriedRevocationData(signer: SignerInfo): ValidationData {
  const found = noValidationData();
  try {
    for (const archive of signer.signed.get(OID.adbeRevocation) ?? [])
      for (const part of sequence(archive, 'the revocation archive')) {
        if (is(part, 0, 2)) found.crls.push(...tagged(part).map((n) => encoded(n)));
        if (is(part, 1, 2)) found.ocspResponses.push(...tagged(part).map((n) => encoded(n)));
      }
    for (const values of signer.unsigned.get(OID.revocationValues) ?? [])
      for (const part of sequence(values, 'the revocation values')) {
        if (is(part, 0, 2)) found.crls.push(...tagged(part).map((n) => encoded(n)));
        if (is(part, 1, 2)) found.ocspResponses.push(...tagged(part).map((n) => asOcspResponse(encoded(n))));
      }
  } catch (error) {
    if (!(error instanceof DerError)) throw error;
  }
  return found;
}

/** Where a certificate's issuer answers: its AIA's OCSP URLs and its CRL distribution points (http only). */
export function revocationUrls(cert: Certificate): { ocsp: string[]; crl: string[] } {
  const urls = { ocsp: [] as string[], crl: [] as string[] };
  const uri = (n: Der) => (is(n, 6, 2) ? Buffer.from(value(n)).toString('latin1') : undefined);
  try {
    const tbs = sequence(readDer(cert.tbs), "the certificate's body");
    const extensions = tbs.find((n) => is(n, 3, 2));
    for (const extension of extensions ? sequence(explicit(extensions), 'the extensions') : []) {
      const parts = sequence(extension, 'an extension');
      const id = oid(parts[0]);
      const inner = readDer(octets(parts.at(-1)));
      if (id === OID.authorityInfoAccess)
        for (const access of sequence(inner, 'the AIA')) {
          const [method, location] = sequence(access, 'an access description');
          const url = location && uri(location);
          if (oid(method) === OID.ocspAccess && url) urls.ocsp.push(url);
        }
      if (id === OID.crlDistributionPoints)
        for (const point of sequence(inner, 'the distribution points')) {
          const name = sequence(point, 'a distribution point').find((n) => is(n, 0, 2));
          const full = name && children(name).find((n) => is(n, 0, 2));
          for (const general of full ? children(full) : []) {
            const url = uri(general);
            if (url) urls.crl.push(url);
          }
        }
    }
  } catch (error) {
    if (!(error instanceof DerError)) throw error;
  }
  const http = (url: string) => /^https?:\/\//i.test(url);
  return { ocsp: urls.ocsp.filter(http), crl: urls.crl.filter(http) };
}
