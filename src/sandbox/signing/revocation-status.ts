/**
 * What the sandbox CA says of its certificates' status: OCSP responses
 * (RFC 6960) and CRLs (RFC 5280), both signed by the CA itself (no delegated
 * responder: nothing more to revoke or to check), SHA-256 with RSA, written
 * and read with asn1js, as the rest of the sandbox's CMS (the same inputs, the
 * same bytes). Not with the core's DER code: a module the sandbox, `verify` and
 * `extend` all loaded would be bundled into a chunk every command loads.
 *
 * Both speak "as of" a time: the ledger's revocations recorded by then, and
 * thisUpdate that time in whole seconds, nextUpdate a week later (a CA's
 * usual window; RFC 5019 responders and CRLs of public CAs use days). The
 * signed copies carry them as of their completion; the HTTP endpoints answer
 * as of now.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { REVOCATION_REASONS, type CertificateStatus, type Revocation } from './certificate-ledger.js';
import type { CryptoKey } from './key-files.js';
import { usePkijsWithNodeCrypto, webcrypto } from './web-crypto.js';

usePkijsWithNodeCrypto(pkijs);

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

type Asn = asn1js.AsnType;
const ber = (node: Asn) => new Uint8Array(node.toBER(false));
const seq = (...value: Asn[]) => new asn1js.Sequence({ value });
const octets = (bytes: Uint8Array) => new asn1js.OctetString({ valueHex: bytes });
const oid = (value: string) => new asn1js.ObjectIdentifier({ value });
const algorithm = (id: string) => seq(oid(id), new asn1js.Null());
const time = (date: Date) => new asn1js.GeneralizedTime({ valueDate: wholeSeconds(date) });
/** RFC 5280's Time: UTCTime through 2049. */
const crlTime = (date: Date) =>
  date.getUTCFullYear() < 2050
    ? new asn1js.UTCTime({ valueDate: wholeSeconds(date) })
    : new asn1js.GeneralizedTime({ valueDate: wholeSeconds(date) });
const explicit = (tagNumber: number, ...value: Asn[]) =>
  new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber }, value });
const implicitEmpty = (tagNumber: number) => new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber } });
/** A positive INTEGER from its magnitude's bytes, in DER's one encoding. */
function integer(magnitude: Uint8Array): asn1js.Integer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const body = magnitude.subarray(start);
  return new asn1js.Integer({ valueHex: body[0]! & 0x80 ? Buffer.concat([Buffer.of(0), body]) : body });
}
const small = (n: number) => integer(Buffer.from(n.toString(16).padStart(12, '0'), 'hex'));
/** An Extension, critical left out (DER omits the DEFAULT false). */
const extension = (id: string, value: Asn) => seq(oid(id), octets(ber(value)));

async function signed(signer: StatusSigner, tbs: Asn): Promise<Uint8Array> {
  const body = ber(tbs);
  const signature = await webcrypto().subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, signer.caKey, body);
  return ber(
    seq(
      asn1js.fromBER(body).result,
      algorithm(OID.sha256WithRSA),
      new asn1js.BitString({ valueHex: new Uint8Array(signature) }),
    ),
  );
}

/** The CA's name (DER), its public key's bits and its key identifier. */
function caFacts(ca: Uint8Array): { subject: Uint8Array; keyBits: Uint8Array; keyId: Uint8Array } {
  const cert = pkijs.Certificate.fromBER(ca);
  const keyBits = new Uint8Array(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView);
  const ski = cert.extensions?.find((e) => e.extnID === '2.5.29.14');
  const keyId = ski
    ? new Uint8Array(
        (asn1js.fromBER(ski.extnValue.valueBlock.valueHexView).result as asn1js.OctetString).valueBlock
          .valueHexView,
      )
    : createHash('sha1').update(keyBits).digest();
  return { subject: ber(cert.subject.toSchema()), keyBits, keyId };
}

/** A CertID (RFC 6960 4.1.1) for one of the CA's serials, with SHA-1 as RFC 5019 profiles it. */
export function certId(ca: Uint8Array, serialHex: string): Uint8Array {
  const { subject, keyBits } = caFacts(ca);
  return ber(
    seq(
      algorithm(OID.sha1),
      octets(createHash('sha1').update(subject).digest()),
      octets(createHash('sha1').update(keyBits).digest()),
      integer(Buffer.from(serialHex, 'hex')),
    ),
  );
}

/** certStatus: good [0], revoked [1] with its time and reason, unknown [2]. */
function certStatus(status: CertificateStatus): Asn {
  if (status.status === 'good') return implicitEmpty(0);
  if (status.status === 'unknown') return implicitEmpty(2);
  return explicit(
    1,
    time(status.at),
    explicit(0, new asn1js.Enumerated({ value: REVOCATION_REASONS[status.reason] })),
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
 * `time` (and repeating the request's nonce extension, as written).
 */
async function ocspResponse(
  signer: StatusSigner,
  requests: OneRequest[],
  time_: Date,
  knownAt: Date,
  nonce?: Uint8Array,
): Promise<Uint8Array> {
  const at = wholeSeconds(time_);
  const { keyBits } = caFacts(signer.ca);
  const responses = requests.map((request) =>
    seq(
      asn1js.fromBER(request.certId).result,
      certStatus(
        request.serial === undefined ? { status: 'unknown' } : signer.statusAt(request.serial, knownAt),
      ),
      time(at),
      explicit(0, time(new Date(at.getTime() + NEXT_UPDATE_MS))),
    ),
  );
  const tbs = seq(
    // responderID byKey [2]: the SHA-1 of the CA's key, as RFC 5019 asks.
    explicit(2, octets(createHash('sha1').update(keyBits).digest())),
    time(at),
    seq(...responses),
    ...(nonce ? [explicit(1, seq(asn1js.fromBER(nonce).result))] : []),
  );
  const basic = await signed(signer, tbs);
  return ber(seq(new asn1js.Enumerated({ value: 0 }), explicit(0, seq(oid(OID.ocspBasic), octets(basic)))));
}

/**
 * The OCSP response a signed copy carries for one of the CA's certificates: what the CA knew at
 * `knownAt` (the completion), dated `time`.
 */
export function ocspResponseFor(
  signer: StatusSigner,
  serialHex: string,
  time_: Date,
  knownAt: Date = time_,
): Promise<Uint8Array> {
  return ocspResponse(signer, [{ certId: certId(signer.ca, serialHex), serial: serialHex }], time_, knownAt);
}

/** OCSPResponse with an error status and no body: malformedRequest (1), internalError (2). */
export const ocspError = (status: 1 | 2) => ber(seq(new asn1js.Enumerated({ value: status })));

const CERT_ID_HASH_OIDS = new Set(Object.keys(CERT_ID_HASHES));
const view = (node: unknown) =>
  Buffer.from((node as { valueBlock: { valueHexView: Uint8Array } }).valueBlock.valueHexView);
const isUniversal = (node: Asn, tagNumber: number) =>
  node.idBlock.tagClass === 1 && node.idBlock.tagNumber === tagNumber;
const isContext = (node: Asn, tagNumber: number) =>
  node.idBlock.tagClass === 3 && node.idBlock.tagNumber === tagNumber;
const items = (node: Asn): Asn[] => {
  const value = (node.valueBlock as { value?: unknown }).value;
  if (!Array.isArray(value)) throw new Error('not constructed');
  return value as Asn[];
};

/** The serial a CertID names when its issuer hashes are this CA's (by the hash it chose). */
function serialFor(ca: Uint8Array, node: Asn): string | undefined {
  const [hashAlgorithm, nameHash, keyHash, serial] = items(node);
  const hashOid = (items(hashAlgorithm!)[0] as asn1js.ObjectIdentifier).valueBlock.toString();
  if (!CERT_ID_HASH_OIDS.has(hashOid) || !serial || !isUniversal(serial, 2)) return undefined;
  const hash = CERT_ID_HASHES[hashOid]!;
  const { subject, keyBits } = caFacts(ca);
  return view(nameHash).equals(createHash(hash).update(subject).digest()) &&
    view(keyHash).equals(createHash(hash).update(keyBits).digest())
    ? view(serial).toString('hex')
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
    const parsed = asn1js.fromBER(body);
    if (parsed.offset === -1 || parsed.offset !== body.length) return ocspError(1);
    const fields = items(items(parsed.result)[0]!);
    const list = fields.find((f) => isUniversal(f, 16));
    if (!list) return ocspError(1);
    requests = items(list).map((request) => {
      const node = items(request)[0]!;
      return { certId: new Uint8Array(node.valueBeforeDecodeView), serial: serialFor(signer.ca, node) };
    });
    if (requests.length === 0 || requests.length > 16) return ocspError(1);
    const extensions = fields.find((f) => isContext(f, 2));
    for (const extension of extensions ? items(items(extensions)[0]!) : []) {
      const id = items(extension)[0] as asn1js.ObjectIdentifier;
      if (id.valueBlock.toString() === OID.ocspNonce) nonce = new Uint8Array(extension.valueBeforeDecodeView);
    }
  } catch {
    // Whatever does not read as a request: malformedRequest, never an error of the sandbox.
    return ocspError(1);
  }
  return ocspResponse(signer, requests, now, knownAt, nonce);
}

/**
 * The CA's CRL dated `time`, listing every revocation recorded by `knownAt`, with its reason
 * (unspecified left out, as RFC 5280 asks).
 */
export async function crlAt(signer: StatusSigner, time_: Date, knownAt: Date = time_): Promise<Uint8Array> {
  const at = wholeSeconds(time_);
  const { subject, keyId } = caFacts(signer.ca);
  const revoked = signer
    .revocationsAt(knownAt)
    .map((r) =>
      seq(
        integer(Buffer.from(r.serial, 'hex')),
        crlTime(new Date(r.at)),
        ...(r.reason === 'unspecified'
          ? []
          : [seq(extension(OID.reasonCode, new asn1js.Enumerated({ value: REVOCATION_REASONS[r.reason] })))]),
      ),
    );
  const tbs = seq(
    small(1),
    algorithm(OID.sha256WithRSA),
    asn1js.fromBER(subject).result,
    crlTime(at),
    crlTime(new Date(at.getTime() + NEXT_UPDATE_MS)),
    ...(revoked.length > 0 ? [seq(...revoked)] : []),
    explicit(
      0,
      seq(
        extension(
          OID.authorityKeyId,
          seq(new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: keyId })),
        ),
        // Its number grows with its time: two CRLs of the same second are the same CRL.
        extension(OID.crlNumber, small(Math.floor(at.getTime() / 1000))),
      ),
    ),
  );
  return signed(signer, tbs);
}
