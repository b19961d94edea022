/**
 * One file of an archive run (`envelopes verify <file|dir>...`), read and verified into what the
 * run keeps of it: valid, invalid with its reason, or unreadable with why, and (with --json) its
 * line, already serialised. The same whether it runs on the command's thread or in a worker
 * (verify-worker.ts), so it loads only the verifier and the reader of a PDF, nothing of the CLI.
 */
import { InterruptedError, UsageError } from '../../../core/errors.js';
import {
  EncryptedPdfError,
  NotAPdfError,
  PdfLimitError,
  verifyPdf,
  type PdfVerdict,
  type VerifyOptions,
} from '../../../core/pades/verify.js';
import { readPdfFile } from '../../input/pdf-file.js';
import { failureTexts, unreadableJson } from './verify-text.js';

/** What every file of a run is verified with: plain data, handed to each worker as it is. */
export interface RunSettings {
  /** Every --trust certificate, DER. */
  trusted: Uint8Array[];
  at?: VerifyOptions['at'];
  password?: string;
  allowWeak: boolean;
  /** --max-size, in bytes. */
  maxBytes: number;
  /** The validation time of the run (the command's clock at its start), ms since the epoch. */
  now: number;
  /** Whether each file's JSON line is wanted. */
  json: boolean;
  /** An unknown revocation status passed with a warning (soft, when absent) or failed (require). */
  revocation?: 'soft' | 'require';
}

/** What the run keeps of a file (the verdict itself is dropped once its line is written). */
export interface FileOutcome {
  file: string;
  result: 'valid' | 'invalid' | 'unreadable';
  /** Why it is invalid or unreadable, one line; '' when valid. */
  reason: string;
  /** Its --json line. */
  json?: string;
}

/**
 * Reads and verifies one file. Whatever goes wrong with the file is its outcome (unreadable: not
 * a PDF, over --max-size, a read error, too costly to read, encrypted beyond the password given,
 * or the verifier failing on it); only an interrupt (InterruptedError) ends the run.
 */
export async function verifyOne(
  file: string,
  settings: RunSettings,
  signal: AbortSignal,
): Promise<FileOutcome> {
  const unreadable = (reason: string): FileOutcome => ({
    file,
    result: 'unreadable',
    reason,
    ...(settings.json ? { json: unreadableJson(file, reason) } : {}),
  });
  let verdict: PdfVerdict;
  try {
    const pdf = await readPdfFile(file, settings.maxBytes, signal);
    verdict = await verifyPdf(pdf, {
      trusted: settings.trusted,
      ...(settings.at ? { at: settings.at } : {}),
      ...(settings.password !== undefined ? { password: settings.password } : {}),
      ...(settings.allowWeak ? { allowWeak: true } : {}),
      revocation: settings.revocation ?? 'soft',
      now: new Date(settings.now),
      signal,
    });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    if (error instanceof UsageError) return unreadable(error.message);
    if (error instanceof NotAPdfError || error instanceof PdfLimitError || error instanceof EncryptedPdfError)
      return unreadable(`${file}: ${error.message}`);
    return unreadable(`${file}: the verifier failed on it (${(error as Error).message})`);
  }
  const valid = verdict.valid && verdict.signatures.length > 0;
  return {
    file,
    result: valid ? 'valid' : 'invalid',
    reason: valid ? '' : failureTexts(verdict).join('; '),
    ...(settings.json ? { json: JSON.stringify({ file, ...verdict, audit_trail: null }) } : {}),
  };
}
