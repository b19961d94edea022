/**
 * Offline verification of a PDF's signatures, as `envelopes verify` reports
 * it. For each signature: its byte ranges, the digest of what it covers, the
 * CMS signature, the certificate chain to a trusted root at the validation
 * time, the certificate's purpose, the ESS signing certificate, its signature
 * timestamp, and what every later revision changed, allowed or not after
 * this signature (DocMDP, FieldMDP). The validation time is now, or the time
 * a verified RFC 3161 signature timestamp proves (else a valid document
 * timestamp after it); the signer's /M is only claimed, and used only when
 * asked (`at: 'claimed'`). Document timestamps are checked as timestamps, the
 * latest first: each TSA's chain is validated at the time the next document
 * timestamp proves, so an expired TSA certificate a later timestamp covers
 * still proves its time. Then, once every signature is checked, the
 * revocation status of every certificate they rest on and each signature's
 * long-term status (ltv/, revocation/).
 *
 * Whatever the file, the work is bounded by its size (pdf-budget.ts): a file
 * that would cost more is refused (PdfLimitError, a NotAPdfError), and the
 * work pauses every few tens of milliseconds for the event loop, stopping
 * with InterruptedError once `signal` is aborted.
 */
import { createHash } from 'node:crypto';
import { readPdfSteps, type PdfFile } from './pdf-file.js';
import type { PdfSignature } from './pdf-signatures.js';
import { documentSignatureSteps, type FoundSignature } from './document-signatures.js';
import { judgeAfter } from './changes-after.js';
import { trustAnchors } from './chain.js';
import { parseCertificate } from './x509.js';
import { checkDocumentTimestamp, checkSignature } from './signature-checks.js';
import { revisionChangeSteps } from './changes/revisions.js';
import type { Change } from './changes/record.js';
import { COST, EncryptedPdfError, Meter, Pace, type Steps } from './pdf-budget.js';
import { documentIntegrity, signatureIntegrity } from './integrity.js';
import { dssCertificates } from './pdf-signatures.js';

import { longTermChecks } from './ltv/long-term.js';
import { forgetSha256Prefix, takeSha256Prefix, type Base } from './signature-base.js';
import type { PdfVerdict, Proof, SignatureVerdict, VerifyContext, VerifyOptions } from './verdicts.js';

export type {
  CertificateRevocation,
  CheckName,
  CheckResult,
  LongTermVerdict,
  PadesLevel,
  RevocationVerdict,
  Failure,
  Integrity,
  PdfVerdict,
  RevisionSummary,
  SignatureVerdict,
  TimestampVerdict,
  VerifyContext,
  VerifyOptions,
} from './verdicts.js';
export { NotAPdfError } from './pdf-file.js';
export { PdfLimitError, EncryptedPdfError, DEFAULT_LIMITS, type PdfLimits } from './pdf-budget.js';
export { pdfDate } from './pdf-signatures.js';
export { pemCertificates } from './x509.js';
export { changeLabel, changeSubject } from './changes-after.js';
export {
  fetchRevocation,
  type FetchRecord,
  type RevocationFetch,
  type RevocationRequest,
} from './revocation/online.js';

/** Whether DER bytes are one X.509 certificate this verifier can read. */
export function isCertificate(der: Uint8Array): boolean {
  try {
    parseCertificate(der);
    return true;
  } catch {
    return false;
  }
}

/** Whether bytes [from, to) are PDF white-space only. */
function blank(bytes: Uint8Array, from: number, to: number): boolean {
  for (let p = from; p < to; p++) {
    const b = bytes[p];
    if (b !== 0 && b !== 9 && b !== 10 && b !== 12 && b !== 13 && b !== 32) return false;
  }
  return true;
}

/**
 * The revision whose end the byte range reaches: its %%EOF, with or without the end of line, or
 * with more ends of line after it (a writer that signs the blank lines it left after %%EOF).
 */
function rangeRevision(file: PdfFile, signature: PdfSignature): number | null {
  const [, , start2, length2] = signature.byteRange;
  const end = (start2 ?? 0) + (length2 ?? 0);
  if (file.repaired) return end >= file.bytes.length - 2 ? 1 : null;
  const rev = file.revisions.find(
    (r) => end >= r.end - 2 && (end <= r.end || (end - r.end <= 64 && blank(file.bytes, r.end, end))),
  );
  return rev ? rev.number : null;
}

/** The revision that wrote the signature dictionary, as the revision it was found in reads it. */
function dictionaryRevision(file: PdfFile, signature: FoundSignature): number | null {
  if (signature.object === null || signature.found === 'repaired') return null;
  const key = signature.source.entryKey(signature.object);
  return file.revisions.find((r) => r.entryKey(signature.object!) === key)?.number ?? null;
}

/**
 * The SHA-256 of the whole file, a chunk at a time: from where a signature's digest left off, when
 * one hashed its start (signature-base.ts). Counted on the meter as the whole file, as before.
 */
function* sha256Steps(pdf: Uint8Array, meter: Meter): Steps<string> {
  const prefix = takeSha256Prefix(pdf);
  const hash = prefix ? prefix.hash : createHash('sha256');
  const from = prefix ? prefix.end : 0;
  meter.add(COST.hashedByte * from);
  for (let p = from; p < pdf.length; p += 4 * 1024 * 1024) {
    const end = Math.min(pdf.length, p + 4 * 1024 * 1024);
    hash.update(pdf.subarray(p, end));
    meter.add(COST.hashedByte * (end - p));
    if (meter.due) yield;
  }
  return hash.digest('hex');
}

/**
 * Every signature of the PDF, checked; NotAPdfError when the bytes are not a readable PDF
 * (PdfLimitError when reading them would cost more than their size warrants); InterruptedError
 * once `options.signal` is aborted.
 */
export async function verifyPdf(pdf: Uint8Array, options: VerifyOptions = {}): Promise<PdfVerdict> {
  const pace = new Pace(options.signal, options.monotonic);
  const meter = new Meter(pdf.length, options.limits);
  forgetSha256Prefix(pdf);
  const file = await pace.run(readPdfSteps(pdf, meter, options.password));
  const final = file.revisions.at(-1)!;
  const signatures = await pace.run(documentSignatureSteps(file));
  if (signatures.length === 0 && file.encryption.state === 'locked')
    throw file.encryption.why === 'handler'
      ? new EncryptedPdfError(
          `encrypted with the ${file.encryption.handler} security handler, which this check does not open: its signatures cannot be found`,
          'handler',
        )
      : new EncryptedPdfError(
          options.password === undefined
            ? 'encrypted with a password: its signatures cannot be found without it'
            : 'encrypted, and the password given does not open it: its signatures cannot be found',
          'password',
        );
  // Valid document timestamps by revision: each proves when everything before it existed.
  const proofs: (Proof & { revision: number })[] = [];
  const ctx: VerifyContext = {
    pdf,
    file,
    anchors: trustAnchors(options.trusted ?? [], options.systemRoots !== false),
    now: options.now ?? new Date(),
    at: options.at,
    allowWeak: options.allowWeak === true,
    extraCertificates: dssCertificates(final),
    proofAfter: (revision) =>
      revision === null
        ? undefined
        : proofs.filter((p) => p.revision > revision).sort((a, b) => a.revision - b.revision)[0],
    evidence: new Map(),
  };
  // What every revision changed, computed once: the revisions table shows them all.
  const computed = new Map<number, Change[]>();
  for (const rev of file.revisions.slice(1))
    computed.set(rev.number, await pace.run(revisionChangeSteps(file, rev.number)));
  const changes = (revision: number) => computed.get(revision) ?? [];
  const ranges = signatures.map((s) => rangeRevision(file, s));
  // A broken byte range still belongs to the revision its dictionary was written in.
  const revisions = signatures.map((s, i) => ranges[i] ?? dictionaryRevision(file, s));
  const certifier = signatures.findIndex((s) => s.certification);
  // Document timestamps first, the latest first: each one's chain is validated at the time the
  // next proves, and each proves when the signatures before it existed.
  const bases = new Map<number, Base>();
  const stamps = [...signatures.keys()]
    .filter((i) => signatures[i]!.documentTimestamp)
    .sort((a, b) => (revisions[b] ?? 0) - (revisions[a] ?? 0));
  for (const i of stamps) {
    meter.add(COST.signature);
    const base = await pace.run(checkDocumentTimestamp(ctx, signatures[i]!, revisions[i] ?? null));
    bases.set(i, base);
    const time = ctx.evidence.get(signatures[i]!)?.stamp;
    if (time?.ok && time.genTime && revisions[i] && base.checks.every((c) => c.ok))
      proofs.push({ revision: revisions[i], time: time.genTime, field: signatures[i]!.field });
  }
  const verdicts: SignatureVerdict[] = [];
  for (const [i, signature] of signatures.entries()) {
    const revision = revisions[i] ?? null;
    if (!bases.has(i)) meter.add(COST.signature);
    const base = bases.get(i) ?? (await pace.run(checkSignature(ctx, signature, revision)));
    // The certification's permissions govern every change after it, whichever signature follows.
    const certP =
      certifier !== -1 && (revisions[certifier] ?? Infinity) <= (revision ?? -1)
        ? signatures[certifier]!.docmdp
        : null;
    const docmdp = [signature.docmdp, certP]
      .filter((p): p is number => p !== null)
      .reduce<number | null>((a, b) => (a === null ? b : Math.min(a, b)), null);
    const rangeOk = base.checks.find((c) => c.check === 'byte range')?.ok === true;
    const after = judgeAfter(
      file,
      changes,
      rangeOk && ranges[i] === null ? null : revision,
      docmdp,
      signature,
    );
    meter.add(COST.visit * (after.changes.length + 1));
    await pace.turn();
    base.checks.push(after.check.ok ? after.check : { ...after.check, failure: 'modified' });
    verdicts.push({
      ...base,
      integrity: signatureIntegrity(
        base.checks,
        revision === file.revisions.length && file.trailingBytes === 0,
      ),
      type: signature.documentTimestamp
        ? 'document timestamp'
        : signature.certification
          ? 'certification'
          : 'approval',
      revision,
      docmdp,
      changes_after: after.changes,
      revocation: null,
      ltv: null,
      valid: base.checks.every((c) => c.ok),
    });
  }
  const online = await longTermChecks(ctx, signatures, revisions, verdicts, {
    policy: options.revocation ?? 'soft',
    ...(options.online ? { fetch: options.online } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const lastSigned = revisions.reduce<number>((max, r) => Math.max(max, r ?? 0), 0);
  const sha256 = await pace.run(sha256Steps(pdf, meter));
  options.onWork?.({ units: meter.work, allowed: meter.workLimit, inflated: meter.decoded });
  return {
    bytes: pdf.length,
    sha256,
    revisions: file.revisions.map((r) => ({
      revision: r.number,
      end: r.end,
      signed_by: signatures.filter((_, i) => revisions[i] === r.number).map((s) => s.field),
      changes: r.number === 1 ? [] : changes(r.number).map(({ need: _need, revision: _revision, ...c }) => c),
    })),
    signatures: verdicts,
    modified_after_signing:
      signatures.length > 0 && (lastSigned < file.revisions.length || file.trailingBytes > 0),
    integrity: documentIntegrity(verdicts),
    online,
    encryption:
      file.encryption.state === 'none'
        ? 'none'
        : file.encryption.state === 'locked'
          ? 'not decrypted'
          : file.encryption.password === 'empty'
            ? 'decrypted with the empty password'
            : 'decrypted with the password given',
    valid: verdicts.length > 0 && verdicts.every((v) => v.valid),
  };
}
