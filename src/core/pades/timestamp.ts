/**
 * RFC 3161 timestamp tokens: a TSA's CMS signature over a TSTInfo that says
 * "this hash existed at genTime". Checked in full: the imprint against the
 * bytes it must be the hash of (a signature's value for a signature
 * timestamp, the signed bytes for a document timestamp), the TSA's signature
 * and ESS signing certificate, the timeStamping purpose of its certificate,
 * and its chain to a trusted root.
 */
import { createHash } from 'node:crypto';
import { TAG, encoded, is, octets, oid, readDer, sequence, time, type Der } from './der.js';
import {
  checkDigest,
  checkSignerSignature,
  checkSigningCertificate,
  parseSignedData,
  signerCertificate,
  CMS_OID,
  type SignedContent,
} from './cms.js';
import { validateChain, type TrustAnchors } from './chain.js';
import { HASHES, OID, WEAK_HASHES, displayName, type Certificate } from './x509.js';

export interface TokenCheck {
  ok: boolean;
  detail: string;
}

/** What a token proves and how each part of it checked out. */
export interface TokenVerdict {
  genTime: Date | null;
  tsa: string | null;
  tsaCertificate: Certificate | null;
  imprint: TokenCheck;
  signature: TokenCheck;
  signingCertificate: TokenCheck;
  purpose: TokenCheck;
  chain: TokenCheck;
  ok: boolean;
}

const fail = (detail: string): TokenCheck => ({ ok: false, detail });

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
 * hold, or their digest); the TSA's chain is validated at `at`.
 */
export function verifyTimestampToken(
  token: Uint8Array,
  imprinted: SignedContent,
  anchors: TrustAnchors,
  at: Date,
): TokenVerdict {
  const unreadable = (why: string): TokenVerdict => ({
    genTime: null,
    tsa: null,
    tsaCertificate: null,
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
  const cert = signer ? signerCertificate(data, signer) : undefined;
  const imprint: TokenCheck = !info.hash
    ? fail(`its imprint uses hash ${info.hashOid}, which this check does not know`)
    : WEAK_HASHES.has(info.hash)
      ? fail(`its imprint is ${info.hash}, too weak to trust`)
      : (imprinted instanceof Uint8Array
            ? createHash(info.hash).update(imprinted).digest()
            : imprinted.digest(info.hash)
          ).equals(info.imprint)
        ? { ok: true, detail: `its ${info.hash} imprint matches` }
        : fail(
            `its ${info.hash} imprint is not the hash of what it should timestamp: it stamps something else`,
          );
  if (!signer || !cert || data.signers.length !== 1) {
    const why = 'the token names no signer whose certificate it carries';
    return {
      genTime: info.genTime,
      tsa: null,
      tsaCertificate: null,
      imprint,
      signature: fail(why),
      signingCertificate: fail(why),
      purpose: fail(why),
      chain: fail(why),
      ok: false,
    };
  }
  const digest = checkDigest(data, signer, data.content);
  const cms = checkSignerSignature(signer, cert, data.content);
  const signature: TokenCheck = !digest.ok
    ? fail(`the TSA's message digest does not match its TSTInfo: ${digest.detail}`)
    : cms.ok
      ? { ok: true, detail: `valid, by ${displayName(cert)}` }
      : fail(`the TSA's signature does not verify (${cms.algorithm})`);
  const ess = checkSigningCertificate(signer, cert);
  const signingCertificate: TokenCheck =
    ess.version === null ? fail('no ESS signing certificate (RFC 3161 requires one)') : ess;
  const purpose: TokenCheck = cert.extKeyUsage?.includes(OID.timeStamping)
    ? { ok: true, detail: "the TSA's certificate is for timestamping" }
    : fail("the TSA's certificate is not for timestamping (no timeStamping extended key usage)");
  const path = validateChain(cert, data.certificates, anchors, at);
  const chain: TokenCheck = { ok: path.ok, detail: path.detail };
  return {
    genTime: info.genTime,
    tsa: displayName(cert),
    tsaCertificate: cert,
    imprint,
    signature,
    signingCertificate,
    purpose,
    chain,
    ok: imprint.ok && signature.ok && signingCertificate.ok && purpose.ok && chain.ok,
  };
}

/** The signature timestamp token a signer info carries (unsigned attribute id-aa-timeStampToken), if any. */
export function signatureTimestampToken(unsigned: Map<string, Der[]>): Uint8Array | undefined {
  const token = unsigned.get(CMS_OID.signatureTimeStamp)?.[0];
  return token ? encoded(token) : undefined;
}
