/**
 * The verifier against signed PDFs made by other software (DSS's, iText's, pdf.js's, pdfcpu's,
 * OpenPDF's, node-signpdf's, qpdf's and veraPDF's test data: Acrobat, Adobe Sign, DocuSign,
 * iText 2 to 9, ETSI plugtest vendors and more), each judged as its own source judges it: the
 * corpus's expected.tsv, `integrity` (intact and modified-allowed are one verdict: every change
 * after the signature is allowed) and `expected_exit`. A file that moves away from its expectation
 * fails, unless it is one of the deliberate differences below, each a policy written in
 * docs/assumptions.md; one that comes to agree fails too, until it is taken off that list.
 *
 * The corpus is never copied into this repository (its licences are its sources'): it is read
 * from SIGN_PADES_CORPUS, else ../shared/pades-realworld beside the repository, and the tests are
 * skipped when it is absent, except in CI, where it is always present and so required.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/paths.js';
import { NotAPdfError, verifyPdf, type PdfVerdict } from '../../../src/core/pades/verify.js';

const CORPUS = process.env.SIGN_PADES_CORPUS || resolve(ROOT, '..', 'shared', 'pades-realworld');
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const present = existsSync(join(CORPUS, 'expected.tsv'));
if (!present && inCi)
  throw new Error(`the real-world PDFs are not at ${CORPUS}: CI has them (set SIGN_PADES_CORPUS)`);
if (!present)
  console.warn(`no real-world PDFs at ${CORPUS}: their tests are skipped (set SIGN_PADES_CORPUS)`);

/** At least this many files judged as their sources judge them. */
const AGREEMENT_FLOOR = 183;

/**
 * Where this verifier deliberately judges otherwise than a file's source: what it says instead,
 * and why (the same reasons are in docs/assumptions.md, "Real-world signed PDFs").
 */
const DELIBERATE: Record<string, { got: string; why: string }> = {
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

interface Row {
  file: string;
  exit: number;
  integrity: string;
}

const rows: Row[] = present
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
const NOW = new Date('2026-06-01T00:00:00Z');

/** The verdict as expected.tsv words it, and the exit `envelopes verify` would give. */
async function judge(
  file: string,
  password?: string,
): Promise<{ integrity: string; exit: number; verdict?: PdfVerdict }> {
  try {
    const verdict = await verifyPdf(readFileSync(join(CORPUS, file)), {
      now: NOW,
      ...(password ? { password } : {}),
    });
    return { integrity: verdict.integrity, exit: verdict.valid ? 0 : 1, verdict };
  } catch (error) {
    if (error instanceof NotAPdfError) return { integrity: 'refuse', exit: 2 };
    throw error;
  }
}

const same = (integrity: string) => (integrity === 'modified-allowed' ? 'intact' : integrity);

describe.skipIf(!present)('signed PDFs from the real world', () => {
  const agreed: string[] = [];
  const differed: string[] = [];

  it.each(rows)('$file: $integrity, exit $exit', async ({ file, exit, integrity }) => {
    const got = await judge(file);
    const deliberate = DELIBERATE[file];
    if (deliberate) {
      expect(
        { file, got: got.integrity },
        `${file} now agrees with its source: take it off DELIBERATE`,
      ).toEqual({
        file,
        got: deliberate.got,
      });
      differed.push(file);
      return;
    }
    expect({ file, integrity: same(got.integrity), exit: got.exit }).toEqual({
      file,
      integrity: same(integrity),
      exit,
    });
    agreed.push(file);
  });

  it('agrees on at least 183 of them, and every other is a deliberate difference', () => {
    expect(agreed.length + differed.length).toBe(rows.length);
    expect(agreed.length).toBeGreaterThanOrEqual(AGREEMENT_FLOOR);
    expect(differed.sort()).toEqual(Object.keys(DELIBERATE).sort());
  });

  it('opens an AES-256 document with its user password, and without it reads what is not encrypted', async () => {
    const withPassword = await judge('itext/SVI__encryptedDoc.pdf', '123');
    expect(withPassword.verdict).toMatchObject({
      encryption: 'decrypted with the password given',
      integrity: 'intact',
      signatures: [{ field: 'Signature1', signing_time: '2024-10-04T00:27:13.000Z' }],
    });
    const without = await judge('itext/SVI__encryptedDoc.pdf');
    expect(without.verdict).toMatchObject({ encryption: 'not decrypted', integrity: 'intact' });
  });
});
