/**
 * Offline verification of the signatures of a PDF (PAdES / PDF CMS
 * signatures), as `envelopes verify` reports it: for each signature, whether
 * its byte ranges are well formed, whether the digest of the bytes it covers
 * matches the one it signed, whether the CMS signature holds, whether the
 * signer's certificate chains to a trusted root at the signing time, whether
 * the ESS signing certificate binds it, and whether it covers the whole file
 * (else the file was modified after signing). pkijs does the CMS and the
 * chain, with node's Web Crypto underneath; nothing here parses ASN.1 by hand.
 * Not checked: revocation (OCSP, CRL), timestamps and long-term validation.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { findSignatures, type PdfSignature } from './pdf-signatures.js';
import { pemToDer, usePkijsWithNodeCrypto } from './web-crypto.js';

usePkijsWithNodeCrypto(pkijs);

const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const OID_COMMON_NAME = '2.5.4.3';
const DIGESTS: Record<string, string> = { '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

export type CheckName = 'byte range' | 'digest' | 'signature' | 'certificate chain' | 'certificate purpose' | 'signing certificate' | 'signing time' | 'whole file';

export interface CheckResult {
  check: CheckName;
  ok: boolean;
  detail: string;
}

export interface SignatureVerdict {
  field: string;
  /** The signer certificate's common name (else its whole subject), when the CMS could be read. */
  signer: string | null;
  /** /M of the signature dictionary, as ISO 8601 when it parses. */
  signing_time: string | null;
  sub_filter: string | null;
  checks: CheckResult[];
  valid: boolean;
}

export interface PdfVerdict {
  bytes: number;
  sha256: string;
  signatures: SignatureVerdict[];
  /** Bytes after the last signature's range: something was appended after signing. */
  modified_after_signing: boolean;
  valid: boolean;
}

export interface VerifyOptions {
  /** Extra trusted roots, DER (`--trust`). */
  trusted?: Uint8Array[];
  /** Node's bundled roots too (default true). */
  systemRoots?: boolean;
}

let systemRoots: pkijs.Certificate[] | undefined;

/**
 * The roots Node trusts: its bundled (Mozilla) roots and NODE_EXTRA_CA_CERTS,
 * plus the operating system's store where this Node can read it
 * (tls.getCACertificates, Node 22.15+ and 23.5+); on older Nodes, the bundled ones.
 */
function trustedRootsPem(): string[] {
  const tls = process.getBuiltinModule('node:tls') as typeof import('node:tls') & { getCACertificates?: (type?: 'default' | 'system') => string[] };
  if (typeof tls.getCACertificates !== 'function') return [...tls.rootCertificates];
  let system: string[] = [];
  try {
    system = tls.getCACertificates('system');
  } catch {
    // No readable system store (a minimal container): the default set stands.
  }
  return [...new Set([...tls.getCACertificates('default'), ...system])];
}

/** D:YYYYMMDDHHmmSS[Z|+HH'mm'] as ISO 8601; null when it is not a PDF date. */
export function pdfDate(value: string | null): string | null {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value ?? '');
  if (!m) return null;
  const zone = !m[7] || m[7] === 'Z' ? 'Z' : `${m[7].slice(0, 3)}:${m[7].replace(/'/g, '').slice(3, 5)}`;
  const date = new Date(`${m[1]}-${m[2] ?? '01'}-${m[3] ?? '01'}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}${zone}`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const OID_KEY_USAGE = '2.5.29.15';
const OID_EXTENDED_KEY_USAGE = '2.5.29.37';
/** Extended key usages that allow signing documents: e-mail protection (S/MIME), document signing (RFC 9336, Microsoft's), any. */
const SIGNING_EKUS = new Set(['1.3.6.1.5.5.7.3.4', '1.3.6.1.5.5.7.3.36', '1.3.6.1.4.1.311.10.3.12', '2.5.29.37.0', '1.2.840.113583.1.1.5']);

/**
 * Whether the signer's certificate is for signing: key usage with
 * digitalSignature or nonRepudiation, and no extended key usage that limits it
 * to something else (a web server's certificate, chaining to a system root,
 * must not sign a contract).
 */
function signingPurpose(certificate: pkijs.Certificate): { ok: boolean; detail: string } {
  const extension = (oid: string) => certificate.extensions?.find((e) => e.extnID === oid);
  const keyUsage = extension(OID_KEY_USAGE)?.parsedValue as asn1js.BitString | undefined;
  if (keyUsage instanceof asn1js.BitString) {
    const bits = new Uint8Array(keyUsage.valueBlock.valueHexView);
    // digitalSignature is bit 0, nonRepudiation (contentCommitment) bit 1: the two high bits of the first byte.
    if (((bits[0] ?? 0) & 0xc0) === 0) return { ok: false, detail: 'the certificate\'s key usage allows neither digital signatures nor non-repudiation' };
  }
  const eku = extension(OID_EXTENDED_KEY_USAGE)?.parsedValue as { keyPurposes?: string[] } | undefined;
  if (eku?.keyPurposes && !eku.keyPurposes.some((p) => SIGNING_EKUS.has(p))) {
    return { ok: false, detail: `the certificate is for ${eku.keyPurposes.includes('1.3.6.1.5.5.7.3.1') ? 'TLS servers' : 'other purposes'} (extended key usage ${eku.keyPurposes.join(', ')}), not for signing documents` };
  }
  return { ok: true, detail: 'the certificate may sign documents' };
}

function commonName(certificate: pkijs.Certificate): string {
  const rdns = certificate.subject.typesAndValues;
  const cn = rdns.find((t) => t.type === OID_COMMON_NAME);
  const valueOf = (t: pkijs.AttributeTypeAndValue) => String((t.value.valueBlock as { value?: unknown }).value ?? '');
  return cn ? valueOf(cn) : rdns.map(valueOf).join(', ');
}

async function verifySignature(pdf: Uint8Array, signature: PdfSignature, trusted: pkijs.Certificate[], isLast: boolean): Promise<SignatureVerdict> {
  const checks: CheckResult[] = [];
  const add = (check: CheckName, ok: boolean, detail: string) => checks.push({ check, ok, detail });
  const signingTime = pdfDate(signature.signingTime);
  const verdict = (signer: string | null): SignatureVerdict => ({
    field: signature.field,
    signer,
    signing_time: signingTime,
    sub_filter: signature.subFilter,
    checks,
    valid: checks.every((c) => c.ok),
  });

  const [start1, length1, start2, length2] = signature.byteRange;
  const wellFormed =
    signature.byteRange.length === 4 && signature.byteRange.every((n) => Number.isInteger(n) && n >= 0) && start1 === 0 && start2! > length1! && start2! + length2! <= pdf.length &&
    pdf[length1!] === 0x3c && pdf[start2! - 1] === 0x3e;
  // The one gap must be exactly this signature's /Contents: anything else there (objects, another
  // /ByteRange) would be unsigned content a reader shows.
  const gap = wellFormed ? Buffer.from(pdf.subarray(length1! + 1, start2! - 1)).toString('latin1').replace(/\s+/g, '').toLowerCase() : '';
  if (!wellFormed || gap !== Buffer.from(signature.contents).toString('hex')) {
    add('byte range', false, `[${signature.byteRange.join(' ')}] ${wellFormed ? 'leaves out more than the signature\'s /Contents: unsigned content in the file' : 'does not cover the file around the signature\'s /Contents'}`);
    return verdict(null);
  }
  add('byte range', true, `[${signature.byteRange.join(' ')}]: everything but the signature itself`);
  const signed = Buffer.concat([pdf.subarray(0, length1), pdf.subarray(start2, start2! + length2!)]);

  let signedData: pkijs.SignedData;
  try {
    const parsed = asn1js.fromBER(signature.contents);
    if (parsed.offset === -1) throw new Error(parsed.result.error);
    signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(signature.contents.subarray(0, parsed.offset)).content });
  } catch (error) {
    add('signature', false, `/Contents is not a CMS signature: ${(error as Error).message}`);
    return verdict(null);
  }
  if (signedData.signerInfos.length !== 1) {
    add('signature', false, `the CMS has ${signedData.signerInfos.length} signers; a PDF signature has one`);
    return verdict(null);
  }
  const info = signedData.signerInfos[0];
  const certificates = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const signerCert = certificates.find((c) => info?.sid instanceof pkijs.IssuerAndSerialNumber && c.serialNumber.isEqual(info.sid.serialNumber) && c.issuer.isEqual(info.sid.issuer));
  if (!info || !signerCert) {
    add('signature', false, "the CMS names no signer whose certificate it carries");
    return verdict(null);
  }

  const algorithm = DIGESTS[info.digestAlgorithm.algorithmId];
  const stated = info.signedAttrs?.attributes.find((a) => a.type === OID_MESSAGE_DIGEST)?.values[0];
  const digest = algorithm ? createHash(algorithm).update(signed).digest() : undefined;
  const statedBytes = stated instanceof asn1js.OctetString ? Buffer.from(stated.valueBlock.valueHexView) : undefined;
  add('digest', digest !== undefined && statedBytes !== undefined && digest.equals(statedBytes),
    !algorithm ? `digest algorithm ${info.digestAlgorithm.algorithmId} is not SHA-2` : !statedBytes ? 'no message digest among the signed attributes' : digest!.equals(statedBytes) ? `${algorithm} of the signed bytes matches` : `${algorithm} of the signed bytes differs from the one signed: the document changed`);

  let cms = false;
  try {
    const data = signed.buffer.slice(signed.byteOffset, signed.byteOffset + signed.byteLength) as ArrayBuffer;
    const result = await signedData.verify({ signer: 0, data, checkChain: false, extendedMode: true });
    cms = result.signatureVerified === true;
  } catch {
    cms = false;
  }
  add('signature', cms, cms ? `valid, by ${commonName(signerCert)}` : 'the CMS signature does not verify with the signer\'s certificate');

  const checkDate = signingTime ? new Date(signingTime) : new Date();
  try {
    // The engine validates the last certificate it is given: the one that signed, whatever else the CMS carries.
    const engine = new pkijs.CertificateChainValidationEngine({ trustedCerts: trusted, certs: [...certificates.filter((c) => c !== signerCert), signerCert], checkDate });
    const chain = await engine.verify();
    add('certificate chain', chain.result, chain.result ? `to a trusted root (${commonName(chain.certificatePath?.at(-1) ?? signerCert)})` : `not to a trusted root: ${chain.resultMessage} (the issuer's CA is not among the trusted certificates)`);
  } catch (error) {
    add('certificate chain', false, `not checked: ${(error as Error).message}`);
  }

  const purpose = signingPurpose(signerCert);
  add('certificate purpose', purpose.ok, purpose.detail);

  const essAttribute = info.signedAttrs?.attributes.find((a) => a.type === OID_SIGNING_CERTIFICATE_V2);
  const cades = signature.subFilter === 'ETSI.CAdES.detached';
  if (!essAttribute) {
    add('signing certificate', !cades, cades ? 'ETSI.CAdES.detached without the ESS signing-certificate-v2 PAdES requires' : 'no ESS signing-certificate-v2 (a plain CMS signature, not PAdES baseline)');
  } else {
    const certHash = createHash('sha256').update(Buffer.from(signerCert.toSchema().toBER(false))).digest();
    // SigningCertificateV2 ::= SEQUENCE { certs SEQUENCE OF ESSCertIDv2 { hashAlgorithm DEFAULT sha256, certHash OCTET STRING, … } }
    const children = (value: unknown): unknown[] => (value instanceof asn1js.Sequence ? value.valueBlock.value : []);
    const first = children(children(essAttribute.values[0])[0])[0];
    const hash = children(first).find((v): v is asn1js.OctetString => v instanceof asn1js.OctetString);
    const matches = hash !== undefined && certHash.equals(Buffer.from(hash.valueBlock.valueHexView));
    add('signing certificate', matches, matches ? 'ESS signing-certificate-v2 names the signer\'s certificate' : hash ? 'ESS signing-certificate-v2 names another certificate' : 'ESS signing-certificate-v2 is not readable');
  }

  if (signingTime) {
    const at = new Date(signingTime);
    const inside = at >= signerCert.notBefore.value && at <= signerCert.notAfter.value;
    add('signing time', inside, inside ? `${signingTime} (as the signer states it; no timestamp), within the certificate's validity` : `${signingTime} is outside the certificate's validity (${signerCert.notBefore.value.toISOString()} to ${signerCert.notAfter.value.toISOString()})`);
  } else add('signing time', false, 'the signature dictionary states no signing time (/M)');

  const end = start2! + length2!;
  if (isLast) add('whole file', end === pdf.length, end === pdf.length ? 'the signature covers the whole file' : `modified after signing: ${pdf.length - end} bytes were appended after the signed revision`);
  else add('whole file', true, 'covers an earlier revision; a later signature covers what was added');
  return verdict(commonName(signerCert));
}

/** Whether DER bytes are one X.509 certificate. */
export function isCertificate(der: Uint8Array): boolean {
  try {
    pkijs.Certificate.fromBER(der);
    return true;
  } catch {
    return false;
  }
}

/** Every signature of the PDF, checked; NotAPdfError (pdf-signatures.ts) when the bytes are not a readable PDF. */
export async function verifyPdf(pdf: Uint8Array, options: VerifyOptions = {}): Promise<PdfVerdict> {
  const signatures = await findSignatures(pdf);
  if (options.systemRoots !== false) systemRoots ??= trustedRootsPem().flatMap((pem) => {
    try {
      return [pkijs.Certificate.fromBER(pemToDer(pem))];
    } catch {
      return [];
    }
  });
  const trusted = [...(options.trusted ?? []).map((der) => pkijs.Certificate.fromBER(der)), ...(options.systemRoots === false ? [] : systemRoots ?? [])];
  // The last signature is the one whose range ends furthest into the file.
  const ends = signatures.map((s) => (s.byteRange[2] ?? 0) + (s.byteRange[3] ?? 0));
  const last = ends.indexOf(Math.max(...ends));
  const verdicts: SignatureVerdict[] = [];
  for (const [i, signature] of signatures.entries()) verdicts.push(await verifySignature(pdf, signature, trusted, i === last));
  const appended = signatures.length > 0 && ends[last]! < pdf.length;
  return {
    bytes: pdf.length,
    sha256: createHash('sha256').update(pdf).digest('hex'),
    signatures: verdicts,
    modified_after_signing: appended,
    valid: verdicts.length > 0 && verdicts.every((v) => v.valid),
  };
}
