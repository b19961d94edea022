/**
 * CMS SignedData (RFC 5652) as PDF signatures and RFC 3161 timestamp tokens
 * write it: `adbe.pkcs7.detached`, `ETSI.CAdES.detached` and `ETSI.RFC3161`.
 * One signer; its certificate found by issuer and serial or by key
 * identifier; the message digest and content type among its signed
 * attributes; the signature over those attributes checked with node:crypto;
 * the ESS signing certificate (v1 with SHA-1, v2 with the hash it names).
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
  value,
  DerError,
  type Der,
} from './der.js';
import { encode } from './der-write.js';
import { HASHES, WEAK_HASHES, hashLabel, hashOf } from './hashes.js';
import {
  certificateHash,
  parseCertificate,
  sameName,
  verifySignature,
  type Certificate,
  type SignatureCheck,
} from './x509.js';

export const CMS_OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStamp: '1.2.840.113549.1.9.16.2.14',
} as const;

export interface SignerInfo {
  /** Issuer and serial, or the subject key identifier (hex). */
  sid: { issuer: Uint8Array; serial: string } | { keyId: string };
  digestOid: string;
  /** node:crypto's name for the digest, when known. */
  digest: string | undefined;
  /** The [0] IMPLICIT signed attributes as encoded, when present. */
  signedAttrs: Der | undefined;
  signed: Map<string, Der[]>;
  unsigned: Map<string, Der[]>;
  signatureAlgorithm: Der;
  signature: Uint8Array;
}

export interface SignedData {
  contentType: string;
  /** The encapsulated content, when attached (a timestamp token's TSTInfo). */
  content: Uint8Array | undefined;
  certificates: Certificate[];
  /** Why each certificate the CMS carries that could not be read could not be (a signer's may be among them). */
  unreadable: string[];
  /** Its [1] RevocationInfoChoices as encoded (CRLs, OCSP responses), when it carries any: revocation/sources.ts reads them. */
  revocationInfo: Der | undefined;
  signers: SignerInfo[];
}

function attributes(node: Der | undefined): Map<string, Der[]> {
  const map = new Map<string, Der[]>();
  if (!node) return map;
  for (const attribute of children(node)) {
    const [type, values] = sequence(attribute, 'an attribute');
    map.set(oid(type), values ? children(values) : []);
  }
  return map;
}

function signerInfo(node: Der): SignerInfo {
  const parts = sequence(node, 'the signer info');
  const sidNode = parts[1];
  let sid: SignerInfo['sid'];
  if (is(sidNode, 0, 2)) sid = { keyId: Buffer.from(value(sidNode)).toString('hex') };
  else {
    const [issuer, serial] = sequence(sidNode, "the signer's issuer and serial");
    if (!issuer) throw new DerError('no issuer');
    sid = { issuer: encoded(issuer), serial: integerHex(serial) };
  }
  const digestOid = oid(sequence(parts[2], 'the digest algorithm')[0]);
  let i = 3;
  const signedAttrs = is(parts[i], 0, 2) ? parts[i++] : undefined;
  const signatureAlgorithm = parts[i++];
  const signature = octets(parts[i++]);
  const unsignedAttrs = is(parts[i], 1, 2) ? parts[i] : undefined;
  if (!signatureAlgorithm) throw new DerError('no signature algorithm');
  return {
    sid,
    digestOid,
    digest: HASHES[digestOid],
    signedAttrs,
    signed: attributes(signedAttrs),
    unsigned: attributes(unsignedAttrs),
    signatureAlgorithm,
    signature,
  };
}

/** What parseSignedData read, by the bytes it read (their buffer, offset and length): a signature's CMS is read by its check, its timestamp's, and the revocation checks. */
const READ = new WeakMap<ArrayBufferLike, Map<string, SignedData>>();

/**
 * A ContentInfo holding SignedData. PDF writers pad /Contents with zeros:
 * only the first TLV is read. Read once for the same bytes; the result is not to be changed.
 */
export function parseSignedData(bytes: Uint8Array): SignedData {
  let byBuffer = READ.get(bytes.buffer);
  if (!byBuffer) READ.set(bytes.buffer, (byBuffer = new Map<string, SignedData>()));
  const key = `${bytes.byteOffset}:${bytes.length}`;
  let data = byBuffer.get(key);
  if (!data) byBuffer.set(key, (data = readSignedData(bytes)));
  return data;
}

function readSignedData(bytes: Uint8Array): SignedData {
  const [type, content] = sequence(readDer(bytes), 'the CMS');
  if (oid(type) !== CMS_OID.signedData || !content) throw new DerError('not CMS SignedData');
  const parts = sequence(explicit(content), 'the SignedData');
  const [eContentType, eContent] = sequence(parts[2], 'the encapsulated content');
  let i = 3;
  const certificates: Certificate[] = [];
  const unreadable: string[] = [];
  if (is(parts[i], 0, 2)) {
    for (const cert of children(parts[i]!)) {
      // Other certificate formats (attribute certificates) are skipped, not fatal.
      if (!is(cert, TAG.sequence)) continue;
      try {
        certificates.push(parseCertificate(encoded(cert)));
      } catch (error) {
        // An unreadable extra certificate cannot be the signer's; the signer's absence is reported, with this.
        unreadable.push(error instanceof DerError ? error.message : 'unreadable');
      }
    }
    i++;
  }
  const revocationInfo = is(parts[i], 1, 2) ? parts[i++] : undefined;
  const signers = parts[i] ? children(parts[i]!).map(signerInfo) : [];
  return {
    contentType: oid(eContentType),
    content: eContent ? octets(explicit(eContent)) : undefined,
    certificates,
    unreadable,
    revocationInfo,
    signers,
  };
}

/** The certificate the signer info names, among those the CMS carries. */
export function signerCertificate(data: SignedData, signer: SignerInfo): Certificate | undefined {
  const sid = signer.sid;
  if ('keyId' in sid) return data.certificates.find((c) => c.subjectKeyId === sid.keyId);
  return data.certificates.find((c) => c.serial === sid.serial && sameName(c.issuer, sid.issuer));
}

export interface DigestCheck {
  ok: boolean;
  detail: string;
  /** Why it failed: the digest does not match (broken), or it matches with a weak hash (weak). */
  failure?: 'broken' | 'weak';
}

/** What a weak hash that verifies is told as. */
export const weakDetail = (hash: string, what = 'signed') =>
  `${what} with ${hashLabel(hash)}, a weak algorithm: not accepted; the bytes are intact`;

/**
 * What a signature signed: its bytes, or (for the bytes of a large file, hashed in steps
 * elsewhere) their digest with a hash algorithm, and the bytes themselves when asked.
 */
export type SignedContent = Uint8Array | { digest(algorithm: string): Buffer; bytes(): Uint8Array };

export const digestOf = (content: SignedContent, algorithm: string): Buffer =>
  content instanceof Uint8Array ? hashOf(algorithm, content) : content.digest(algorithm);

/**
 * The signed attributes' message digest against the digest of `content`, and their content type.
 * A weak hash (SHA-1) is computed all the same: a match fails as a policy (`weak`) unless
 * `allowWeak`, a mismatch as any other (`broken`).
 */
export function checkDigest(
  data: SignedData,
  signer: SignerInfo,
  content: SignedContent,
  allowWeak = false,
): DigestCheck {
  let check: DigestCheck;
  try {
    check = compareDigest(data, signer, content);
  } catch {
    return {
      ok: false,
      failure: 'broken',
      detail: 'the signed attributes are not readable (their message digest or content type is malformed)',
    };
  }
  if (check.ok && signer.digest && WEAK_HASHES.has(signer.digest) && !allowWeak)
    return { ok: false, failure: 'weak', detail: weakDetail(signer.digest) };
  return check;
}

function compareDigest(data: SignedData, signer: SignerInfo, content: SignedContent): DigestCheck {
  const algorithm = signer.digest;
  if (!algorithm)
    return { ok: false, failure: 'broken', detail: `digest algorithm ${signer.digestOid} is not supported` };
  const actual = digestOf(content, algorithm);
  if (!signer.signedAttrs)
    return { ok: true, detail: `${algorithm}, signed directly (no signed attributes)` };
  const stated = signer.signed.get(CMS_OID.messageDigest)?.[0];
  if (!stated)
    return { ok: false, failure: 'broken', detail: 'no message digest among the signed attributes' };
  const type = signer.signed.get(CMS_OID.contentType)?.[0];
  if (type && oid(type) !== data.contentType)
    return { ok: false, failure: 'broken', detail: "the signed content type is not the content's" };
  return actual.equals(octets(stated))
    ? { ok: true, detail: `${algorithm} of the signed bytes matches` }
    : {
        ok: false,
        failure: 'broken',
        detail: `${algorithm} of the signed bytes differs from the one signed: the document changed`,
      };
}

/** The signature over the signed attributes (as a SET, RFC 5652 5.4), or over the content when there are none. */
export function checkSignerSignature(
  signer: SignerInfo,
  cert: Certificate,
  content: SignedContent,
): SignatureCheck {
  const data = signer.signedAttrs
    ? encode(0x31, value(signer.signedAttrs))
    : content instanceof Uint8Array
      ? content
      : content.bytes();
  return verifySignature(signer.signatureAlgorithm, cert.spki, data, signer.signature, signer.digest);
}

export interface EssCheck {
  /** Which attribute was found: v2, v1, or none. */
  version: 2 | 1 | null;
  ok: boolean;
  detail: string;
}

/**
 * The ESS signing certificate (RFC 2634 v1, RFC 5035 v2): its first entry must
 * be the hash of the certificate that signed (and its serial, when it names one).
 */
export function checkSigningCertificate(signer: SignerInfo, cert: Certificate): EssCheck {
  const v2 = signer.signed.get(CMS_OID.signingCertificateV2)?.[0];
  const v1 = signer.signed.get(CMS_OID.signingCertificate)?.[0];
  const attribute = v2 ?? v1;
  if (!attribute) return { version: null, ok: true, detail: 'no ESS signing certificate' };
  const version = v2 ? 2 : 1;
  const name = `ESS signing-certificate${v2 ? '-v2' : ''}`;
  try {
    const first = sequence(sequence(attribute, 'the signing certificate')[0], 'its certificates')[0];
    const fields = sequence(first, 'the first certificate reference');
    let i = 0;
    let algorithm = v2 ? 'sha256' : 'sha1';
    if (v2 && is(fields[0], TAG.sequence)) {
      const id = oid(sequence(fields[0], 'the hash algorithm')[0]);
      const known = HASHES[id];
      if (!known)
        return { version, ok: false, detail: `${name} uses hash ${id}, which this check does not know` };
      algorithm = known;
      i = 1;
    }
    const hash = octets(fields[i]);
    const issuerSerial = fields[i + 1];
    if (!certificateHash(cert, algorithm).equals(hash))
      return {
        version,
        ok: false,
        detail: `${name} (${algorithm}) names another certificate than the one that signed`,
      };
    if (issuerSerial) {
      const serial = integerHex(sequence(issuerSerial, 'the issuer and serial')[1]);
      if (serial !== cert.serial)
        return {
          version,
          ok: false,
          detail: `${name} names another serial number than the signer's certificate`,
        };
    }
    return { version, ok: true, detail: `${name} (${algorithm}) names the signer's certificate` };
  } catch {
    return { version, ok: false, detail: `${name} is not readable` };
  }
}
