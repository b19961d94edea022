/**
 * The checks of one signature's own bytes: its /Contents and byte ranges (signature-base.ts), then
 * its value by its kind (cms-signature.ts, legacy-signatures.ts); a document timestamp's token
 * here. What later revisions changed is verify.ts's part.
 */
import { imprintHash, firstFailure, tokenIntact, verifyTimestampToken } from './timestamp.js';
import type { Steps } from './pdf-budget.js';
import type { PdfSignature } from './pdf-signatures.js';
import { checkCmsSignature } from './cms-signature.js';
import { checkX509Signature } from './legacy-signatures.js';
import type { VerifyContext } from './verdicts.js';
import {
  add,
  byteRange,
  contentsTooLarge,
  digestSteps,
  iso,
  newBase,
  signedContent,
  type Base,
} from './signature-base.js';

export type { Base } from './signature-base.js';

/**
 * A signature's checks: its /Contents and byte ranges here, then its value by its kind: a CMS
 * (adbe.pkcs7.detached, ETSI.CAdES.detached, adbe.pkcs7.sha1; cms-signature.ts) or a bare
 * PKCS#1 signature with its certificates in /Cert (adbe.x509.rsa_sha1; legacy-signatures.ts).
 */
export function* checkSignature(
  ctx: VerifyContext,
  signature: PdfSignature,
  revision: number | null,
): Steps<Base> {
  const base = newBase(signature, ctx);
  const meter = ctx.file.meter;
  const tooLarge = contentsTooLarge(signature, meter);
  if (tooLarge) {
    add(base, 'signature', false, tooLarge);
    return base;
  }
  const range = byteRange(ctx.pdf, signature);
  base.checks.push(range.check);
  if (!range.ranges) return base;
  if (signature.subFilter === 'adbe.x509.rsa_sha1')
    return yield* checkX509Signature(ctx, signature, base, range.ranges);
  return yield* checkCmsSignature(ctx, signature, base, range.ranges, revision);
}

/**
 * A document timestamp (ETSI.RFC3161): an RFC 3161 token over the signed bytes, hashed in steps.
 * Its TSA's chain is validated at the time a later document timestamp proves it existed, else
 * now (or the time asked for).
 */
export function* checkDocumentTimestamp(
  ctx: VerifyContext,
  signature: PdfSignature,
  revision: number | null,
): Steps<Base> {
  const base = newBase(signature, ctx);
  const meter = ctx.file.meter;
  const tooLarge = contentsTooLarge(signature, meter);
  if (tooLarge) {
    add(base, 'signature', false, tooLarge);
    return base;
  }
  const range = byteRange(ctx.pdf, signature);
  base.checks.push(range.check);
  if (!range.ranges) return base;
  const proof = ctx.at instanceof Date ? undefined : ctx.proofAfter(revision);
  const at = ctx.at instanceof Date ? ctx.at : (proof?.time ?? ctx.now);
  if (proof) {
    base.validated_at = iso(proof.time);
    base.validation_time = 'timestamp';
  }
  const digests = new Map<string, Buffer>();
  const hash = imprintHash(signature.contents);
  if (hash) digests.set(hash, yield* digestSteps(ctx.pdf, range.ranges, hash, meter));
  const stamp = verifyTimestampToken(
    signature.contents,
    signedContent(ctx.pdf, range.ranges, digests),
    ctx.anchors,
    at,
    { allowWeak: ctx.allowWeak, extraCertificates: ctx.extraCertificates },
  );
  ctx.evidence.set(signature, {
    signer: null,
    signerProof: null,
    stamp: {
      genTime: stamp.genTime,
      ok: stamp.ok,
      intact: tokenIntact(stamp),
      chain: stamp.tsaCertificate ? { leaf: stamp.tsaCertificate, path: stamp.path, at } : null,
      proof,
    },
  });
  base.signer = stamp.tsa;
  base.signing_time = stamp.genTime ? iso(stamp.genTime) : base.signing_time;
  const failed = firstFailure(stamp);
  base.timestamp = {
    time: stamp.genTime ? iso(stamp.genTime) : null,
    tsa: stamp.tsa,
    valid: stamp.ok,
    detail: failed?.detail ?? `by ${stamp.tsa}`,
  };
  add(
    base,
    'digest',
    stamp.imprint.ok,
    stamp.imprint.ok ? `${stamp.imprint.detail} the signed bytes` : stamp.imprint.detail,
    stamp.imprint.failure,
  );
  add(base, 'signature', stamp.signature.ok, stamp.signature.detail, stamp.signature.failure);
  add(
    base,
    'certificate chain',
    stamp.chain.ok,
    proof && stamp.chain.ok
      ? `${stamp.chain.detail}, at ${iso(proof.time)}, which the document timestamp ${proof.field} proves`
      : stamp.chain.detail,
    stamp.chain.failure,
  );
  add(base, 'certificate purpose', stamp.purpose.ok, stamp.purpose.detail, stamp.purpose.failure);
  add(
    base,
    'signing certificate',
    stamp.signingCertificate.ok,
    stamp.signingCertificate.detail,
    stamp.signingCertificate.failure,
  );
  return base;
}
