/**
 * Renewing a signed PDF's proof (PAdES B-LT to B-LTA, ETSI EN 319 142-1):
 * one incremental update after its last byte, with what its document
 * security store lacks and a new document timestamp over all of it, then the
 * result verified. What it lacks: every certificate of every chain (each
 * signer's, each signature timestamp's and document timestamp's TSA, up to
 * its root), and for each of them but the roots revocation data (an OCSP
 * response about it or its issuer's CRL), taken from what the file already
 * carries in its CMS (adbe-revocationInfoArchival, CAdES revocation values)
 * or, when a fetcher is given (`--online`), from where the certificate says
 * its issuer answers. A copy that lacks nothing gets the timestamp alone.
 * The earlier bytes are untouched, so every earlier signature covers what it
 * covered.
 */
import { createHash } from 'node:crypto';
import { readPdf } from '../pades/pdf-file.js';
import { findSignatures } from '../pades/pdf-signatures.js';
import { parseSignedData, signerCertificate, type SignedData } from '../pades/cms.js';
import { signatureTimestampToken } from '../pades/timestamp.js';
import { displayName, issuedBy, parseCertificate, sameName, type Certificate } from '../pades/x509.js';
import { DerError } from '../pades/der.js';
import { verifyPdf, type PdfVerdict, type VerifyOptions } from '../pades/verify.js';
import { addToDss, dssContents, noValidationData, type ValidationData } from './dss.js';
import { appendDocumentTimestamp, type Stamp } from './document-timestamp.js';
import { PdfUpdate, UpdateRefusedError } from './pdf-update.js';
import { carriedRevocationData, covers } from './revocation-data.js';
import type { RevocationFetcher } from './online.js';

export { UpdateRefusedError } from './pdf-update.js';
export { TrustServiceError } from './http-binary.js';
// What a caller asks with: through this module alone, so that the bundle keeps ltv/ in one chunk.
export { tsaStamp } from './tsa-client.js';
export { onlineFetcher } from './online.js';

export interface ExtendOptions {
  /** The TSA that stamps the new document timestamp. */
  stamp: Stamp;
  /** Fetches revocation data the file lacks (`--online`); without it, only what the file carries is used. */
  fetch?: RevocationFetcher;
  /** How the result is verified (its trusted roots complete the chains too). */
  verify: VerifyOptions;
}

export interface ExtendResult {
  bytes: Buffer;
  /** What the update added to the DSS. */
  added: { certificates: number; ocspResponses: number; crls: number };
  /** Certificates still without revocation data, with what was tried for each. */
  missing: { certificate: string; tried: string[] }[];
  /** The new document timestamp's field. */
  field: string;
  verdict: PdfVerdict;
}

const key = (cert: Certificate) => createHash('sha256').update(cert.der).digest('hex');
const selfIssued = (cert: Certificate) => sameName(cert.subject, cert.issuer) && issuedBy(cert, cert, true);

/** The CMS of each signature and each signature timestamp the file holds (unreadable ones left out). */
function signedDatas(pdf: Uint8Array): SignedData[] {
  const file = readPdf(pdf);
  const found: SignedData[] = [];
  for (const signature of findSignatures(file.revisions.at(-1)!)) {
    try {
      const data = parseSignedData(signature.contents);
      found.push(data);
      for (const signer of data.signers) {
        const token = signatureTimestampToken(signer.unsigned);
        if (token) found.push(parseSignedData(token));
      }
    } catch (error) {
      if (!(error instanceof DerError)) throw error;
    }
  }
  return found;
}

/** `leaf` and its issuers up to a self-issued root, each found in `pool` by name and signature. */
function chainOf(leaf: Certificate, pool: Certificate[]): Certificate[] {
  const chain = [leaf];
  for (let cert = leaf; chain.length < 10 && !selfIssued(cert);) {
    const issuer = pool.find((c) => sameName(c.subject, cert.issuer) && issuedBy(cert, c, true));
    if (!issuer || chain.includes(issuer)) break;
    chain.push(issuer);
    cert = issuer;
  }
  return chain;
}

/** Adds what the PDF lacks and a document timestamp, then verifies the result. UpdateRefusedError when it cannot take an update. */
export async function extendPdf(pdf: Uint8Array, options: ExtendOptions): Promise<ExtendResult> {
  const held = dssContents(new PdfUpdate(readPdf(pdf)));
  const datas = signedDatas(pdf);
  if (datas.length === 0) throw new UpdateRefusedError('it holds no signature that reads: nothing to extend');
  const pool = new Map<string, Certificate>();
  const addToPool = (cert: Certificate) => pool.set(key(cert), cert);
  for (const data of datas) data.certificates.forEach(addToPool);
  for (const der of [...held.certificates, ...(options.verify.trusted ?? [])]) {
    try {
      addToPool(parseCertificate(der));
    } catch (error) {
      if (!(error instanceof DerError)) throw error;
    }
  }
  const known: ValidationData = {
    certificates: [],
    ocspResponses: [...held.ocspResponses],
    crls: [...held.crls],
  };
  const additions = noValidationData();
  for (const data of datas)
    for (const signer of data.signers) {
      const carried = carriedRevocationData(signer);
      known.ocspResponses.push(...carried.ocspResponses);
      known.crls.push(...carried.crls);
      additions.ocspResponses.push(...carried.ocspResponses);
      additions.crls.push(...carried.crls);
    }
  const chains = new Map<string, Certificate[]>();
  for (const data of datas)
    for (const signer of data.signers) {
      const leaf = signerCertificate(data, signer);
      if (leaf) chains.set(key(leaf), chainOf(leaf, [...pool.values()]));
    }
  const missing: ExtendResult['missing'] = [];
  const seen = new Set<string>();
  for (const chain of chains.values())
    for (const [i, cert] of chain.entries()) {
      if (seen.has(key(cert))) continue;
      seen.add(key(cert));
      additions.certificates.push(cert.der);
      if (selfIssued(cert) || covers(known, cert)) continue;
      const issuer = chain[i + 1];
      const tried: string[] = [];
      if (options.fetch && issuer) {
        const fetched = await options.fetch(cert, issuer);
        tried.push(...fetched.tried);
        if (covers(fetched.data, cert)) {
          for (const list of ['ocspResponses', 'crls'] as const) {
            known[list].push(...fetched.data[list]);
            additions[list].push(...fetched.data[list]);
          }
          continue;
        }
      } else if (!issuer) tried.push('its issuer is not in the file nor among the trusted roots');
      missing.push({ certificate: displayName(cert), tried });
    }
  let added = noValidationData();
  const stamped = await appendDocumentTimestamp(
    pdf,
    (update) => {
      added = addToDss(update, additions);
    },
    options.stamp,
  );
  const verdict = await verifyPdf(stamped.bytes, options.verify);
  return {
    bytes: stamped.bytes,
    added: {
      certificates: added.certificates.length,
      ocspResponses: added.ocspResponses.length,
      crls: added.crls.length,
    },
    missing,
    field: stamped.field,
    verdict,
  };
}
