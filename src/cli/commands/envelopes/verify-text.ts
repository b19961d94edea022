/**
 * What a verdict's failures say, for a person: the last line of one file's report (verify.ts)
 * and the reason of each file of an archive run that does not verify (verify-many.ts) say it in
 * the same words.
 */
import type { PdfVerdict } from '../../../core/pades/verify.js';
import { formatTime } from '../../render/time.js';

/** A check's detail with its instants (ISO, from the verifier) in the one time format of human output. */
export function detailText(detail: string): string {
  return detail.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, (iso) => formatTime(iso));
}

/** What a file without a signature proves. */
export const NO_SIGNATURE = 'no signature in it; it proves nothing about who signed it';

/**
 * Each failed check as `check: why`, the signature's field first when the file has several, then
 * the audit trail's (with --envelope); a file without a signature says so.
 */
export function failureTexts(verdict: PdfVerdict, audit?: { ok: boolean; detail: string } | null): string[] {
  if (verdict.signatures.length === 0) return [NO_SIGNATURE];
  const named = verdict.signatures.length > 1;
  return verdict.signatures
    .flatMap((s) =>
      s.checks
        .filter((c) => !c.ok)
        .map((c) => `${named ? `${s.field}: ` : ''}${c.check}: ${detailText(c.detail)}`),
    )
    .concat(audit && !audit.ok ? [`audit trail: ${audit.detail}`] : []);
}

/** The `--json` line of a file that could not be read, beside the verdicts of the others. */
export const unreadableJson = (file: string, reason: string): string =>
  JSON.stringify({ file, valid: false, unreadable: true, error: reason });
