/**
 * The verifier against signed PDFs made by other software (DSS's, iText's, pdf.js's, pdfcpu's,
 * OpenPDF's, node-signpdf's, qpdf's and veraPDF's test data: Acrobat, Adobe Sign, DocuSign,
 * iText 2 to 9, ETSI plugtest vendors and more), each judged as its own source judges it: the
 * corpus's expected.tsv, `integrity` (intact and modified-allowed are one verdict: every change
 * after the signature is allowed) and `expected_exit`. A file that moves away from its expectation
 * fails, unless it is one of the deliberate differences (DELIBERATE, test/helpers/pades-corpus.ts),
 * each a policy written in docs/assumptions.md; one that comes to agree fails too, until it is
 * taken off that list. test/cli/commands/envelopes/verify-many.test.ts holds the command's run of
 * the whole folder to the same expectations.
 *
 * The corpus is never copied into this repository (its licences are its sources'): it is read
 * from SIGN_PADES_CORPUS, else ../shared/pades-realworld beside the repository, and the tests are
 * skipped when it is absent, except in CI, where it is always present and so required.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGREEMENT_FLOOR, CORPUS, DELIBERATE, NOW, present, rows, same } from '../../helpers/pades-corpus.js';
import { NotAPdfError, verifyPdf, type PdfVerdict } from '../../../src/core/pades/verify.js';

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
