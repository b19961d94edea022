/**
 * The real-world signed PDFs (../shared/pades-realworld, or SIGN_PADES_CORPUS: DSS's, iText's,
 * pdf.js's… test data) as the tests read them: where they are, whether they are there (skipped
 * when absent, except in CI, where they are required), expected.tsv's rows, and the verifier's
 * deliberate differences from their sources, each a policy written in docs/assumptions.md. The
 * corpus is never copied into this repository (its licences are its sources').
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT } from './paths.js';

export const CORPUS = process.env.SIGN_PADES_CORPUS || resolve(ROOT, '..', 'shared', 'pades-realworld');
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
export const present = existsSync(join(CORPUS, 'expected.tsv'));
if (!present && inCi)
  throw new Error(`the real-world PDFs are not at ${CORPUS}: CI has them (set SIGN_PADES_CORPUS)`);
if (!present)
  console.warn(`no real-world PDFs at ${CORPUS}: their tests are skipped (set SIGN_PADES_CORPUS)`);

/** At least this many files judged as their sources judge them. */
export const AGREEMENT_FLOOR = 183;

/**
 * Where this verifier deliberately judges otherwise than a file's source: what it says instead,
 * and why (the same reasons are in docs/assumptions.md, "Real-world signed PDFs").
 */
export const DELIBERATE: Record<string, { got: string; why: string }> = {
  'dss/pades-5-signatures-and-1-document-timestamp.pdf': {
    got: 'modified-disallowed',
    why: 'its five signatures verify as OpenSSL and NSS (pdfsig) verify them, over their signed attributes as written; DSS (BouncyCastle) sorts those attributes into DER order first and so calls them broken. The file fails here too: the update after the fifth signature has a damaged cross-reference, so what it changed cannot be compared',
  },
  'dss/pades_infinite_loop.pdf': {
    got: 'broken',
    why: "its AcroForm lists a signature field with a value, whose byte range runs past the end of the file; pdfsig, whose judgement the source records, gives up on the field's widget (it names itself as its parent) and reports no signature",
  },
  'itext/DRVI__twoCertificationSignatures.pdf': {
    got: 'broken',
    why: "iText's test asserts only its revision check (a second certification); the second signature's digest does not match its bytes (OpenSSL and pdfsig say so too), and a signature that does not verify is broken, whatever else changed",
  },
};

export interface Row {
  file: string;
  exit: number;
  integrity: string;
}

export const rows: Row[] = present
  ? readFileSync(join(CORPUS, 'expected.tsv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => {
        const [file, exit, integrity] = line.split('\t');
        return { file: file!, exit: Number(exit), integrity: integrity! };
      })
  : [];

/** Validation at a fixed instant: a certificate's expiry next year must not change these verdicts. */
export const NOW = new Date('2026-06-01T00:00:00Z');

/** intact and modified-allowed are one verdict: every change after the signature is allowed. */
export const same = (integrity: string) => (integrity === 'modified-allowed' ? 'intact' : integrity);
