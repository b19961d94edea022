/**
 * The checks of one signature's own bytes: its byte ranges, its CMS (digest,
 * signature, signing certificate), its signature timestamp, and its
 * certificate's chain and purpose at the validation time; or, for a document
 * timestamp, the token over the signed bytes. What later revisions changed is
 * verify.ts's part.
 */
import { createHash } from 'node:crypto';
import { DerError } from './der.js';
import {
  checkDigest,
  checkSignerSignature,
  checkSigningCertificate,
  parseSignedData,
  signerCertificate,
  type SignedContent,
} from './cms.js';
import { validateChain } from './chain.js';
import { imprintHash, signatureTimestampToken, verifyTimestampToken } from './timestamp.js';
import { COST, type Meter, type Steps } from './pdf-budget.js';
import { OID, displayName, type Certificate } from './x509.js';
import { pdfDate, type PdfSignature } from './pdf-signatures.js';
import type {
  CheckName,
  CheckResult,
  SignatureVerdict,
  TimestampVerdict,
  VerifyContext,
} from './verdicts.js';

type Base = Omit<SignatureVerdict, 'type' | 'revision' | 'docmdp' | 'changes_after' | 'valid'>;

/** Extended key usages that allow signing documents: e-mail protection (S/MIME), document signing (RFC 9336, Microsoft's, Adobe's), any. */
const SIGNING_EKUS = new Set([
  '1.3.6.1.5.5.7.3.4',
  '1.3.6.1.5.5.7.3.36',
  '1.3.6.1.4.1.311.10.3.12',
  '2.5.29.37.0',
  '1.2.840.113583.1.1.5',
]);

const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');

/**
 * Whether the signer's certificate is for signing: key usage with
 * digitalSignature or nonRepudiation, and no extended key usage that limits it
 * to something else (a web server's certificate, chaining to a system root,
 * must not sign a contract).
 */
function signingPurpose(cert: Certificate): { ok: boolean; detail: string } {
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

/** JavaScript's \s among the bytes (what the gap's comparison has always skipped). */
const SPACE = new Uint8Array(256);
for (const b of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) SPACE[b] = 1;
const HEX = new Uint8Array(256).fill(16);
for (let i = 0; i < 16; i++)
  HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;

/** Whether bytes [from, to) are `contents` in hex (either case), white-space aside; read once, without copying. */
function gapHolds(pdf: Uint8Array, from: number, to: number, contents: Uint8Array): boolean {
  const digits = contents.length * 2;
  let i = 0;
  for (let p = from; p < to; p++) {
    const c = pdf[p]!;
    if (SPACE[c]) continue;
    const v = HEX[c]!;
    if (v === 16 || i >= digits) return false;
    const byte = contents[i >> 1]!;
    if (v !== (i & 1 ? byte & 15 : byte >> 4)) return false;
    i++;
  }
  return i === digits;
}

/** The two byte ranges a signature signs, [from, to) each. */
type Ranges = [[number, number], [number, number]];

/** Bytes hashed at a time between two chances to pause. */
const HASH_CHUNK = 4 * 1024 * 1024;

/** The digest of the signed ranges, hashed a chunk at a time, counted on `meter`. */
function* digestSteps(pdf: Uint8Array, ranges: Ranges, algorithm: string, meter: Meter): Steps<Buffer> {
  const hash = createHash(algorithm);
  for (const [from, to] of ranges) {
    for (let p = from; p < to; p += HASH_CHUNK) {
      const end = Math.min(to, p + HASH_CHUNK);
      hash.update(pdf.subarray(p, end));
      meter.add(COST.hashedByte * (end - p));
      if (meter.due) yield;
    }
  }
  return hash.digest();
}

/** The signed bytes as checks take them: the digest hashed beforehand (`algorithm`), the bytes themselves only when a check needs them whole. */
function signedContent(pdf: Uint8Array, ranges: Ranges, digests: Map<string, Buffer>): SignedContent {
  return {
    digest: (algorithm) =>
      digests.get(algorithm) ??
      createHash(algorithm)
        .update(pdf.subarray(...ranges[0]))
        .update(pdf.subarray(...ranges[1]))
        .digest(),
    bytes: () => Buffer.concat([pdf.subarray(...ranges[0]), pdf.subarray(...ranges[1])]),
  };
}

/** Why /Contents is not read, when it is too long to be a signature. */
function contentsTooLarge(signature: PdfSignature, meter: Meter): string | null {
  const max = meter.limits.contentsBytes;
  const size =
    signature.contentsTooLong ?? (signature.contents.length > max ? signature.contents.length : null);
  if (size === null) return null;
  const what = signature.contentsTooLong !== null ? `${size} bytes as written` : `${size} bytes`;
  return `/Contents holds ${what}, more than the ${Math.round(max / 1024)} KB a signature may hold here (a CMS signature is a few to a few hundred KB): not read, not verified`;
}

/** The byte-range check, and the signed ranges when it passes. */
function byteRange(pdf: Uint8Array, signature: PdfSignature): { check: CheckResult; ranges?: Ranges } {
  const range = signature.byteRange;
  const [start1, length1, start2, length2] = range as [number, number, number, number];
  if (range.length !== 4 || !range.every((n) => Number.isInteger(n) && n >= 0)) {
    return {
      check: {
        check: 'byte range',
        ok: false,
        detail:
          range.length === 0
            ? 'the signature has no /ByteRange: what it signed cannot be known'
            : `/ByteRange [${range.join(' ')}] is not four offsets`,
      },
    };
  }
  const wellFormed =
    start1 === 0 &&
    start2 > length1 &&
    start2 + length2 <= pdf.length &&
    pdf[length1] === 0x3c &&
    pdf[start2 - 1] === 0x3e;
  // The one gap must be exactly this signature's /Contents: anything else there (objects, another
  // /ByteRange) would be unsigned content a reader shows.
  if (!wellFormed || !gapHolds(pdf, length1 + 1, start2 - 1, signature.contents)) {
    const why = !wellFormed
      ? start2 + length2 > pdf.length
        ? `reaches past the end of the file (${pdf.length} bytes)`
        : "does not cover the file around the signature's /Contents"
      : "leaves out more than the signature's /Contents: unsigned content in the file";
    return { check: { check: 'byte range', ok: false, detail: `[${range.join(' ')}] ${why}` } };
  }
  return {
    check: {
      check: 'byte range',
      ok: true,
      detail: `[${range.join(' ')}]: everything but the signature itself`,
    },
    ranges: [
      [0, length1],
      [start2, start2 + length2],
    ],
  };
}

function newBase(signature: PdfSignature, ctx: VerifyContext): Base {
  return {
    field: signature.field,
    signer: null,
    signing_time: pdfDate(signature.signingTime),
    sub_filter: signature.subFilter,
    timestamp: null,
    validated_at: iso(ctx.at instanceof Date ? ctx.at : ctx.now),
    validation_time: ctx.at instanceof Date ? 'given' : 'now',
    checks: [],
  };
}

const add = (base: Base, check: CheckName, ok: boolean, detail: string) =>
  base.checks.push({ check, ok, detail });

/** A CMS signature (adbe.pkcs7.detached, ETSI.CAdES.detached); the signed bytes hashed in steps. */
export function* checkSignature(ctx: VerifyContext, signature: PdfSignature): Steps<Base> {
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
  const ranges = range.ranges;
  if (signature.subFilter === 'adbe.pkcs7.sha1' || signature.subFilter === 'adbe.x509.rsa_sha1') {
    add(
      base,
      'signature',
      false,
      `/SubFilter /${signature.subFilter} signs a SHA-1 digest, deprecated since PDF 2.0 and too weak to trust: not verified`,
    );
    return base;
  }
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
  const signer = data.signers[0];
  if (data.signers.length !== 1 || !signer) {
    add(base, 'signature', false, `the CMS has ${data.signers.length} signers; a PDF signature has one`);
    return base;
  }
  const cert = signerCertificate(data, signer);
  if (!cert) {
    add(base, 'signature', false, 'the CMS names no signer whose certificate it carries');
    return base;
  }
  base.signer = displayName(cert);
  const digests = new Map<string, Buffer>();
  if (signer.digest) digests.set(signer.digest, yield* digestSteps(ctx.pdf, ranges, signer.digest, meter));
  const signed = signedContent(ctx.pdf, ranges, digests);
  const digest = checkDigest(data, signer, signed);
  add(base, 'digest', digest.ok, digest.detail);
  const cms = checkSignerSignature(signer, cert, signed);
  add(
    base,
    'signature',
    cms.ok,
    cms.ok
      ? `valid (${cms.algorithm}), by ${displayName(cert)}`
      : cms.supported
        ? `the CMS signature does not verify with the signer's certificate (${cms.algorithm})`
        : `not checked: ${cms.algorithm}`,
  );

  // The validation time: one asked for, else one a timestamp proves, else now.
  const token = signatureTimestampToken(signer.unsigned);
  const stampAt = ctx.at instanceof Date ? ctx.at : ctx.now;
  let at = stampAt;
  if (token) {
    const stamp = verifyTimestampToken(token, signer.signature, ctx.anchors, stampAt);
    const failed = [
      stamp.imprint,
      stamp.signature,
      stamp.signingCertificate,
      stamp.purpose,
      stamp.chain,
    ].find((c) => !c.ok);
    const time = stamp.genTime ? iso(stamp.genTime) : null;
    base.timestamp = {
      time,
      tsa: stamp.tsa,
      valid: stamp.ok,
      detail: failed?.detail ?? `by ${stamp.tsa} at ${time}`,
    };
    if (stamp.ok && stamp.genTime && ctx.at === undefined) {
      at = stamp.genTime;
      base.validation_time = 'timestamp';
    }
    add(
      base,
      'timestamp',
      stamp.ok,
      stamp.ok
        ? `by ${stamp.tsa} at ${time}: the signature existed then${ctx.at === undefined ? ', and its chain is validated at that time' : ''}`
        : `the signature timestamp does not verify: ${failed?.detail}`,
    );
  } else {
    const claimed = base.signing_time ? `; /M ${base.signing_time} is claimed by the signer, not proved` : '';
    add(
      base,
      'timestamp',
      true,
      ctx.at === 'claimed'
        ? `none: validated at the time the signer claims (/M), as asked`
        : `none (PAdES B-B): the chain is validated at ${ctx.at instanceof Date ? 'the time asked for' : 'the current time'}${claimed}`,
    );
  }
  if (ctx.at === 'claimed') {
    base.validation_time = 'claimed';
    if (!base.signing_time) {
      add(base, 'certificate chain', false, 'no claimed signing time (/M) to validate at');
      return finishPurposeAndEss(base, signer, cert, signature);
    }
    at = new Date(base.signing_time);
  }
  base.validated_at = iso(at);
  const chain = validateChain(cert, data.certificates, ctx.anchors, at);
  add(base, 'certificate chain', chain.ok, chain.detail);
  return finishPurposeAndEss(base, signer, cert, signature);
}

function finishPurposeAndEss(
  base: Base,
  signer: Parameters<typeof checkSigningCertificate>[0],
  cert: Certificate,
  signature: PdfSignature,
): Base {
  const purpose = signingPurpose(cert);
  add(base, 'certificate purpose', purpose.ok, purpose.detail);
  const ess = checkSigningCertificate(signer, cert);
  const cades = signature.subFilter === 'ETSI.CAdES.detached';
  if (ess.version === null)
    add(
      base,
      'signing certificate',
      !cades,
      cades
        ? 'ETSI.CAdES.detached without the ESS signing certificate PAdES requires'
        : 'no ESS signing certificate (a plain CMS signature, not PAdES baseline)',
    );
  else add(base, 'signing certificate', ess.ok, ess.detail);
  return base;
}

/** A document timestamp (ETSI.RFC3161): an RFC 3161 token over the signed bytes, hashed in steps. */
export function* checkDocumentTimestamp(ctx: VerifyContext, signature: PdfSignature): Steps<Base> {
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
  const at = ctx.at instanceof Date ? ctx.at : ctx.now;
  const digests = new Map<string, Buffer>();
  const hash = imprintHash(signature.contents);
  if (hash) digests.set(hash, yield* digestSteps(ctx.pdf, range.ranges, hash, meter));
  const stamp = verifyTimestampToken(
    signature.contents,
    signedContent(ctx.pdf, range.ranges, digests),
    ctx.anchors,
    at,
  );
  base.signer = stamp.tsa;
  base.signing_time = stamp.genTime ? iso(stamp.genTime) : base.signing_time;
  const failed = [stamp.imprint, stamp.signature, stamp.signingCertificate, stamp.purpose, stamp.chain].find(
    (c) => !c.ok,
  );
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
  );
  add(base, 'signature', stamp.signature.ok, stamp.signature.detail);
  add(base, 'certificate chain', stamp.chain.ok, stamp.chain.detail);
  add(base, 'certificate purpose', stamp.purpose.ok, stamp.purpose.detail);
  add(base, 'signing certificate', stamp.signingCertificate.ok, stamp.signingCertificate.detail);
  return base;
}

export type { TimestampVerdict };
