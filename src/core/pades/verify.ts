/**
 * Offline verification of a PDF's signatures, as `envelopes verify` reports
 * it. For each signature: its byte ranges, the digest of what it covers, the
 * CMS signature, the certificate chain to a trusted root at the validation
 * time, the certificate's purpose, the ESS signing certificate, its signature
 * timestamp, and what every later revision changed, allowed or not after
 * this signature (DocMDP, FieldMDP). The validation time is now, or the time
 * a verified RFC 3161 signature timestamp proves; the signer's /M is only
 * claimed, and used only when asked (`at: 'claimed'`). Document timestamps are
 * checked as timestamps. Not checked: revocation (OCSP, CRL) and long-term
 * validation (DSS, B-LT, B-LTA).
 *
 * Whatever the file, the work is bounded by its size (pdf-budget.ts): a file
 * that would cost more is refused (PdfLimitError, a NotAPdfError), and the
 * work pauses every few tens of milliseconds for the event loop, stopping
 * with InterruptedError once `signal` is aborted.
 */
import { createHash } from 'node:crypto';
import { readPdfSteps, type PdfFile } from './pdf-file.js';
import { findSignatureSteps, locks, type PdfSignature } from './pdf-signatures.js';
import { trustAnchors } from './chain.js';
import { parseCertificate } from './x509.js';
import { checkDocumentTimestamp, checkSignature } from './signature-checks.js';
import { revisionChangeSteps, type JudgedChange } from './changes/revisions.js';
import type { Change } from './changes/record.js';
import { COST, Meter, Pace, type Steps } from './pdf-budget.js';
import { documentIntegrity, signatureIntegrity } from './integrity.js';
import { dssCertificates } from './pdf-signatures.js';

import type { CheckResult, PdfVerdict, SignatureVerdict, VerifyContext, VerifyOptions } from './verdicts.js';

export type {
  CheckName,
  CheckResult,
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
export { PdfLimitError, DEFAULT_LIMITS, type PdfLimits } from './pdf-budget.js';
export { pdfDate } from './pdf-signatures.js';
export { pemCertificates } from './x509.js';

/** Whether DER bytes are one X.509 certificate this verifier can read. */
export function isCertificate(der: Uint8Array): boolean {
  try {
    parseCertificate(der);
    return true;
  } catch {
    return false;
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The revision whose end the byte range reaches (its %%EOF, with or without the end of line). */
function rangeRevision(file: PdfFile, signature: PdfSignature): number | null {
  const [, , start2, length2] = signature.byteRange;
  const end = (start2 ?? 0) + (length2 ?? 0);
  if (file.repaired) return end >= file.bytes.length - 2 ? 1 : null;
  const rev = file.revisions.find((r) => end <= r.end && end >= r.end - 2);
  return rev ? rev.number : null;
}

/** The revision that wrote the signature dictionary as the final revision reads it. */
function dictionaryRevision(file: PdfFile, signature: PdfSignature): number | null {
  if (signature.object === null) return null;
  const key = file.revisions.at(-1)!.entryKey(signature.object);
  return file.revisions.find((r) => r.entryKey(signature.object!) === key)?.number ?? null;
}

/** The SHA-256 of the whole file, a chunk at a time. */
function* sha256Steps(pdf: Uint8Array, meter: Meter): Steps<string> {
  const hash = createHash('sha256');
  for (let p = 0; p < pdf.length; p += 4 * 1024 * 1024) {
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
  const file = await pace.run(readPdfSteps(pdf, meter));
  const final = file.revisions.at(-1)!;
  const signatures = await pace.run(findSignatureSteps(final));
  const ctx: VerifyContext = {
    pdf,
    file,
    anchors: trustAnchors(options.trusted ?? [], options.systemRoots !== false),
    now: options.now ?? new Date(),
    at: options.at,
    allowWeak: options.allowWeak === true,
    extraCertificates: dssCertificates(final),
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
  const verdicts: SignatureVerdict[] = [];
  for (const [i, signature] of signatures.entries()) {
    const revision = revisions[i] ?? null;
    meter.add(COST.signature);
    const base = await pace.run(
      signature.documentTimestamp ? checkDocumentTimestamp(ctx, signature) : checkSignature(ctx, signature),
    );
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
      valid: base.checks.every((c) => c.ok),
    });
  }
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
    valid: verdicts.length > 0 && verdicts.every((v) => v.valid),
  };
}

/** The changes of every revision after `revision`, judged with this signature's permissions. */
function judgeAfter(
  file: PdfFile,
  changes: (revision: number) => Change[],
  revision: number | null,
  docmdp: number | null,
  signature: PdfSignature,
): { check: CheckResult; changes: JudgedChange[] } {
  const appended =
    file.trailingBytes > 0
      ? `modified after signing: ${plural(file.trailingBytes, 'byte')} ${file.trailingBytes === 1 ? 'was' : 'were'} appended after the last revision, and no reader reads ${file.trailingBytes === 1 ? 'it' : 'them'} as part of the document`
      : null;
  if (revision === null) {
    const why = file.repaired
      ? "the file's cross-reference is damaged, so its revisions cannot be told apart and what changed after this signature is unknown"
      : 'the signed bytes end inside a revision, not at its end: part of that revision is unsigned, and what follows cannot be compared';
    return { check: { check: 'changes after', ok: false, detail: why }, changes: [] };
  }
  const count = file.revisions.length;
  const judged: JudgedChange[] = [];
  for (let r = revision + 1; r <= count; r++) {
    for (const change of changes(r)) {
      // A field this signature locks (FieldMDP) may be neither filled nor have its widgets touched.
      const locked = !!change.field && signature.locks.some((l) => locks(l, change.field!));
      const allowed =
        change.need === 'none' ||
        (change.need === 'signing' && docmdp !== 1) ||
        (change.need === 'fill' && docmdp !== 1 && !locked) ||
        (change.need === 'annotate' && (docmdp === 3 || docmdp === null) && !locked) ||
        (change.need === 'edit annotations' && docmdp === 3 && !locked);
      judged.push({
        revision: change.revision,
        kind: change.kind,
        object: change.object,
        ...(change.page ? { page: change.page } : {}),
        ...(change.field ? { field: change.field } : {}),
        action: change.action,
        allowed,
        detail: change.detail,
      });
    }
  }
  const refused = judged.filter((c) => !c.allowed);
  const where = `covers revision ${revision} of ${count}`;
  if (refused.length > 0 || appended) {
    const first = [
      ...new Set(refused.map((c) => `${changeSubject(c) ?? c.detail} (revision ${c.revision})`)),
    ];
    const more = first.length > 3 ? `, and ${first.length - 3} more` : '';
    first.splice(3);
    const detail = [
      refused.length > 0
        ? `changed after this signature: ${first.join(', ')}${more}${docmdp === 1 && refused.length > 0 ? ' (its DocMDP permission 1 allows no change)' : ''}`
        : null,
      appended,
    ]
      .filter(Boolean)
      .join('; ');
    return { check: { check: 'changes after', ok: false, detail: `${detail} [${where}]` }, changes: judged };
  }
  if (revision === count)
    return {
      check: {
        check: 'changes after',
        ok: true,
        detail:
          count === 1
            ? 'the signature covers the whole file'
            : `the signature covers the whole file (${where})`,
      },
      changes: judged,
    };
  const allowedKinds = [...new Set(judged.map((c) => `${changeLabel(c)} (revision ${c.revision})`))];
  const listed =
    allowedKinds.slice(0, 3).join('; ') +
    (allowedKinds.length > 3 ? `; and ${allowedKinds.length - 3} more` : '');
  return {
    check: {
      check: 'changes after',
      ok: true,
      detail: `${where}; every later change is allowed after it: ${listed || 'nothing that matters to the document'}`,
    },
    changes: judged,
  };
}

/** What a change touched, as people name it: "page 1 content", "form field total", "signature field Bob". */
export function changeSubject(change: {
  kind: string;
  page?: number;
  field?: string;
  detail: string;
}): string | null {
  if (change.page && change.kind.startsWith('page'))
    return change.kind === 'page' ? `page ${change.page}` : `page ${change.page} ${change.kind.slice(5)}`;
  if (
    change.field &&
    ['form field', 'signature field', 'document timestamp', 'signature'].includes(change.kind)
  )
    return `${change.kind} ${change.field}`;
  if (change.kind === 'annotation' && change.page) return `an annotation on page ${change.page}`;
  return null;
}

/** A change in a few words: "page 1 content changed", "signature field Bob added". */
export function changeLabel(change: {
  kind: string;
  page?: number;
  field?: string;
  action: string;
  detail: string;
}): string {
  const subject = changeSubject(change);
  return subject ? `${subject} ${change.action}` : change.detail;
}
