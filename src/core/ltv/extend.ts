/**
 * Renewing a signed PDF's proof (PAdES B-LT to B-LTA, ETSI EN 319 142-1):
 * one incremental update after its last byte, with what its document
 * security store lacks and a new document timestamp over all of it, then the
 * result verified. What it lacks: every certificate of every chain (each
 * signer's, each signature timestamp's and document timestamp's TSA, up to
 * its root), and for each of them but the roots revocation data (an OCSP
 * response about it or its issuer's CRL), taken from what the file already
 * carries in its CMS (adbe-revocationInfoArchival, CAdES revocation values)
 * or, when a fetch is given (`--online`), from where the certificate says
 * its issuer answers. Revocation data is found and read by verify's own code
 * (core/pades/revocation/): sources.ts, ocsp.ts, crl.ts, online.ts. A copy
 * that lacks nothing gets the timestamp alone. The earlier bytes are
 * untouched, so every earlier signature covers what it covered.
 */
import { createHash } from 'node:crypto';
import { readPdf } from '../pades/pdf-file.js';
import { findSignatures } from '../pades/pdf-signatures.js';
import { parseSignedData, signerCertificate, type SignedData } from '../pades/cms.js';
import { signatureTimestampToken } from '../pades/timestamp.js';
import { displayName, issuedBy, parseCertificate, sameName, type Certificate } from '../pades/x509.js';
import { DerError } from '../pades/der.js';
import { verifyPdf, type PdfVerdict, type VerifyOptions } from '../pades/verify.js';
import { carriedData, type RevocationItem } from '../pades/revocation/sources.js';
import { asOcspResponse, parseOcspResponse, responseFor } from '../pades/revocation/ocsp.js';
import { crlCovers, parseCrl } from '../pades/revocation/crl.js';
import { fetchRevocation, publishesStatus, type RevocationFetch } from '../pades/revocation/online.js';
import { addToDss, noValidationData, type ValidationData } from './dss.js';
import { appendDocumentTimestamp, type Stamp } from './document-timestamp.js';
import { UpdateRefusedError } from './pdf-update.js';

export { UpdateRefusedError } from './pdf-update.js';
// What a caller asks with: through this module alone, so that the bundle keeps ltv/ in one chunk.
export { TrustServiceError, tsaStamp } from './tsa-client.js';

export interface ExtendOptions {
  /** The TSA that stamps the new document timestamp. */
  stamp: Stamp;
  /** Fetches revocation data the file lacks (`--online`); without it, only what the file carries is used. */
  fetch?: RevocationFetch;
  /** Stops the fetching (InterruptedError) once aborted. */
  signal?: AbortSignal;
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
function signedDatas(contents: Uint8Array[]): SignedData[] {
  const found: SignedData[] = [];
  for (const bytes of contents) {
    try {
      const data = parseSignedData(bytes);
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

/** Whether an item speaks of `cert` issued by `issuer`: an OCSP response naming it, or a CRL of its issuer covering its kind. */
function speaksOf(item: RevocationItem, cert: Certificate, issuer: Certificate): boolean {
  try {
    if (item.kind === 'ocsp') return responseFor(parseOcspResponse(item.der), cert, issuer) !== undefined;
    const crl = parseCrl(item.der);
    return sameName(crl.issuer, issuer.subject) && crlCovers(crl, cert);
  } catch {
    // An unreadable item, or a responder's error status: it speaks of nothing.
    return false;
  }
}

/** An item as a DSS holds it; undefined for an OCSP response too damaged to wrap (it speaks of nothing). */
function dssBytes(item: RevocationItem): Uint8Array | undefined {
  if (item.kind === 'crl') return item.der;
  try {
    return asOcspResponse(item.der);
  } catch (error) {
    if (error instanceof DerError) return undefined;
    throw error;
  }
}

/** Adds `items` to `data`, each to its list, as a DSS holds it. */
function addItems(data: ValidationData, items: RevocationItem[]): void {
  for (const item of items) {
    const bytes = dssBytes(item);
    if (bytes) data[item.kind === 'ocsp' ? 'ocspResponses' : 'crls'].push(bytes);
  }
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
  const file = readPdf(pdf);
  const signatures = findSignatures(file.revisions.at(-1)!);
  const datas = signedDatas(signatures.map((s) => s.contents));
  if (datas.length === 0) throw new UpdateRefusedError('it holds no signature that reads: nothing to extend');
  // What the file carries, wherever (the DSS of any revision, the CMSes, the tokens): verify's reader.
  const carried = carriedData(
    file,
    signatures.map((s) => ({ contents: s.contents, revision: null, documentTimestamp: s.documentTimestamp })),
  );
  const pool = new Map<string, Certificate>();
  const addToPool = (cert: Certificate) => pool.set(key(cert), cert);
  for (const data of datas) data.certificates.forEach(addToPool);
  carried.certificates.forEach(addToPool);
  for (const der of options.verify.trusted ?? []) {
    try {
      addToPool(parseCertificate(der));
    } catch (error) {
      if (!(error instanceof DerError)) throw error;
    }
  }
  const known: RevocationItem[] = [...carried.items];
  const additions = noValidationData();
  // What a CMS carries moves into the DSS too, where every signature finds it.
  addItems(
    additions,
    carried.items.filter((item) => item.source !== 'dss'),
  );
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
      const issuer = chain[i + 1];
      if (selfIssued(cert) || (issuer && known.some((item) => speaksOf(item, cert, issuer)))) continue;
      const tried: string[] = [];
      if (options.fetch && issuer) {
        const fetched = await fetchRevocation(cert, issuer, options.fetch, options.signal);
        const speaking = fetched.items.filter((item) => speaksOf(item, cert, issuer));
        if (speaking.length > 0) {
          known.push(...speaking);
          addItems(additions, speaking);
          continue;
        }
        tried.push(
          ...fetched.requests.map((r) =>
            r.ok ? `${r.url}: no ${r.kind === 'ocsp' ? 'response' : 'CRL'} for this certificate` : r.detail,
          ),
        );
        if (!publishesStatus(cert)) tried.push('it names no OCSP responder and no CRL (http)');
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
