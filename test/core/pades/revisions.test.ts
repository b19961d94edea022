/**
 * What later revisions may change after a signature: the shadow attacks
 * (hide, replace, hide-and-replace) and a rewritten content stream, each
 * followed by a second, trusted signature, fail the first signature and name
 * the change; certification signatures (DocMDP 1, 2, 3) each followed by a
 * change they allow and one they forbid; FieldMDP locks. The documents are
 * written byte by byte (test/helpers/pdf-build.ts); every CMS is OpenSSL's.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addSignature,
  appendRevision,
  basePdf,
  objectText,
  stream,
  textContent,
} from '../../helpers/pdf-build.js';
import { NO_OPENSSL, Pki, type Party } from '../../helpers/openssl-pki.js';
import { tempDir } from '../../helpers/paths.js';
import { verifyPdf, type PdfVerdict } from '../../../src/core/pades/verify.js';

const dir = tempDir('sign-cli-revisions-');
let pki: Pki;
let ca: Party;
let alice: Party;
let bob: Party;
let trusted: Uint8Array[];

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = pki.ca('Revisions CA');
  alice = pki.issue(ca, 'Alice Example');
  bob = pki.issue(ca, 'Bob Example');
  trusted = [
    new Uint8Array(Buffer.from(readFileSync(ca.cert, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64')),
  ];
});

const signAs =
  (who: () => Party, field: string, extra: Partial<Parameters<typeof addSignature>[1]> = {}) =>
  (pdf: Buffer) =>
    addSignature(pdf, { field, sign: (bytes) => pki.cms(bytes, who(), ca), ...extra });
const verify = (pdf: Buffer) => verifyPdf(pdf, { trusted });
const check = (verdict: PdfVerdict, field: string, name: string) =>
  verdict.signatures.find((s) => s.field === field)!.checks.find((c) => c.check === name)!;

describe.skipIf(NO_OPENSSL)('changes after a signature', () => {
  it('a page whose content stream is rewritten fails the earlier signature, though a trusted later one covers it', async () => {
    const signed = await signAs(() => alice, 'Alice')(basePdf());
    const attacked = appendRevision(signed, { 4: stream(textContent('PAY 900 EUR TO MALLORY')) });
    const verdict = await verify(await signAs(() => bob, 'Bob')(attacked));
    expect(verdict.valid).toBe(false);
    expect(check(verdict, 'Alice', 'changes after')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('changed after this signature: page 1 content (revision 3)'),
    });
    expect(verdict.signatures.find((s) => s.field === 'Bob')!.valid).toBe(true);
    const alices = verdict.signatures.find((s) => s.field === 'Alice')!;
    expect(alices.revision).toBe(2);
    expect(alices.changes_after).toContainEqual(
      expect.objectContaining({
        revision: 3,
        kind: 'page content',
        object: '4 0 R',
        page: 1,
        allowed: false,
      }),
    );
    expect(alices.changes_after).toContainEqual(
      expect.objectContaining({ revision: 4, kind: 'signature field', field: 'Bob', allowed: true }),
    );
    expect(verdict.modified_after_signing).toBe(false);
  });

  it('shadow hide: an overlay the signer saw is removed from the page', async () => {
    // Alice signs a page drawn as [text, overlay]: the overlay hides the line underneath.
    const base = basePdf({
      text: 'PAY 100 EUR TO ALICE',
      contents: '[4 0 R 10 0 R]',
      objects: { 10: stream('1 1 1 rg 60 700 400 40 re f') },
    });
    const signed = await signAs(() => alice, 'Alice')(base);
    const attacked = appendRevision(signed, {
      3: objectText(signed, 3).replace('[4 0 R 10 0 R]', '[4 0 R]'),
    });
    const verdict = await verify(await signAs(() => bob, 'Bob')(attacked));
    expect(check(verdict, 'Alice', 'changes after').detail).toContain('page 1 content (revision 3)');
  });

  it('shadow hide-and-replace: /Contents repointed at an object already inside the signed bytes', async () => {
    const base = basePdf({ objects: { 10: stream(textContent('PAY 900 EUR TO MALLORY')) } });
    const signed = await signAs(() => alice, 'Alice')(base);
    const attacked = appendRevision(signed, {
      3: objectText(signed, 3).replace('/Contents 4 0 R', '/Contents 10 0 R'),
    });
    const verdict = await verify(await signAs(() => bob, 'Bob')(attacked));
    expect(verdict.valid).toBe(false);
    expect(check(verdict, 'Alice', 'changes after').detail).toContain('page 1 content (revision 3)');
  });

  it('shadow replace: a form XObject the page draws is redefined, and a font replaced', async () => {
    const base = basePdf({
      contents: '10 0 R',
      resources: '<< /Font << /F1 5 0 R >> /XObject << /Fm1 11 0 R >> >>',
      objects: {
        10: stream('/Fm1 Do'),
        11: stream(
          textContent('PAY 100 EUR TO ALICE'),
          ' /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >>',
        ),
      },
    });
    const signed = await signAs(() => alice, 'Alice')(base);
    const xobject = appendRevision(signed, {
      11: stream(
        textContent('PAY 900 EUR TO MALLORY'),
        ' /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >>',
      ),
    });
    const verdict = await verify(await signAs(() => bob, 'Bob')(xobject));
    expect(check(verdict, 'Alice', 'changes after').detail).toContain('page 1 resources (revision 3)');
    const font = appendRevision(signed, { 5: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>' });
    expect(
      check(await verify(await signAs(() => bob, 'Bob')(font)), 'Alice', 'changes after').detail,
    ).toContain('page 1 resources (revision 3)');
  });

  it('an overlay annotation removed after an approval signature fails it (annotations need DocMDP 3)', async () => {
    const base = basePdf({
      page: ' /Annots [10 0 R]',
      objects: {
        10: '<< /Type /Annot /Subtype /Square /Rect [60 700 460 740] /IC [1 1 1] /C [1 1 1] /F 4 >>',
      },
    });
    const signed = await signAs(() => alice, 'Alice')(base);
    const attacked = appendRevision(signed, {
      3: objectText(signed, 3).replace(/\/Annots \[[^\]]*\]/, (m) =>
        m.replace('10 0 R ', '').replace(' 10 0 R', ''),
      ),
    });
    const verdict = await verify(await signAs(() => bob, 'Bob')(attacked));
    expect(check(verdict, 'Alice', 'changes after')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('annotation'),
    });
  });

  it('a replaced catalog, a freed object and an incremental update that adds nothing visible', async () => {
    const signed = await signAs(() => alice, 'Alice')(basePdf());
    const freed = appendRevision(signed, { 5: null });
    expect(check(await verify(freed), 'Alice', 'changes after').detail).toContain('revision 3');
    const catalog = appendRevision(signed, {
      1: objectText(signed, 1).replace('>>', ' /OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >> >>'),
    });
    expect(check(await verify(catalog), 'Alice', 'changes after').detail).toContain('/OpenAction');
    // An object nothing refers to, redefined: no reader shows it.
    const unused = appendRevision(signed, { 40: '<< /Unused true >>' });
    const verdict = await verify(unused);
    expect(verdict.valid).toBe(true);
    expect(verdict.modified_after_signing).toBe(true);
  });
});

describe.skipIf(NO_OPENSSL)('DocMDP and FieldMDP', () => {
  /** A page with two text fields, amount (object 10) and note (11), in AcroForm 12. */
  const formPdf = () =>
    basePdf({
      page: ' /Annots [10 0 R 11 0 R]',
      catalog: ' /AcroForm 12 0 R',
      objects: {
        10: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /Rect [72 600 272 630] /P 3 0 R >>',
        11: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (note) /Rect [72 560 272 590] /P 3 0 R >>',
        12: '<< /Fields [10 0 R 11 0 R] /DA (/Helv 12 Tf 0 g) >>',
      },
    });
  const fill = (pdf: Buffer, num: number, value: string) =>
    appendRevision(pdf, {
      [num]: objectText(pdf, num).replace(/ \/V \([^)]*\)|(?= \/Rect)/, ` /V (${value})`),
    });
  const annotate = (pdf: Buffer) =>
    appendRevision(pdf, {
      20: '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (a note) >>',
      3: objectText(pdf, 3).replace('/Annots [', '/Annots [20 0 R '),
    });
  const certified = (p: 1 | 2 | 3) => signAs(() => alice, 'Author', { docmdp: p })(formPdf());

  it('P=1: a document timestamp is allowed, a second signature is not', async () => {
    const doc = await certified(1);
    const certification = (await verify(doc)).signatures[0]!;
    expect(certification).toMatchObject({ type: 'certification', docmdp: 1, valid: true });
    const signedAgain = await verify(await signAs(() => bob, 'Bob')(doc));
    expect(check(signedAgain, 'Author', 'changes after')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('DocMDP permission 1 allows no change'),
    });
    const tsa = pki.issue(ca, 'Revisions TSA', { timestamping: true });
    const stamped = await verify(
      await addSignature(doc, {
        field: 'Stamp',
        subFilter: 'ETSI.RFC3161',
        sign: (bytes) => pki.timestamp(bytes, tsa, ca),
      }),
    );
    expect(stamped.valid, JSON.stringify(stamped.signatures.map((s) => s.checks.filter((c) => !c.ok)))).toBe(
      true,
    );
    expect(stamped.signatures.map((s) => s.type)).toEqual(['certification', 'document timestamp']);
  });

  it('P=2: filling a form field is allowed, adding an annotation is not', async () => {
    const doc = await certified(2);
    expect((await verify(fill(doc, 10, '250'))).valid).toBe(true);
    const annotated = await verify(annotate(doc));
    expect(check(annotated, 'Author', 'changes after')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('annotation'),
    });
  });

  it('P=3: adding an annotation is allowed, changing the page is not', async () => {
    const doc = await certified(3);
    expect((await verify(annotate(doc))).valid).toBe(true);
    const changed = await verify(appendRevision(doc, { 4: stream(textContent('PAY 900 EUR TO MALLORY')) }));
    expect(check(changed, 'Author', 'changes after').detail).toContain('page 1 content (revision 3)');
  });

  it('an approval signature that locks a field: that field may not be filled after it, another may', async () => {
    const doc = await signAs(() => alice, 'Alice', { lock: { action: 'Include', fields: ['amount'] } })(
      formPdf(),
    );
    const locked = await verify(fill(doc, 10, '900'));
    expect(check(locked, 'Alice', 'changes after')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('form field amount (revision 3)'),
    });
    expect((await verify(fill(doc, 11, 'paid'))).valid).toBe(true);
  });
});

describe.skipIf(NO_OPENSSL)('PDF 1.5 files: object streams and cross-reference streams', () => {
  /** basePdf with everything but its content stream moved into an object stream, the cross-reference a stream. */
  const compressedBase = () => {
    const plain = basePdf();
    return appendRevision(
      plain,
      { 1: objectText(plain, 1), 2: objectText(plain, 2), 3: objectText(plain, 3), 5: objectText(plain, 5) },
      '',
      true,
    );
  };

  it('a signature over a compressed file verifies, and one whose page is rewritten in a compressed update fails', async () => {
    const signed = await signAs(() => alice, 'Alice')(compressedBase());
    const verdict = await verify(signed);
    expect(verdict.valid, JSON.stringify(verdict.signatures[0]!.checks.filter((c) => !c.ok))).toBe(true);
    expect(verdict.revisions).toHaveLength(3);
    // The attacker's update is itself compressed: the page (in an object stream) now draws another stream.
    const attacked = appendRevision(
      signed,
      {
        3: objectText(signed, 3).replace('/Contents 4 0 R', '/Contents 30 0 R'),
        30: stream(textContent('PAY 900 EUR TO MALLORY')),
      },
      '',
      true,
    );
    const after = await verify(await signAs(() => bob, 'Bob')(attacked));
    expect(check(after, 'Alice', 'changes after').detail).toContain('page 1 content (revision 4)');
    expect(check(after, 'Bob', 'changes after').ok).toBe(true);
  });

  it('a DSS added in a compressed update after the signature is allowed', async () => {
    const signed = await signAs(() => alice, 'Alice')(compressedBase());
    const catalog = objectText(signed, 1).replace(/>>\s*$/, ' /DSS 40 0 R >>');
    const withDss = appendRevision(
      signed,
      { 1: catalog, 40: '<< /Certs [41 0 R] >>', 41: stream('not really a certificate') },
      '',
      true,
    );
    const verdict = await verify(withDss);
    expect(verdict.valid).toBe(true);
    expect(verdict.modified_after_signing).toBe(true);
    expect(verdict.signatures[0]!.changes_after).toContainEqual(
      expect.objectContaining({ kind: 'dss', allowed: true }),
    );
  });
});
