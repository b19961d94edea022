/**
 * Revocation data fetched where a certificate says its issuer answers: an
 * OCSP request (RFC 6960, SHA-1 CertID as RFC 5019 profiles it, POSTed) to
 * its AIA's responder, or else the CRL of its first distribution point; the
 * answer kept only when it speaks of that certificate. The one function
 * `extend --online` calls for what a copy lacks (a fetcher of `verify
 * --online` can take its place: same shape).
 */
import { createHash } from 'node:crypto';
import { NetworkError } from '../errors.js';
import { bits, readDer, sequence } from '../pades/der.js';
import type { Certificate } from '../pades/x509.js';
import * as der from './der-write.js';
import { noValidationData, type ValidationData } from './dss.js';
import { httpBinary, TrustServiceError, type HttpOptions } from './http-binary.js';
import { covers, revocationUrls } from './revocation-data.js';

const SHA1 = '1.3.14.3.2.26';
/** An OCSP response is a few kilobytes; a CRL of a large CA, megabytes. */
const MAX_OCSP_BYTES = 1024 * 1024;
const MAX_CRL_BYTES = 32 * 1024 * 1024;

/** Fetches what speaks of `cert` (issued by `issuer`); what was tried and failed is said in `tried`. */
export type RevocationFetcher = (
  cert: Certificate,
  issuer: Certificate,
) => Promise<{ data: ValidationData; tried: string[] }>;

/** A DER OCSPRequest for one certificate, without a nonce (a response without one is what a DSS keeps). */
export function ocspRequest(cert: Certificate, issuer: Certificate): Uint8Array {
  const keyBits = bits(sequence(readDer(issuer.spki), 'the public key')[1]);
  const certId = der.sequence(
    der.algorithm(SHA1),
    der.octetString(createHash('sha1').update(cert.issuer).digest()),
    der.octetString(createHash('sha1').update(keyBits).digest()),
    der.unsignedInteger(Buffer.from(cert.serial, 'hex')),
  );
  return der.sequence(der.sequence(der.sequence(der.sequence(certId))));
}

/** The fetcher over HTTP with `options` (proxies, timeout, Ctrl-C). */
export function onlineFetcher(options: HttpOptions): RevocationFetcher {
  return async (cert, issuer) => {
    const tried: string[] = [];
    const urls = revocationUrls(cert);
    for (const url of urls.ocsp) {
      try {
        const answer = await httpBinary(
          url,
          {
            body: ocspRequest(cert, issuer),
            contentType: 'application/ocsp-request',
            accept: 'application/ocsp-response',
          },
          MAX_OCSP_BYTES,
          options,
        );
        const data = { ...noValidationData(), ocspResponses: [new Uint8Array(answer.body)] };
        if (answer.status === 200 && covers(data, cert)) return { data, tried };
        tried.push(
          `${url}: ${answer.status === 200 ? 'no response for this certificate' : `HTTP ${answer.status}`}`,
        );
      } catch (error) {
        if (!(error instanceof NetworkError || error instanceof TrustServiceError)) throw error;
        tried.push(error.message);
      }
    }
    for (const url of urls.crl) {
      try {
        const answer = await httpBinary(url, { accept: 'application/pkix-crl' }, MAX_CRL_BYTES, options);
        const data = { ...noValidationData(), crls: [new Uint8Array(answer.body)] };
        if (answer.status === 200 && covers(data, cert)) return { data, tried };
        tried.push(`${url}: ${answer.status === 200 ? 'not a CRL of its issuer' : `HTTP ${answer.status}`}`);
      } catch (error) {
        if (!(error instanceof NetworkError || error instanceof TrustServiceError)) throw error;
        tried.push(error.message);
      }
    }
    if (urls.ocsp.length + urls.crl.length === 0) tried.push('it names no OCSP responder and no CRL (http)');
    return { data: noValidationData(), tried };
  };
}
