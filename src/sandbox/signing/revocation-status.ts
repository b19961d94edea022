/**
 * What the sandbox CA says of its certificates' status: OCSP responses
 * (RFC 6960) and CRLs (RFC 5280), both signed by the CA itself (no delegated
 * responder: nothing more to revoke or to check), SHA-256 with RSA, DER
 * written by hand (core/ltv/der-write.ts) so that each is exactly what it
 * should be: the same inputs, the same bytes.
 *
 * Both speak "as of" a time: the ledger's revocations recorded by then, and
 * thisUpdate that time in whole seconds, nextUpdate a week later (a CA's
 * usual window; RFC 5019 responders and CRLs of public CAs use days). The
 * signed copies carry them as of their completion; the HTTP endpoints answer
 * as of now.
 */
import { createHash } from 'node:crypto';
import * as der from '../../core/ltv/der-write.js';
import {
  DerError,
  bits,
  children,
  encoded,
  explicit,
  integerHex,
  is,
  octets,
  oid,
  readDer,
  sequence,
  type Der,
} from '../../core/pades/der.js';
import { parseCertificate } from '../../core/pades/x509.js';
import { REVOCATION_REASONS, type CertificateStatus, type Revocation } from './certificate-ledger.js';
import type { CryptoKey } from './key-files.js';
import { webcrypto } from './web-crypto.js';

const OID = {
  sha256WithRSA: '1.2.840.113549.1.1.11',
  sha1: '1.3.14.3.2.26',
  ocspBasic: '1.3.6.1.5.5.7.48.1.1',
  ocspNonce: '1.3.6.1.5.5.7.48.1.2',
  reasonCode: '2.5.29.21',
  crlNumber: '2.5.29.20',
  authorityKeyId: '2.5.29.35',
} as const;

/** The hashes a request's CertID may use (node:crypto's names). */
const CERT_ID_HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** How long a response or a CRL says it holds: a week. */
export const NEXT_UPDATE_MS = 7 * 86_400_000;

/** The CA as its responses need it: its name, its key's hash, its key, and the status of its serials. */
export interface StatusSigner {
  ca: Uint8Array;
  caKey: CryptoKey;
  statusAt(serial: string, time: Date): CertificateStatus;
  revocationsAt(time: Date): Revocation[];
}

/** A time as responses write it: whole seconds, rounded down. */
export const wholeSeconds = (time: Date) => new Date(Math.floor(time.getTime() / 1000) * 1000);

async function signed(signer: StatusSigner, tbs: Uint8Array): Promise<Uint8Array> {
  const signature = await webcrypto().subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, signer.caKey, tbs);
  return der.sequence(tbs, der.algorithm(OID.sha256WithRSA), der.bitString(new Uint8Array(signature)));
}

/** The CA's name (DER), its public key's bits and its key identifier. */
function caFacts(ca: Uint8Array): { subject: Uint8Array; keyBits: Uint8Array; keyId: Uint8Array } {
  const cert = parseCertificate(ca);
  const keyBits = bits(sequence(readDer(cert.spki), 'the public key')[1]);
  const keyId = cert.subjectKeyId
    ? Buffer.from(cert.subjectKeyId, 'hex')
    : createHash('sha1').update(keyBits).digest();
  return { subject: cert.subject, keyBits, keyId };
}

/** A CertID (RFC 6960 4.1.1) for one of the CA's serials, with SHA-1 as RFC 5019 profiles it. */
export function certId(ca: Uint8Array, serialHex: string): Uint8Array {
  const { subject, keyBits } = caFacts(ca);
  return der.sequence(
    der.algorithm(OID.sha1),
    der.octetString(createHash('sha1').update(subject).digest()),
    der.octetString(createHash('sha1').update(keyBits).digest()),
    der.unsignedInteger(Buffer.from(serialHex, 'hex')),
  );
}

/** certStatus: good [0], revoked [1] with its time and reason, unknown [2]. */
function certStatus(status: CertificateStatus): Uint8Array {
  if (status.status === 'good') return der.implicitPrimitive(0, new Uint8Array());
  if (status.status === 'unknown') return der.implicitPrimitive(2, new Uint8Array());
  return der.explicit(
    1,
    der.generalizedTime(status.at),
    der.explicit(0, der.enumerated(REVOCATION_REASONS[status.reason])),
  );
}

interface OneRequest {
  /** The CertID as the request wrote it: the answer repeats it byte for byte. */
  certId: Uint8Array;
  /** The serial, when the CertID names this CA; undefined for another issuer's. */
  serial: string | undefined;
}

/**
 * A successful OCSPResponse answering each CertID with what the CA knew at `knownAt`, dated
 * `time` (and repeating the request's nonce).
 */
async function ocspResponse(
  signer: StatusSigner,
  requests: OneRequest[],
  time: Date,
  knownAt: Date,
  nonce?: Uint8Array,
): Promise<Uint8Array> {
  const at = wholeSeconds(time);
  const { keyBits } = caFacts(signer.ca);
  const responses = requests.map((request) =>
    der.sequence(
      request.certId,
      certStatus(
        request.serial === undefined ? { status: 'unknown' } : signer.statusAt(request.serial, knownAt),
      ),
      der.generalizedTime(at),
      der.explicit(0, der.generalizedTime(new Date(at.getTime() + NEXT_UPDATE_MS))),
    ),
  );
  const tbs = der.sequence(
    // responderID byKey [2]: the SHA-1 of the CA's key, as RFC 5019 asks.
    der.explicit(2, der.octetString(createHash('sha1').update(keyBits).digest())),
    der.generalizedTime(at),
    der.sequence(...responses),
    ...(nonce ? [der.explicit(1, der.sequence(nonce))] : []),
  );
  const basic = await signed(signer, tbs);
  return der.sequence(
    der.enumerated(0),
    der.explicit(0, der.sequence(der.objectIdentifier(OID.ocspBasic), der.octetString(basic))),
  );
}

/**
 * The OCSP response a signed copy carries for one of the CA's certificates: what the CA knew at
 * `knownAt` (the completion), dated `time`.
 */
export function ocspResponseFor(
  signer: StatusSigner,
  serialHex: string,
  time: Date,
  knownAt: Date = time,
): Promise<Uint8Array> {
  return ocspResponse(signer, [{ certId: certId(signer.ca, serialHex), serial: serialHex }], time, knownAt);
}

/** OCSPResponse with an error status and no body: malformedRequest (1), internalError (2). */
export const ocspError = (status: 1 | 2) => der.sequence(der.enumerated(status));

/** The serial a CertID names when its issuer hashes are this CA's (by the hash it chose). */
function serialFor(ca: Uint8Array, node: Der): string | undefined {
  const [algorithm, nameHash, keyHash, serial] = sequence(node, 'the CertID');
  const hash = CERT_ID_HASHES[oid(sequence(algorithm, 'its hash')[0])];
  if (!hash) return undefined;
  const { subject, keyBits } = caFacts(ca);
  const same = (a: Uint8Array, b: Buffer) => Buffer.from(a).equals(b);
  return same(octets(nameHash), createHash(hash).update(subject).digest()) &&
    same(octets(keyHash), createHash(hash).update(keyBits).digest())
    ? integerHex(serial)
    : undefined;
}

/**
 * The answer to a DER OCSPRequest, dated `now`, with what the CA knew at `knownAt`: each CertID's
 * status (unknown for another CA's certificates or serials this CA never issued), the nonce
 * repeated (RFC 8954); a request that does not read gets malformedRequest.
 */
export async function answerOcspRequest(
  signer: StatusSigner,
  body: Uint8Array,
  now: Date,
  knownAt: Date = now,
): Promise<Uint8Array> {
  let requests: OneRequest[];
  let nonce: Uint8Array | undefined;
  try {
    const [tbsRequest] = sequence(readDer(body), 'the OCSPRequest');
    const fields = sequence(tbsRequest, 'the TBSRequest');
    const list = fields.find((f) => is(f, 16));
    requests = sequence(list, 'the request list').map((request) => {
      const certIdNode = sequence(request, 'a Request')[0]!;
      return { certId: encoded(certIdNode), serial: serialFor(signer.ca, certIdNode) };
    });
    if (requests.length === 0 || requests.length > 16) return ocspError(1);
    const extensions = fields.find((f) => is(f, 2, 2));
    for (const extension of extensions ? sequence(explicit(extensions), 'the extensions') : []) {
      if (oid(children(extension)[0]) === OID.ocspNonce) nonce = encoded(extension);
    }
  } catch (error) {
    if (error instanceof DerError) return ocspError(1);
    throw error;
  }
  return ocspResponse(signer, requests, now, knownAt, nonce);
}

/**
 * The CA's CRL dated `time`, listing every revocation recorded by `knownAt`, with its reason
 * (unspecified left out, as RFC 5280 asks).
 */
export async function crlAt(signer: StatusSigner, time: Date, knownAt: Date = time): Promise<Uint8Array> {
  const at = wholeSeconds(time);
  const { subject, keyId } = caFacts(signer.ca);
  const revoked = signer
    .revocationsAt(knownAt)
    .map((r) =>
      der.sequence(
        der.unsignedInteger(Buffer.from(r.serial, 'hex')),
        der.time(new Date(r.at)),
        ...(r.reason === 'unspecified'
          ? []
          : [der.sequence(der.extension(OID.reasonCode, der.enumerated(REVOCATION_REASONS[r.reason])))]),
      ),
    );
  const tbs = der.sequence(
    der.integer(1),
    der.algorithm(OID.sha256WithRSA),
    subject,
    der.time(at),
    der.time(new Date(at.getTime() + NEXT_UPDATE_MS)),
    ...(revoked.length > 0 ? [der.sequence(...revoked)] : []),
    der.explicit(
      0,
      der.sequence(
        der.extension(OID.authorityKeyId, der.sequence(der.implicitPrimitive(0, keyId))),
        // Its number grows with its time: two CRLs of the same second are the same CRL.
        der.extension(OID.crlNumber, der.integer(Math.floor(at.getTime() / 1000))),
      ),
    ),
  );
  return signed(signer, tbs);
}
