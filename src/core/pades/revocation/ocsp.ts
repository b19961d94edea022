/**
 * OCSP responses (RFC 6960) as a PDF keeps them: an OCSPResponse in the DSS's /OCSPs and in
 * adbe-revocationInfoArchival, a BasicOCSPResponse in CAdES revocation values. Read into what a
 * status decision needs (each single response's certificate id, status, times), and checked:
 * the certificate id names this certificate and this issuer, and the response is signed by the
 * issuer itself or by a responder the issuer certified for OCSP signing (id-kp-OCSPSigning).
 * Whether its times speak for the time in question is status.ts's part.
 */
import {
  TAG,
  children,
  encoded,
  explicit,
  integerHex,
  is,
  octets,
  oid,
  readDer,
  sequence,
  time,
  value,
  DerError,
  type Der,
} from '../der.js';
import { HASHES, hashLabel, hashOf } from '../hashes.js';
import {
  displayName,
  issuedBy,
  parseCertificate,
  sameName,
  verifySignature,
  type Certificate,
} from '../x509.js';
import * as der from '../der-write.js';
import { certificateFacts, keyHash } from './cert-facts.js';

const BASIC_RESPONSE = '1.3.6.1.5.5.7.48.1.1';
const SHA1 = '1.3.14.3.2.26';
/** id-pkix-ocsp-archive-cutoff: the responder keeps statuses of expired certificates since this time. */
const ARCHIVE_CUTOFF = '1.3.6.1.5.5.7.48.1.6';

export type CertStatus = 'good' | 'revoked' | 'unknown';

export interface SingleResponse {
  /** node:crypto's name of the certificate id's hash, when known. */
  hash: string | undefined;
  nameHash: Uint8Array;
  keyHash: Uint8Array;
  serial: string;
  status: CertStatus;
  revokedAt?: Date;
  /** The CRLReason code, when given. */
  reason?: number;
  thisUpdate: Date;
  nextUpdate?: Date;
}

export interface OcspResponse {
  tbs: Uint8Array;
  signatureAlgorithm: Der;
  signature: Uint8Array;
  responder: { name: Uint8Array } | { keyHash: Uint8Array };
  producedAt: Date;
  certificates: Certificate[];
  responses: SingleResponse[];
  /** The archive cutoff it states, if any. */
  archiveCutoff?: Date;
}

/** RFC 6960's responseStatus values other than successful, in words. */
const STATUS_WORDS = [
  'successful',
  'malformed request',
  'internal error',
  'try later',
  'unknown status 4',
  'signature required',
  'unauthorized',
];

export class OcspStatusError extends Error {}

function singleResponse(node: Der): SingleResponse {
  const fields = sequence(node, 'a single response');
  const [algorithm, nameHash, issuerKey, serial] = sequence(fields[0], 'the certificate id');
  const hashOid = oid(sequence(algorithm, "the certificate id's hash")[0]);
  const statusNode = fields[1];
  if (!statusNode || statusNode.cls !== 2) throw new DerError('no certificate status');
  const single: SingleResponse = {
    hash: HASHES[hashOid],
    nameHash: octets(nameHash),
    keyHash: octets(issuerKey),
    serial: integerHex(serial),
    status: statusNode.tag === 0 ? 'good' : statusNode.tag === 1 ? 'revoked' : 'unknown',
    thisUpdate: time(fields[2]),
  };
  if (single.status === 'revoked') {
    // RevokedInfo, IMPLICIT: its revocationTime, then [0] EXPLICIT CRLReason.
    const info = children(statusNode);
    single.revokedAt = time(info[0]);
    const reason = info.find((n) => is(n, 0, 2));
    if (reason) single.reason = value(explicit(reason))[0];
  }
  const next = fields.slice(3).find((n) => is(n, 0, 2));
  if (next) single.nextUpdate = time(explicit(next));
  return single;
}

/**
 * An OCSPResponse or a bare BasicOCSPResponse, read; DerError when it is neither, OcspStatusError
 * when the responder answered with an error status (no response in it).
 */
export function parseOcspResponse(der: Uint8Array): OcspResponse {
  const top = sequence(readDer(der), 'the OCSP response');
  let basic: Der[];
  if (is(top[0], 10)) {
    const status = value(top[0])[0] ?? 0;
    if (status !== 0) throw new OcspStatusError(`the responder answered "${STATUS_WORDS[status] ?? status}"`);
    const [type, bytes] = sequence(explicit(top[1]!), 'the response bytes');
    if (oid(type) !== BASIC_RESPONSE) throw new DerError(`response type ${oid(type)} is not basic`);
    basic = sequence(readDer(octets(bytes)), 'the basic OCSP response');
  } else basic = top;
  const [tbsNode, signatureAlgorithm, signatureValue, certsNode] = basic;
  const tbs = sequence(tbsNode, 'the response data');
  let i = is(tbs[0], 0, 2) ? 1 : 0;
  const responderNode = tbs[i++]!;
  const responder = is(responderNode, 1, 2)
    ? { name: encoded(explicit(responderNode)) }
    : { keyHash: octets(explicit(responderNode)) };
  const producedAt = time(tbs[i++]);
  const responses = sequence(tbs[i++], 'the responses').map(singleResponse);
  let archiveCutoff: Date | undefined;
  const extensions = tbs[i];
  if (extensions && is(extensions, 1, 2)) {
    for (const extension of sequence(explicit(extensions), 'response extensions')) {
      const parts = sequence(extension, 'an extension');
      if (oid(parts[0]) === ARCHIVE_CUTOFF) archiveCutoff = time(readDer(octets(parts.at(-1))));
    }
  }
  const certificates: Certificate[] = [];
  if (certsNode && is(certsNode, 0, 2)) {
    for (const cert of sequence(explicit(certsNode), 'the responder certificates')) {
      try {
        certificates.push(parseCertificate(encoded(cert)));
      } catch {
        // An unreadable certificate cannot be the responder's: the signature check says so if it was.
      }
    }
  }
  if (!signatureAlgorithm || !is(signatureValue, TAG.bitString)) throw new DerError('no signature');
  return {
    tbs: encoded(tbsNode!),
    signatureAlgorithm,
    signature: value(signatureValue).subarray(1),
    responder,
    producedAt,
    certificates,
    responses,
    ...(archiveCutoff ? { archiveCutoff } : {}),
  };
}

/** The single response about `cert` issued by `issuer`: its serial, and its issuer's name and key hashes. */
export function responseFor(
  response: OcspResponse,
  cert: Certificate,
  issuer: Certificate,
): SingleResponse | undefined {
  return response.responses.find((single) => {
    if (single.serial !== cert.serial || !single.hash) return false;
    const name = Buffer.from(single.nameHash);
    return (
      (name.equals(hashOf(single.hash, cert.issuer)) || name.equals(hashOf(single.hash, issuer.subject))) &&
      keyHash(issuer, single.hash).equals(single.keyHash)
    );
  });
}

/** Whether a single response names this serial at all (a response for this certificate from some issuer). */
export const namesSerial = (response: OcspResponse, cert: Certificate) =>
  response.responses.some((single) => single.serial === cert.serial);

/** Who signed a response, and whether the issuer authorised it; `ok` false says why not in `detail`. */
export interface ResponderCheck {
  ok: boolean;
  detail: string;
  /** A delegated responder (not the issuer itself), whose own status may need checking. */
  delegate?: Certificate;
  /** Refused only as a policy: signed with a weak hash (the data is authentic). */
  weak?: true;
}

const sameKey = (a: Certificate, b: Certificate) => Buffer.from(a.spki).equals(b.spki);

/** Whether `cert` is the responder the response names (by name, or by the SHA-1 of its key). */
function named(response: OcspResponse, cert: Certificate): boolean {
  const id = response.responder;
  return 'name' in id ? sameName(id.name, cert.subject) : keyHash(cert, 'sha1').equals(id.keyHash);
}

/**
 * The response's signature, by the issuer or a responder it delegated to (issued by it, with
 * id-kp-OCSPSigning, valid when the response was produced); `pool` holds the document's other
 * certificates, where a responder left out of the response may be found.
 */
export function checkResponder(
  response: OcspResponse,
  issuer: Certificate,
  pool: Certificate[],
  allowWeak: boolean,
): ResponderCheck {
  const candidates = [issuer, ...response.certificates, ...pool].filter((c) => named(response, c));
  if (candidates.length === 0)
    return {
      ok: false,
      detail: "its responder's certificate is neither in the response nor in the document",
    };
  let signer: Certificate | undefined;
  let check: ReturnType<typeof verifySignature> | undefined;
  const tried = new Set<string>();
  for (const candidate of candidates) {
    // The same key under several copies of one certificate is tried once.
    const key = Buffer.from(candidate.spki).toString('base64');
    if (tried.has(key)) continue;
    tried.add(key);
    check = verifySignature(response.signatureAlgorithm, candidate.spki, response.tbs, response.signature);
    signer = candidate;
    if (check.ok) break;
  }
  if (!signer || !check?.ok)
    return { ok: false, detail: "its signature does not verify with its responder's key" };
  if (check.weak && !allowWeak)
    return {
      ok: false,
      weak: true,
      detail: `it is signed with ${hashLabel(check.weak)}, a weak algorithm: not accepted`,
    };
  if (sameKey(signer, issuer) && sameName(signer.subject, issuer.subject))
    return { ok: true, detail: `signed by ${displayName(issuer)}` };
  const who = displayName(signer);
  if (!issuedBy(signer, issuer, allowWeak))
    return {
      ok: false,
      detail: `signed by ${who}, which ${displayName(issuer)} did not certify: not an authorised responder for its certificates`,
    };
  if (!certificateFacts(signer).ocspSigning)
    return {
      ok: false,
      detail: `signed by ${who}, which ${displayName(issuer)} did not delegate OCSP signing to (no id-kp-OCSPSigning extended key usage)`,
    };
  if (response.producedAt < signer.notBefore || response.producedAt > signer.notAfter)
    return {
      ok: false,
      detail: `signed by ${who}, whose certificate was not valid when the response was produced`,
    };
  return {
    ok: true,
    detail: `signed by ${who}, a responder ${displayName(issuer)} delegated`,
    delegate: signer,
  };
}

/** An OCSPRequest (RFC 6960 4.1.1) for one certificate, its id hashed with SHA-1 as responders expect; no nonce (a response without one is what a DSS keeps), no signature. */
export function ocspRequest(cert: Certificate, issuer: Certificate): Uint8Array {
  const certId = der.sequence(
    der.algorithm(SHA1),
    der.octetString(hashOf('sha1', cert.issuer)),
    der.octetString(keyHash(issuer, 'sha1')),
    der.unsignedInteger(Buffer.from(cert.serial, 'hex')),
  );
  return der.sequence(der.sequence(der.sequence(der.sequence(certId))));
}

/**
 * An OCSP response as a DSS's /OCSPs holds it: an OCSPResponse as is, a BasicOCSPResponse (what
 * CAdES revocation values carry) wrapped in one, status successful.
 */
export function asOcspResponse(response: Uint8Array): Uint8Array {
  if (is(sequence(readDer(response), 'the OCSP response')[0], 10)) return response;
  return der.sequence(
    der.enumerated(0),
    der.explicit(0, der.sequence(der.objectIdentifier(BASIC_RESPONSE), der.octetString(response))),
  );
}
