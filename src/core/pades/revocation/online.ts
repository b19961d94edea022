/**
 * Revocation data fetched where a certificate says it is published: an OCSP request (RFC 6960
 * appendix A, HTTP POST) to each responder its Authority Information Access names, else its CRL
 * distribution points (HTTP GET). The network is the caller's (`RevocationFetch`: the CLI's
 * requests go through its proxies, timeouts and bounded answers), so this stays a core function
 * with no IO of its own; `envelopes verify --online` and `envelopes extend --online` use it. What
 * comes back is not trusted here: the status decision checks it as it checks embedded data.
 */
import { InterruptedError } from '../../errors.js';
import { displayName, type Certificate } from '../x509.js';
import { certificateFacts } from './cert-facts.js';
import { ocspRequest } from './ocsp.js';
import type { RevocationItem } from './sources.js';

/** One request: what to send, and the most the answer may hold. */
export interface RevocationRequest {
  url: string;
  method: 'GET' | 'POST';
  body?: Uint8Array;
  contentType?: string;
  accept: string;
  maxBytes: number;
}

/** Sends a request and resolves with the answer's body (2xx only); rejects with an Error that says why. */
export type RevocationFetch = (request: RevocationRequest) => Promise<Uint8Array>;

/** One request made, and how it went: what `--online` reports it did. */
export interface FetchRecord {
  url: string;
  kind: 'ocsp' | 'crl';
  certificate: string;
  ok: boolean;
  detail: string;
}

/** An OCSP answer is a few KB; a CRL of a large CA tens of MB. */
export const MAX_OCSP_BYTES = 1024 * 1024;
export const MAX_CRL_BYTES = 64 * 1024 * 1024;

/** A request cut by the caller's abort (Ctrl-C) stops the run; any other failure is recorded and the next URL tried. */
function stopIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new InterruptedError('interrupted while fetching revocation data', { sent: true });
}

const looksLikeDer = (bytes: Uint8Array) => bytes.length > 2 && bytes[0] === 0x30;

/** A CRL served as PEM (some CAs do) as DER. */
function crlBytes(body: Uint8Array): Uint8Array {
  if (looksLikeDer(body)) return body;
  const text = Buffer.from(body).toString('latin1');
  const pem = /-----BEGIN X509 CRL-----([\s\S]+?)-----END X509 CRL-----/.exec(text);
  return pem ? new Uint8Array(Buffer.from(pem[1]!.replace(/\s/g, ''), 'base64')) : body;
}

/**
 * What the certificate's responders and distribution points answer: the first OCSP responder
 * that answers with a response, else every CRL distribution point until one answers. Each request
 * is recorded, answered or not.
 */
export async function fetchRevocation(
  cert: Certificate,
  issuer: Certificate,
  fetch: RevocationFetch,
  signal?: AbortSignal,
): Promise<{ items: RevocationItem[]; requests: FetchRecord[] }> {
  const facts = certificateFacts(cert);
  const certificate = displayName(cert);
  const requests: FetchRecord[] = [];
  const items: RevocationItem[] = [];
  for (const url of facts.ocspUrls) {
    try {
      const body = await fetch({
        url,
        method: 'POST',
        body: ocspRequest(cert, issuer),
        contentType: 'application/ocsp-request',
        accept: 'application/ocsp-response',
        maxBytes: MAX_OCSP_BYTES,
      });
      if (!looksLikeDer(body)) throw new Error('the answer is not an OCSP response');
      items.push({ kind: 'ocsp', der: body, source: 'online', revision: null, url });
      requests.push({
        url,
        kind: 'ocsp',
        certificate,
        ok: true,
        detail: `an OCSP response of ${body.length} bytes`,
      });
      return { items, requests };
    } catch (error) {
      stopIfAborted(signal);
      requests.push({ url, kind: 'ocsp', certificate, ok: false, detail: (error as Error).message });
    }
  }
  for (const url of facts.crlUrls) {
    try {
      const body = crlBytes(
        await fetch({ url, method: 'GET', accept: 'application/pkix-crl', maxBytes: MAX_CRL_BYTES }),
      );
      if (!looksLikeDer(body)) throw new Error('the answer is not a CRL');
      items.push({ kind: 'crl', der: body, source: 'online', revision: null, url });
      requests.push({ url, kind: 'crl', certificate, ok: true, detail: `a CRL of ${body.length} bytes` });
      return { items, requests };
    } catch (error) {
      stopIfAborted(signal);
      requests.push({ url, kind: 'crl', certificate, ok: false, detail: (error as Error).message });
    }
  }
  return { items, requests };
}

/** Whether the certificate names anywhere to fetch its status from. */
export const publishesStatus = (cert: Certificate) => {
  const facts = certificateFacts(cert);
  return facts.ocspUrls.length + facts.crlUrls.length > 0;
};
