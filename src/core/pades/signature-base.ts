/**
 * What every kind of signature check shares (signature-checks.ts, cms-signature.ts,
 * legacy-signatures.ts): the verdict being made and how a check is added to it, the byte ranges
 * and the gap between them, a /Contents too large to read, and the digest of the signed bytes
 * hashed in steps.
 */
import { COST, type Meter, type Steps } from './pdf-budget.js';
import type { Hash } from 'node:crypto';
import { hashOf, newHash } from './hashes.js';
import { pdfDate, type PdfSignature } from './pdf-signatures.js';
import type { SignedContent } from './cms.js';
import type { CheckName, CheckResult, Failure, SignatureVerdict, VerifyContext } from './verdicts.js';

/** A signature's verdict as its own checks make it: what the revision analysis adds comes later (verify.ts). */
export type Base = Omit<
  SignatureVerdict,
  'type' | 'revision' | 'docmdp' | 'changes_after' | 'valid' | 'integrity' | 'revocation' | 'ltv'
>;

/** A time as the verdict writes it (seconds, Z). */
export const iso = (d: Date) => d.toISOString().replace(/\.000Z$/, 'Z');

/** JavaScript's \s among the bytes (what the gap's comparison has always skipped). */
const SPACE = new Uint8Array(256);
for (const b of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) SPACE[b] = 1;
const HEX = new Uint8Array(256).fill(16);
for (let i = 0; i < 16; i++)
  HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;

/**
 * Whether bytes [from, to) are `contents` in hex (either case), white-space aside. The gap is the
 * whole /Contents (tens of KB of digits): compared by Node first, as writers write it (hex digits
 * only), since a loop over it in JavaScript cost a one-signature verify a tenth of its start-up
 * (it runs before V8 optimises anything). Lower-casing maps no other Latin-1 byte onto a hex
 * digit, so equal strings mean every byte is the digit of `contents`; anything else (white-space
 * in the gap, or a mismatch) is decided byte by byte.
 */
function gapHolds(pdf: Uint8Array, from: number, to: number, contents: Uint8Array): boolean {
  const digits = contents.length * 2;
  if (to - from === digits && digits <= MAX_FAST_DIGITS) {
    const gap = Buffer.from(pdf.buffer, pdf.byteOffset + from, digits).toString('latin1');
    const hex = Buffer.from(contents.buffer, contents.byteOffset, contents.length).toString('hex');
    if (gap.toLowerCase() === hex) return true;
  }
  return gapHoldsByByte(pdf, from, to, contents);
}

/**
 * The most digits compared as strings: their strings stay in V8's young generation (under its
 * 128 KB large-object size), freed at the next scavenge; a larger /Contents (rare) is compared byte
 * by byte, not left in the old generation until a full collection, raising an archive run's peak.
 */
const MAX_FAST_DIGITS = 64 * 1024;

/** gapHolds read byte by byte, without copying: white-space skipped, every other byte a digit of `contents`. */
function gapHoldsByByte(pdf: Uint8Array, from: number, to: number, contents: Uint8Array): boolean {
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
export type Ranges = [[number, number], [number, number]];

/** Bytes hashed at a time between two chances to pause. */
const HASH_CHUNK = 4 * 1024 * 1024;

/**
 * The SHA-256 of the longest start of a file that a signature's first range hashed (from byte 0),
 * as a hash to go on with: the verdict's SHA-256 of the whole file continues from there instead
 * of hashing the same bytes again (the last document timestamp's range is nearly all of the file).
 * Kept per file's bytes for one verification (verify.ts forgets it first: the bytes may have
 * changed since another), gone with them.
 */
const SHA256_PREFIX = new WeakMap<Uint8Array, { end: number; hash: Hash }>();

/** What a verification of `pdf` starts with: no start hashed yet. */
export const forgetSha256Prefix = (pdf: Uint8Array) => SHA256_PREFIX.delete(pdf);

/** The SHA-256 of the longest start of `pdf` hashed so far (its end, and the hash to go on with), taken: the next asks get none. */
export function takeSha256Prefix(pdf: Uint8Array): { end: number; hash: Hash } | undefined {
  const prefix = SHA256_PREFIX.get(pdf);
  SHA256_PREFIX.delete(pdf);
  return prefix;
}

/** The digest of the signed ranges, hashed a chunk at a time, counted on `meter`. */
export function* digestSteps(
  pdf: Uint8Array,
  ranges: Ranges,
  algorithm: string,
  meter: Meter,
): Steps<Buffer> {
  const hash = newHash(algorithm);
  for (const [from, to] of ranges) {
    for (let p = from; p < to; p += HASH_CHUNK) {
      const end = Math.min(to, p + HASH_CHUNK);
      hash.update(pdf.subarray(p, end));
      meter.add(COST.hashedByte * (end - p));
      if (meter.due) yield;
    }
    if (algorithm === 'sha256' && from === 0 && to > (SHA256_PREFIX.get(pdf)?.end ?? 0))
      SHA256_PREFIX.set(pdf, { end: to, hash: hash.copy() });
  }
  return hash.digest();
}

/** The signed bytes as checks take them: the digest hashed beforehand (`algorithm`), the bytes themselves only when a check needs them whole. */
export function signedContent(pdf: Uint8Array, ranges: Ranges, digests: Map<string, Buffer>): SignedContent {
  return {
    digest: (algorithm) =>
      digests.get(algorithm) ?? hashOf(algorithm, pdf.subarray(...ranges[0]), pdf.subarray(...ranges[1])),
    bytes: () => Buffer.concat([pdf.subarray(...ranges[0]), pdf.subarray(...ranges[1])]),
  };
}

/** Why /Contents is not read, when it is too long to be a signature. */
export function contentsTooLarge(signature: PdfSignature, meter: Meter): string | null {
  const max = meter.limits.contentsBytes;
  const size =
    signature.contentsTooLong ?? (signature.contents.length > max ? signature.contents.length : null);
  if (size === null) return null;
  const what = signature.contentsTooLong !== null ? `${size} bytes as written` : `${size} bytes`;
  return `/Contents holds ${what}, more than the ${Math.round(max / 1024)} KB a signature may hold here (a CMS signature is a few to a few hundred KB): not read, not verified`;
}

/** The byte-range check, and the signed ranges when it passes. */
export function byteRange(pdf: Uint8Array, signature: PdfSignature): { check: CheckResult; ranges?: Ranges } {
  const range = signature.byteRange;
  const [start1, length1, start2, length2] = range as [number, number, number, number];
  if (range.length !== 4 || !range.every((n) => Number.isInteger(n) && n >= 0)) {
    return {
      check: {
        check: 'byte range',
        ok: false,
        failure: 'broken',
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
    return {
      check: { check: 'byte range', ok: false, failure: 'broken', detail: `[${range.join(' ')}] ${why}` },
    };
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

export function newBase(signature: PdfSignature, ctx: VerifyContext): Base {
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

/** What a failed check means when its caller does not say: trust for the certificate's checks, the document's bytes otherwise. */
const DEFAULT_FAILURE: Partial<Record<CheckName, Failure>> = {
  'certificate chain': 'untrusted',
  'certificate purpose': 'untrusted',
  'changes after': 'modified',
};

/** A check's result, with why it failed (`failure`, else the check's default). */
export function add(base: Base, check: CheckName, ok: boolean, detail: string, failure?: Failure): void {
  base.checks.push(
    ok
      ? { check, ok, detail }
      : { check, ok, detail, failure: failure ?? DEFAULT_FAILURE[check] ?? 'broken' },
  );
}
