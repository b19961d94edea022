/**
 * A signature whose /Contents is a CMS SignedData (adbe.pkcs7.detached, ETSI.CAdES.detached,
 * adbe.pkcs7.sha1): every SignerInfo it holds verified, as `openssl cms -verify` does (the digest
 * of the signed bytes, the signature over the signed attributes, the EdDSA digest RFC 8419 pins,
 * SHA-1 as a policy), then the first signer's timestamp, and each signer's chain, purpose and ESS
 * signing certificate at the validation time. Certificates missing from the CMS are looked for
 * in the document's DSS.
 */
import { DerError } from './der.js';
import {
  checkDigest,
  checkSignerSignature,
  checkSigningCertificate,
  digestOf,
  parseSignedData,
  signerCertificate,
  weakDetail,
  type SignedData,
  type SignerInfo,
  type SignedContent,
} from './cms.js';
import { validateChain } from './chain.js';
import { firstFailure, signatureTimestampToken, tokenIntact, verifyTimestampToken } from './timestamp.js';
import type { Steps } from './pdf-budget.js';
import { EDDSA_DIGEST, OID, displayName, type Certificate } from './x509.js';
import { WEAK_HASHES, hashLabel } from './hashes.js';
import type { PdfSignature } from './pdf-signatures.js';
import type { Failure, TokenEvidence, VerifyContext } from './verdicts.js';
import { add, digestSteps, iso, signedContent, type Base, type Ranges } from './signature-base.js';

/** Extended key usages that allow signing documents: e-mail protection (S/MIME), document signing (RFC 9336, Microsoft's, Adobe's), any. */
const SIGNING_EKUS = new Set([
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.36',
  '1.3.6.1.4.1.311.10.3.12',
  '2.5.29.37.0',
  '1.2.840.113583.1.1.5',
]);

/**
 * Whether the signer's certificate is for signing: key usage with
 * digitalSignature or nonRepudiation, and no extended key usage that limits it
 * to something else (a web server's certificate, chaining to a system root,
 * must not sign a contract).
 */
export function signingPurpose(cert: Certificate): { ok: boolean; detail: string } {
  if (cert.keyUsage && !cert.keyUsage.digitalSignature && !cert.keyUsage.nonRepudiation)
    return {
      ok: false,
      detail: "the certificate's key usage allows neither digital signatures nor non-repudiation",
    };
  const eku = cert.extKeyUsage;
  if (eku && !eku.some((p) => SIGNING_EKUS.has(p))) {
    return {
      ok: false,
      detail: `the certificate is for ${eku.includes(OID.serverAuth) ? 'TLS servers' : eku.includes(OID.timeStamping) ? 'timestamping' : 'other purposes'} (extended key usage ${eku.join(', ')}), not for signing documents`,
    };
  }
  return { ok: true, detail: 'the certificate may sign documents' };
}

interface SignerResult {
  signer: SignerInfo;
  cert: Certificate;
  digest: { ok: boolean; detail: string; failure?: Failure };
  signature: { ok: boolean; detail: string; failure?: Failure };
}

/**
 * What the signers sign: the signed bytes, or the content the CMS carries. adbe.pkcs7.sha1 carries
 * the SHA-1 of the signed bytes; any other CMS that carries content must carry exactly the signed
 * bytes (a CMS carrying other bytes, or none, signs something else than this document).
 */
function signedBy(
  data: SignedData,
  signature: PdfSignature,
  signed: SignedContent,
  allowWeak: boolean,
): { content: SignedContent; weak?: string } | { failure: Failure; detail: string } {
  if (signature.subFilter === 'adbe.pkcs7.sha1') {
    const carried = data.content;
    if (!carried)
      return {
        failure: 'broken',
        detail: 'adbe.pkcs7.sha1 without the SHA-1 of the signed bytes in its CMS',
      };
    if (!digestOf(signed, 'sha1').equals(carried))
      return {
        failure: 'broken',
        detail: 'the SHA-1 the CMS carries is not that of the signed bytes: the document changed',
      };
    return allowWeak
      ? { content: carried }
      : { content: carried, weak: weakDetail('sha1', 'signed (adbe.pkcs7.sha1)') };
  }
  if (data.content === undefined) return { content: signed };
  if (data.content.length === 0)
    return {
      failure: 'broken',
      detail: 'the CMS carries an empty content of its own: what it signs is not this document',
    };
  const algorithm = 'sha256';
  if (!digestOf(signed, algorithm).equals(digestOf(data.content, algorithm)))
    return {
      failure: 'broken',
      detail: `the CMS carries content of its own (${data.content.length} bytes) that is not the signed bytes of this document`,
    };
  return { content: data.content };
}

/** One SignerInfo's digest and signature. */
function checkSigner(
  data: SignedData,
  signer: SignerInfo,
  cert: Certificate,
  content: SignedContent,
  allowWeak: boolean,
): SignerResult {
  const digest = checkDigest(data, signer, content, allowWeak);
  const cms = checkSignerSignature(signer, cert, content);
  const required = cms.eddsa ? EDDSA_DIGEST[cms.eddsa] : undefined;
  let signature: SignerResult['signature'];
  if (!cms.supported) signature = { ok: false, failure: 'broken', detail: `not checked: ${cms.algorithm}` };
  else if (!cms.ok)
    signature = {
      ok: false,
      failure: 'broken',
      detail: `the CMS signature does not verify with the signer's certificate (${cms.algorithm})`,
    };
  else if (required && signer.digest !== required)
    signature = {
      ok: false,
      failure: 'broken',
      detail: `${cms.algorithm} signs with ${hashLabel(required)} as its digest (RFC 8419); this signer names ${signer.digest ? hashLabel(signer.digest) : signer.digestOid}`,
    };
  // Weak once: a SHA-1 digest already fails as such, and its signature with SHA-1 need not again.
  else if (cms.weak && !allowWeak && !(signer.digest && WEAK_HASHES.has(signer.digest)))
    signature = { ok: false, failure: 'weak', detail: weakDetail(cms.weak) };
  else signature = { ok: true, detail: `valid (${cms.algorithm}), by ${displayName(cert)}` };
  return { signer, cert, digest, signature };
}

/** The first failure among the signers' results for one check, else the first signer's result (with how many signed). */
function summary(results: SignerResult[], key: 'digest' | 'signature') {
  const failed = results.find((r) => !r[key].ok);
  if (failed) return failed[key];
  const first = results[0]![key];
  return results.length === 1
    ? first
    : { ...first, detail: `${first.detail} (all ${results.length} signers of the CMS verified)` };
}

/** A CMS signature's checks, after its byte ranges; the signed bytes hashed in steps. */
export function* checkCmsSignature(
  ctx: VerifyContext,
  signature: PdfSignature,
  base: Base,
  ranges: Ranges,
  revision: number | null,
): Steps<Base> {
  const meter = ctx.file.meter;
  let data;
  try {
    data = parseSignedData(signature.contents);
  } catch (error) {
    add(
      base,
      'signature',
      false,
      `/Contents is not a CMS signature (${error instanceof DerError ? error.message : 'unreadable'}): the signature is damaged or was never completed`,
    );
    return base;
  }
  if (data.signers.length === 0) {
    add(base, 'signature', false, 'the CMS holds no signer');
    return base;
  }
  const pool = [...data.certificates, ...ctx.extraCertificates];
  const found = data.signers.map((signer) => ({
    signer,
    cert: signerCertificate(data, signer) ?? signerCertificate({ ...data, certificates: pool }, signer),
  }));
  const missing = found.find((f) => !f.cert);
  if (missing) {
    add(
      base,
      'signature',
      false,
      data.unreadable.length > 0
        ? `a certificate the CMS carries is not readable (${data.unreadable[0]}), and the signer's is not among the others: the CMS is badly encoded`
        : "the CMS names a signer whose certificate is neither in it nor in the document's DSS",
    );
    return base;
  }
  base.signer = displayName(found[0]!.cert!);
  const digests = new Map<string, Buffer>();
  // Each hash the signers name, once (adbe.pkcs7.sha1 also needs the SHA-1 of the signed bytes).
  const algorithms = found.map((f) => f.signer.digest);
  if (signature.subFilter === 'adbe.pkcs7.sha1') algorithms.push('sha1');
  for (const algorithm of new Set(algorithms))
    if (algorithm) digests.set(algorithm, yield* digestSteps(ctx.pdf, ranges, algorithm, meter));
  const signed = signedContent(ctx.pdf, ranges, digests);
  const content = signedBy(data, signature, signed, ctx.allowWeak);
  if ('failure' in content) {
    add(base, 'digest', false, content.detail, content.failure);
    return base;
  }
  const results = found.map(({ signer, cert }) =>
    checkSigner(data, signer, cert!, content.content, ctx.allowWeak),
  );
  const digest = summary(results, 'digest');
  if (digest.ok && content.weak) add(base, 'digest', false, content.weak, 'weak');
  else add(base, 'digest', digest.ok, digest.detail, digest.failure);
  const cms = summary(results, 'signature');
  add(base, 'signature', cms.ok, cms.detail, cms.failure);
  const time = signatureTime(ctx, base, results[0]!.signer, revision);
  const at = time.at;
  if (at === null) {
    add(base, 'certificate chain', false, 'no claimed signing time (/M) to validate at');
  } else {
    base.validated_at = iso(at);
    const chains = results.map((r) => validateChain(r.cert, pool, ctx.anchors, at, ctx.allowWeak));
    const chain = chains.find((c) => !c.ok) ?? chains[0]!;
    add(base, 'certificate chain', chain.ok, chain.detail);
    ctx.evidence.set(signature, {
      signer: { leaf: results[0]!.cert, path: chains[0]!.path, at },
      signerProof: time.proof,
      stamp: time.stamp,
    });
  }
  const purposes = results.map((r) => signingPurpose(r.cert));
  const purpose = purposes.find((p) => !p.ok) ?? purposes[0]!;
  add(base, 'certificate purpose', purpose.ok, purpose.detail);
  const cades = signature.subFilter === 'ETSI.CAdES.detached';
  const ess = results.map((r) => checkSigningCertificate(r.signer, r.cert));
  const essFailed = ess.find((e) => e.version !== null && !e.ok);
  if (essFailed) add(base, 'signing certificate', false, essFailed.detail);
  else if (ess[0]!.version === null)
    add(
      base,
      'signing certificate',
      !cades,
      cades
        ? 'ETSI.CAdES.detached without the ESS signing certificate PAdES requires'
        : 'no ESS signing certificate (a plain CMS signature, not PAdES baseline)',
    );
  else add(base, 'signing certificate', true, ess[0]!.detail);
  return base;
}

/** When the signer's chain is validated, what proves that time (in words), and the signature timestamp's evidence. */
interface SignatureTime {
  at: Date | null;
  proof: string | null;
  stamp: TokenEvidence | null;
}

/**
 * The time to validate the chain at, with the signature timestamp's check added: one asked
 * for, else the time a verified signature timestamp proves, else the time a valid document
 * timestamp after the signature proves (PAdES allows one in place of a signature timestamp),
 * else now; null when the claimed time is asked for and there is none. The timestamp's TSA is
 * validated at the time a later document timestamp proves the token existed, else now.
 */
function signatureTime(
  ctx: VerifyContext,
  base: Base,
  signer: SignerInfo,
  revision: number | null,
): SignatureTime {
  const token = signatureTimestampToken(signer.unsigned);
  const proof = ctx.at instanceof Date ? undefined : ctx.proofAfter(revision);
  const stampAt = ctx.at instanceof Date ? ctx.at : (proof?.time ?? ctx.now);
  let at = ctx.at instanceof Date ? ctx.at : ctx.now;
  let proved: string | null = ctx.at instanceof Date ? 'the time asked for' : null;
  let stampEvidence: TokenEvidence | null = null;
  if (token) {
    const stamp = verifyTimestampToken(token, signer.signature, ctx.anchors, stampAt, {
      allowWeak: ctx.allowWeak,
      extraCertificates: ctx.extraCertificates,
    });
    const failed = firstFailure(stamp);
    const time = stamp.genTime ? iso(stamp.genTime) : null;
    stampEvidence = {
      genTime: stamp.genTime,
      ok: stamp.ok,
      intact: tokenIntact(stamp),
      chain: stamp.tsaCertificate ? { leaf: stamp.tsaCertificate, path: stamp.path, at: stampAt } : null,
      proof,
    };
    base.timestamp = {
      time,
      tsa: stamp.tsa,
      valid: stamp.ok,
      detail: failed?.detail ?? `by ${stamp.tsa} at ${time}`,
    };
    if (stamp.ok && stamp.genTime && ctx.at === undefined) {
      at = stamp.genTime;
      proved = `the signature timestamp of ${time}`;
      base.validation_time = 'timestamp';
    }
    add(
      base,
      'timestamp',
      stamp.ok,
      stamp.ok
        ? `by ${stamp.tsa} at ${time}: the signature existed then${ctx.at === undefined ? ', and its chain is validated at that time' : ''}${proof ? `; its TSA's chain at ${iso(proof.time)}, which the document timestamp ${proof.field} proves` : ''}`
        : `the signature timestamp does not verify: ${failed?.detail}`,
      failed?.failure,
    );
  } else {
    const claimed = base.signing_time ? `; /M ${base.signing_time} is claimed by the signer, not proved` : '';
    add(
      base,
      'timestamp',
      true,
      ctx.at === 'claimed'
        ? `none: validated at the time the signer claims (/M), as asked`
        : proof && ctx.at === undefined
          ? `none in the signature; the document timestamp ${proof.field} proves it existed at ${iso(proof.time)}, and its chain is validated at that time`
          : `none (PAdES B-B): the chain is validated at ${ctx.at instanceof Date ? 'the time asked for' : 'the current time'}${claimed}`,
    );
  }
  if (!token && proof && ctx.at === undefined) {
    at = proof.time;
    proved = `the document timestamp ${proof.field} of ${iso(proof.time)}`;
    base.validation_time = 'timestamp';
  }
  if (ctx.at !== 'claimed') return { at, proof: proved, stamp: stampEvidence };
  base.validation_time = 'claimed';
  return {
    at: base.signing_time ? new Date(base.signing_time) : null,
    proof: 'the time the signer claims (/M), as asked',
    stamp: stampEvidence,
  };
}
