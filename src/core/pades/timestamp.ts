/**
 * RFC 3161 timestamp tokens: a TSA's CMS signature over a TSTInfo that says
 * "this hash existed at genTime". Checked in full: the imprint against the
 * bytes it must be the hash of (a signature's value for a signature
 * timestamp, the signed bytes for a document timestamp), the TSA's signature
 * and ESS signing certificate, the timeStamping purpose of its certificate,
 * and its chain to a trusted root.
 */
import { TAG, encoded, is, octets, oid, readDer, sequence, time, type Der } from './der.js';
import {
  checkDigest,
  checkSignerSignature,
  checkSigningCertificate,
  parseSignedData,
  signerCertificate,
  CMS_OID,
  digestOf,
  weakDetail,
  type SignedContent,
} from './cms.js';
import { validateChain, type TrustAnchors } from './chain.js';
import { OID, displayName, type Certificate } from './x509.js';
import { HASHES, WEAK_HASHES } from './hashes.js';
import type { Failure } from './verdicts.js';

export interface TokenCheck {
  ok: boolean;
  detail: string;
  failure?: Failure;
}

/** What a token's checks may use besides the token: weak hashes allowed, and certificates the document carries (its DSS). */
export interface TokenOptions {
  allowWeak?: boolean;
  extraCertificates?: Certificate[];
}

/** What a token proves and how each part of it checked out. */
export interface TokenVerdict {
  genTime: Date | null;
  tsa: string | null;
  tsaCertificate: Certificate | null;
  /** The TSA's validated path (its certificate first), or empty when none was found. */
  path: Certificate[];
  imprint: TokenCheck;
  signature: TokenCheck;
  signingCertificate: TokenCheck;
  purpose: TokenCheck;
  chain: TokenCheck;
  ok: boolean;
}

const fail = (detail: string, failure: Failure = 'broken'): TokenCheck => ({ ok: false, detail, failure });

/** A TSTInfo's time and imprint. */
function tstInfo(content: Uint8Array): {
  genTime: Date;
  hash: string | undefined;
  hashOid: string;
  imprint: Uint8Array;
} {
  const fields = sequence(readDer(content), 'the TSTInfo');
  const [algorithm, hashed] = sequence(fields[2], 'the message imprint');
  const hashOid = oid(sequence(algorithm, "the imprint's hash")[0]);
  const genTime = fields.find((f: Der) => is(f, TAG.generalizedTime));
  return { genTime: time(genTime), hash: HASHES[hashOid], hashOid, imprint: octets(hashed) };
}

/** The hash algorithm (node:crypto's name) of the token's imprint, when it reads and is known: what to hash the stamped bytes with. */
export function imprintHash(token: Uint8Array): string | undefined {
  try {
    const data = parseSignedData(token);
    return data.content ? tstInfo(data.content).hash : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks `token` as a timestamp of `imprinted` (the bytes whose hash it must
 * hold, or their digest); the TSA's chain is validated at `at`. The TSA's
 * certificate is looked for in the token, then among `extraCertificates`.
 */
export function verifyTimestampToken(
  token: Uint8Array,
  imprinted: SignedContent,
  anchors: TrustAnchors,
  at: Date,
  options: TokenOptions = {},
): TokenVerdict {
  const unreadable = (why: string): TokenVerdict => ({
    genTime: null,
    tsa: null,
    tsaCertificate: null,
    path: [],
    imprint: fail(why),
    signature: fail(why),
    signingCertificate: fail(why),
    purpose: fail(why),
    chain: fail(why),
    ok: false,
  });
  let data;
  let info;
  try {
    data = parseSignedData(token);
    if (data.contentType !== CMS_OID.tstInfo || !data.content)
      return unreadable('the token holds no TSTInfo: not an RFC 3161 timestamp');
    info = tstInfo(data.content);
  } catch (error) {
    return unreadable(`the timestamp token is not readable (${(error as Error).message})`);
  }
  const signer = data.signers[0];
  const extra = options.extraCertificates ?? [];
  const cert = signer
    ? (signerCertificate(data, signer) ?? signerCertificate({ ...data, certificates: extra }, signer))
    : undefined;
  const imprint: TokenCheck = !info.hash
    ? fail(`its imprint uses hash ${info.hashOid}, which this check does not know`)
    : !digestOf(imprinted, info.hash).equals(info.imprint)
      ? fail(`its ${info.hash} imprint is not the hash of what it should timestamp: it stamps something else`)
      : WEAK_HASHES.has(info.hash) && !options.allowWeak
        ? fail(`its imprint is ${weakDetail(info.hash, 'made')}`, 'weak')
        : { ok: true, detail: `its ${info.hash} imprint matches` };
  if (!signer || !cert || data.signers.length !== 1) {
    // A token whose TSA certificate is nowhere cannot be checked: that is not a broken one.
    const why =
      signer && data.signers.length === 1
        ? "the TSA's certificate is neither in the token nor in the document's DSS: the timestamp cannot be checked"
        : 'the token names no signer whose certificate it carries';
    const failure: Failure = signer && data.signers.length === 1 ? 'unverifiable' : 'broken';
    return {
      genTime: info.genTime,
      tsa: null,
      tsaCertificate: null,
      path: [],
      imprint,
      signature: fail(why, failure),
      signingCertificate: fail(why, failure),
      purpose: fail(why, failure),
      chain: fail(why, failure),
      ok: false,
    };
  }
  const digest = checkDigest(data, signer, data.content, options.allowWeak);
  const cms = checkSignerSignature(signer, cert, data.content);
  const signature: TokenCheck = !digest.ok
    ? digest.failure === 'weak'
      ? fail(`the TSA ${digest.detail}`, 'weak')
      : fail(`the TSA's message digest does not match its TSTInfo: ${digest.detail}`)
    : !cms.ok
      ? fail(`the TSA's signature does not verify (${cms.algorithm})`)
      : cms.weak && !options.allowWeak
        ? fail(`the TSA ${weakDetail(cms.weak)}`, 'weak')
        : { ok: true, detail: `valid, by ${displayName(cert)}` };
  const ess = checkSigningCertificate(signer, cert);
  const signingCertificate: TokenCheck =
    ess.version === null
      ? fail('no ESS signing certificate (RFC 3161 requires one)')
      : ess.ok
        ? ess
        : fail(ess.detail);
  const purpose: TokenCheck = cert.extKeyUsage?.includes(OID.timeStamping)
    ? { ok: true, detail: "the TSA's certificate is for timestamping" }
    : fail("the TSA's certificate is not for timestamping (no timeStamping extended key usage)", 'untrusted');
  const path = validateChain(cert, [...data.certificates, ...extra], anchors, at, options.allowWeak);
  const chain: TokenCheck = path.ok ? { ok: true, detail: path.detail } : fail(path.detail, 'untrusted');
  return {
    genTime: info.genTime,
    tsa: displayName(cert),
    tsaCertificate: cert,
    path: path.path,
    imprint,
    signature,
    signingCertificate,
    purpose,
    chain,
    ok: imprint.ok && signature.ok && signingCertificate.ok && purpose.ok && chain.ok,
  };
}

/**
 * Whether a token is there as a timestamp, whoever signed it: its imprint and signature are not
 * broken (they verify, or verify with a weak hash, or its TSA's certificate is missing). What a
 * PAdES level counts.
 */
export const tokenIntact = (verdict: TokenVerdict): boolean =>
  verdict.genTime !== null && verdict.imprint.failure !== 'broken' && verdict.signature.failure !== 'broken';

/** The first of a token's checks that failed, in the order they matter. */
export function firstFailure(verdict: TokenVerdict): TokenCheck | undefined {
  return [
    verdict.imprint,
    verdict.signature,
    verdict.signingCertificate,
    verdict.purpose,
    verdict.chain,
  ].find((c) => !c.ok);
}

/** The signature timestamp token a signer info carries (unsigned attribute id-aa-timeStampToken), if any. */
export function signatureTimestampToken(unsigned: Map<string, Der[]>): Uint8Array | undefined {
  const token = unsigned.get(CMS_OID.signatureTimeStamp)?.[0];
  return token ? encoded(token) : undefined;
}
