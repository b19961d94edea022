/**
 * Documents as readers find them, not only as their cross-reference says: encrypted by qpdf with
 * the standard security handler (RC4 40 and 128 bits, AES-128, AES-256), opened with the empty
 * password, the user's or the owner's, and refused without it; a signature in an update whose
 * cross-reference is damaged, found by a repairing read and said so; an update after a signature
 * that does not read; a signature a later revision freed (the incremental saving attack); a
 * signature whose byte range takes in the blank lines after its %%EOF.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSignature, appendRevision, basePdf, objectText } from '../../helpers/pdf-build.js';
import { NO_OPENSSL, Pki, type Party } from '../../helpers/openssl-pki.js';
import { missingTools } from '../../helpers/system-tools.js';
import { tempDir } from '../../helpers/paths.js';
import { EncryptedPdfError, verifyPdf, type PdfVerdict } from '../../../src/core/pades/verify.js';

const NO_QPDF = missingTools(['qpdf'], 'qpdf', 'the tests of encrypted PDFs');
const dir = tempDir('sign-cli-documents-');
let pki: Pki;
let ca: Party;
let alice: Party;
let trusted: Uint8Array[];

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = pki.ca('Documents CA');
  alice = pki.issue(ca, 'Alice Documents');
  trusted = [
    new Uint8Array(Buffer.from(readFileSync(ca.cert, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64')),
  ];
});

const sign = (pdf: Buffer, extra: Partial<Parameters<typeof addSignature>[1]> = {}) =>
  addSignature(pdf, { field: 'Sig', sign: (bytes) => pki.cms(bytes, alice, ca), ...extra });
const verify = (pdf: Buffer, password?: string) =>
  verifyPdf(pdf, { trusted, ...(password === undefined ? {} : { password }) });
const after = (verdict: PdfVerdict) =>
  verdict.signatures[0]!.checks.find((c) => c.check === 'changes after')!;

/** basePdf encrypted by qpdf (`--encrypt user owner <bits>`), its objects in object streams. */
function encrypted(user: string, method: string[]): Buffer {
  const plain = join(dir, 'plain.pdf');
  const out = join(dir, 'encrypted.pdf');
  writeFileSync(plain, basePdf({ catalog: ' /PageMode /UseNone' }));
  execFileSync(
    'qpdf',
    [
      '--allow-weak-crypto',
      '--object-streams=generate',
      '--encrypt',
      user,
      'owner',
      ...method,
      '--',
      plain,
      out,
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(out);
}

describe.skipIf(NO_OPENSSL || NO_QPDF)('encrypted by qpdf', () => {
  it.each([
    ['RC4, 40 bits (R2)', ['40']],
    ['RC4, 128 bits (R3)', ['128']],
    ['AES-128 (R4)', ['128', '--use-aes=y']],
    ['AES-256 (R6)', ['256']],
  ])('%s: opened with the empty password, signed in an update, verified', async (_name, method) => {
    const pdf = await sign(encrypted('', method));
    const verdict = await verify(pdf);
    expect(verdict).toMatchObject({ encryption: 'decrypted with the empty password', integrity: 'intact' });
    expect(verdict.signatures.map((s) => s.checks.filter((c) => !c.ok))).toEqual([[]]);
  });

  it.each([
    ['RC4, 128 bits (R3)', ['128']],
    ['AES-256 (R6)', ['256']],
  ])(
    '%s with a user password: refused without it, opened with it or the owner password',
    async (_name, method) => {
      // Its catalog is in an encrypted object stream: without the password, nothing says where a signature is.
      const locked = encrypted('secret', method);
      const refusal = await verify(locked).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(EncryptedPdfError);
      expect(refusal).toMatchObject({
        why: 'password',
        message: 'encrypted with a password: its signatures cannot be found without it',
      });
      await expect(verify(locked, 'wrong')).rejects.toThrow('the password given does not open it');
      // Signed in an update the helper writes unencrypted: what is not encrypted reads without the password.
      const signed = await sign(locked, { password: 'secret' });
      expect(await verify(signed)).toMatchObject({ encryption: 'not decrypted', integrity: 'intact' });
      for (const password of ['secret', 'owner']) {
        const verdict = await verify(signed, password);
        expect(verdict).toMatchObject({
          encryption: 'decrypted with the password given',
          integrity: 'intact',
        });
        expect(verdict.valid).toBe(true);
      }
    },
  );
});

describe.skipIf(NO_OPENSSL)('documents as readers repair them', () => {
  it('a signature in an update whose cross-reference is damaged is found, verified, and said to be there', async () => {
    // The signer wrote its update's cross-reference wrong (`xref` misspelt): only a repairing read finds it.
    const pdf = await sign(basePdf(), {
      spoil: (update) => {
        const text = update.toString('latin1');
        const at = text.lastIndexOf('xref\n0 1');
        return Buffer.from(`${text.slice(0, at)}xrev${text.slice(at + 4)}`, 'latin1');
      },
    });
    const verdict = await verify(pdf);
    const [signature] = verdict.signatures;
    expect(signature!.checks.filter((c) => !c.ok)).toEqual([
      {
        check: 'changes after',
        ok: false,
        failure: 'modified',
        detail:
          'this signature is in an update whose cross-reference is damaged: only a reader that repairs the file finds it, and what it signed cannot be compared with the revisions before it',
      },
    ]);
    expect(verdict.integrity).toBe('modified-disallowed');
  });

  it('an update after a signature whose cross-reference does not read is said to be one', async () => {
    const signed = await sign(basePdf());
    const update = appendRevision(signed, { 4: '<< /Length 0 >>\nstream\n\nendstream' });
    const damaged = Buffer.from(
      update.toString('latin1').replace(/startxref\n(\d+)\n%%EOF\n$/, 'startxref\n7\n%%EOF\n'),
      'latin1',
    );
    const verdict = await verify(damaged);
    expect(after(verdict)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(
        /^modified after signing: an update of \d+ bytes follows the last revision this check reads, and its cross-reference is damaged/,
      ),
    });
  });

  it('a signature a later revision freed is still reported, and fails: the incremental saving attack', async () => {
    const signed = await sign(basePdf());
    const form = Number(/\/AcroForm (\d+) 0 R/.exec(objectText(signed, 1))![1]);
    const [field] = /\d+(?= 0 R\])/.exec(objectText(signed, 3).match(/\/Annots \[[^\]]*\]/)![0])!;
    const sigDict = Number(/\/V (\d+) 0 R/.exec(objectText(signed, Number(field)))![1]);
    const attacked = appendRevision(signed, {
      [sigDict]: null,
      [Number(field)]: null,
      [form]: '<< /Fields [] >>',
      3: objectText(signed, 3).replace(/ \/Annots \[[^\]]*\]/, ''),
    });
    const verdict = await verify(attacked);
    expect(verdict.signatures).toHaveLength(1);
    expect(verdict.signatures[0]!.checks.filter((c) => c.check !== 'changes after').every((c) => c.ok)).toBe(
      true,
    );
    expect(after(verdict)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(
        /^this signature is gone from the document's final revision; changed after this signature: /,
      ),
    });
    expect(verdict).toMatchObject({ valid: false, integrity: 'modified-disallowed' });
  });

  it('a byte range that takes in the blank lines after its %%EOF covers that revision', async () => {
    const verdict = await verify(await sign(basePdf(), { afterEof: '\r\n\r\n\n' }));
    expect(verdict.signatures[0]).toMatchObject({ revision: 2, valid: true });
    expect(after(verdict).detail).toBe('the signature covers the whole file (covers revision 2 of 2)');
  });
});
