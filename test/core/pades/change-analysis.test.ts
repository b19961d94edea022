/**
 * The change analysis grown up, each rule in a small document written byte by byte
 * (test/helpers/pdf-build.ts) and signed by OpenSSL: objects compared by what they are, not by
 * their numbers (a catalog or page resources saved again under new numbers is no change, a
 * different font is); the catalog's /Version and iText 5's /ITXT; an appearance judged by what it
 * draws (replaced while its field's value stays, as DSS's replace attack does); form filling as
 * pyHanko counts it (/DA, a list box's /I); a document timestamp filling a field made earlier;
 * annotations added after an approval signature; a page's /Tabs; the structure tree updated for
 * a new widget, and one whose tags change; widgets removed under DocMDP 3, unless locked.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addSignature,
  appendRevision,
  basePdf,
  nextObject,
  objectText,
  stream,
  textContent,
} from '../../helpers/pdf-build.js';
import { NO_OPENSSL, Pki, type Party } from '../../helpers/openssl-pki.js';
import { tempDir } from '../../helpers/paths.js';
import { verifyPdf, type PdfVerdict } from '../../../src/core/pades/verify.js';

const dir = tempDir('sign-cli-changes-');
let pki: Pki;
let ca: Party;
let alice: Party;
let bob: Party;
let trusted: Uint8Array[];

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = pki.ca('Changes CA');
  alice = pki.issue(ca, 'Alice Changes');
  bob = pki.issue(ca, 'Bob Changes');
  trusted = [
    new Uint8Array(Buffer.from(readFileSync(ca.cert, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64')),
  ];
});

const signAs =
  (who: () => Party, field: string, extra: Partial<Parameters<typeof addSignature>[1]> = {}) =>
  (pdf: Buffer) =>
    addSignature(pdf, { field, sign: (bytes) => pki.cms(bytes, who(), ca), ...extra });
const verify = (pdf: Buffer) => verifyPdf(pdf, { trusted });
const after = (verdict: PdfVerdict, field = 'Alice') =>
  verdict.signatures.find((s) => s.field === field)!.checks.find((c) => c.check === 'changes after')!;
/** Appends `text` before the dictionary's closing `>>`. */
const add = (body: string, text: string) => body.replace(/>>\s*$/, `${text} >>`);

describe.skipIf(NO_OPENSSL)('objects compared by what they are', () => {
  it('a catalog saved anew under another number with /DSS and /Extensions is no change; one with /OpenAction is', async () => {
    const signed = await signAs(() => alice, 'Alice')(basePdf());
    const n = nextObject(signed);
    const resaved = (extra: string) =>
      appendRevision(
        signed,
        { [n]: add(objectText(signed, 1), extra), [n + 1]: '<< /Certs [] >>' },
        '',
        false,
        n,
      );
    const dss = await verify(
      resaved(` /DSS ${n + 1} 0 R /Extensions << /ESIC << /BaseVersion /1.7 /ExtensionLevel 2 >> >>`),
    );
    expect(after(dss)).toMatchObject({ ok: true });
    expect(dss.signatures[0]!.changes_after).toContainEqual(
      expect.objectContaining({ kind: 'dss', object: 'trailer', allowed: true }),
    );
    const action = await verify(resaved(' /OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>'));
    expect(after(action)).toMatchObject({
      ok: false,
      detail: expect.stringContaining("the catalog's /OpenAction"),
    });
  });

  it('page resources written again under new numbers with the same content are no change; another font is', async () => {
    const base = basePdf({ resources: '10 0 R', objects: { 10: '<< /Font << /F1 5 0 R >> >>' } });
    const signed = await signAs(() => alice, 'Alice')(base);
    const page = objectText(signed, 3).replace('/Resources 10 0 R', '/Resources 40 0 R');
    const same = appendRevision(signed, {
      3: page,
      40: '<< /Font << /F1 41 0 R >> >>',
      41: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    });
    expect(after(await verify(same)).ok).toBe(true);
    const other = appendRevision(signed, {
      3: page,
      40: '<< /Font << /F1 41 0 R >> >>',
      41: '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
    });
    expect(after(await verify(other))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('page 1 resources (revision 3)'),
    });
  });

  it("the catalog's /Version and iText 5's /ITXT in the page tree are allowed after a signature", async () => {
    const signed = await signAs(() => alice, 'Alice')(basePdf());
    const version = await verify(appendRevision(signed, { 1: add(objectText(signed, 1), ' /Version /2.0') }));
    expect(after(version).ok).toBe(true);
    const itxt = await verify(appendRevision(signed, { 2: add(objectText(signed, 2), ' /ITXT (5.5.13)') }));
    expect(after(itxt).ok).toBe(true);
    expect(itxt.modified_after_signing).toBe(true);
  });
});

describe.skipIf(NO_OPENSSL)('the form', () => {
  /** A text field (10) whose appearance (20) draws its value, and a list box (11). */
  const formPdf = () =>
    basePdf({
      page: ' /Annots [10 0 R 11 0 R]',
      catalog: ' /AcroForm 12 0 R',
      objects: {
        10: '<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (100) /DA (/Helv 12 Tf 0 g) /AP << /N 20 0 R >> /Rect [72 600 272 630] /P 3 0 R >>',
        11: '<< /Type /Annot /Subtype /Widget /FT /Ch /Ff 0 /T (choice) /Opt [(a) (b)] /V (a) /I [0] /Rect [72 560 272 590] /P 3 0 R >>',
        12: '<< /Fields [10 0 R 11 0 R] /DA (/Helv 12 Tf 0 g) >>',
        20: stream('BT /Helv 12 Tf 2 8 Td (100) Tj ET', ' /Type /XObject /Subtype /Form /BBox [0 0 200 30]'),
      },
    });
  const drawing = (text: string) =>
    stream(`BT /Helv 12 Tf 2 8 Td (${text}) Tj ET`, ' /Type /XObject /Subtype /Form /BBox [0 0 200 30]');

  it('an appearance replaced while its value stays is caught (the replace attack); redrawn for a new value, it is filling', async () => {
    const signed = await signAs(() => alice, 'Alice')(formPdf());
    const field = objectText(signed, 10);
    const swapped = appendRevision(signed, {
      10: field.replace('/N 20 0 R', '/N 40 0 R'),
      40: drawing('900'),
    });
    expect(after(await verify(swapped))).toMatchObject({
      ok: false,
      detail: expect.stringContaining("form field amount's appearance was replaced while its value stayed"),
    });
    const redrawn = appendRevision(signed, { 20: drawing('900') });
    expect(after(await verify(redrawn))).toMatchObject({
      ok: false,
      detail: expect.stringContaining("form field amount's appearance changed while its value stayed"),
    });
    const filled = appendRevision(signed, {
      10: field.replace('/V (100)', '/V (900)').replace('/N 20 0 R', '/N 40 0 R'),
      40: drawing('900'),
    });
    expect(after(await verify(filled)).ok).toBe(true);
  });

  it("a list box's selection (/I) and a field's default appearance (/DA) are filling", async () => {
    const signed = await signAs(() => alice, 'Alice')(formPdf());
    const filled = appendRevision(signed, {
      11: objectText(signed, 11).replace('/V (a) /I [0]', '/V (b) /I [1]'),
      10: objectText(signed, 10).replace('/DA (/Helv 12 Tf 0 g)', '/DA (/Helv 10 Tf 0 g)'),
    });
    const verdict = await verify(filled);
    expect(after(verdict).ok).toBe(true);
    expect(verdict.signatures[0]!.changes_after.map((c) => c.detail)).toEqual(
      expect.arrayContaining(['form field choice filled in (/I)', 'form field amount filled in (/DA)']),
    );
  });

  it('a document timestamp that fills a signature field made earlier is allowed', async () => {
    const signed = await signAs(() => alice, 'Alice')(basePdf());
    // An empty signature field, listed in the form but on no page yet.
    const form = /\/AcroForm (\d+) 0 R/.exec(objectText(signed, 1))![1]!;
    const n = nextObject(signed);
    const prepared = appendRevision(signed, {
      [n]: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Archive) /Rect [0 0 0 0] /F 132 /P 3 0 R >>',
      [Number(form)]: objectText(signed, Number(form)).replace('/Fields [', `/Fields [${n} 0 R `),
    });
    const tsa = pki.issue(ca, 'Changes TSA', { timestamping: true });
    const stamped = await addSignature(prepared, {
      field: 'Archive',
      existingField: n,
      subFilter: 'ETSI.RFC3161',
      sign: (bytes) => pki.timestamp(bytes, tsa, ca),
    });
    const verdict = await verify(stamped);
    expect(after(verdict)).toMatchObject({ ok: true });
    expect(Object.fromEntries(verdict.signatures.map((s) => [s.field, s.valid]))).toEqual({
      Alice: true,
      Archive: true,
    });
  });
});

describe.skipIf(NO_OPENSSL)('annotations and tab order', () => {
  const note = '<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (a note) >>';

  it('an annotation added after an approval signature is allowed; one changed is not (DocMDP 3 allows both)', async () => {
    const signed = await signAs(() => alice, 'Alice')(basePdf());
    const annotated = appendRevision(signed, {
      20: note,
      3: objectText(signed, 3).replace('/Annots [', '/Annots [20 0 R '),
    });
    expect(after(await verify(annotated)).ok).toBe(true);
    const edited = appendRevision(annotated, { 20: note.replace('a note', 'another note') });
    expect(after(await verify(edited))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('an annotation on page 1'),
    });
    const certified = await signAs(() => alice, 'Alice', { docmdp: 3 })(basePdf());
    const annotatedP3 = appendRevision(certified, {
      20: note,
      3: objectText(certified, 3).replace('/Annots [', '/Annots [20 0 R '),
    });
    expect(
      after(await verify(appendRevision(annotatedP3, { 20: note.replace('a note', 'another') }))).ok,
    ).toBe(true);
  });

  it('/Tabs /S (what signing software sets) is allowed under DocMDP 2; another tab order needs DocMDP 3', async () => {
    const p2 = await signAs(() => alice, 'Alice', { docmdp: 2 })(basePdf());
    const tabs = (pdf: Buffer, order: string) =>
      appendRevision(pdf, { 3: add(objectText(pdf, 3), ` /Tabs /${order}`) });
    expect(after(await verify(tabs(p2, 'S'))).ok).toBe(true);
    expect(after(await verify(tabs(p2, 'R')))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('tab order of annotations (/Tabs)'),
    });
    const p3 = await signAs(() => alice, 'Alice', { docmdp: 3 })(basePdf());
    expect(after(await verify(tabs(p3, 'R'))).ok).toBe(true);
  });

  it('a widget removed under DocMDP 3 is allowed, unless the signature locks its field', async () => {
    /** A text field (13) whose one widget (11) is on the page. */
    const withWidget = () =>
      basePdf({
        page: ' /Annots [11 0 R]',
        catalog: ' /AcroForm 12 0 R',
        objects: {
          11: '<< /Type /Annot /Subtype /Widget /Parent 13 0 R /Rect [72 560 272 590] /P 3 0 R >>',
          12: '<< /Fields [13 0 R] >>',
          13: '<< /FT /Tx /T (note) /V (hello) /Kids [11 0 R] >>',
        },
      });
    const remove = (pdf: Buffer) =>
      appendRevision(pdf, {
        3: objectText(pdf, 3).replace('11 0 R ', '').replace(' 11 0 R', ''),
        13: objectText(pdf, 13).replace(' /Kids [11 0 R]', ''),
      });
    const free = await signAs(() => alice, 'Alice', { docmdp: 3 })(withWidget());
    expect(after(await verify(remove(free))).ok).toBe(true);
    const locked = await signAs(() => alice, 'Alice', {
      docmdp: 3,
      lock: { action: 'Include', fields: ['note'] },
    })(withWidget());
    expect(after(await verify(remove(locked)))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('note'),
    });
  });
});

describe.skipIf(NO_OPENSSL)('the structure tree', () => {
  /** A tagged page: a paragraph element (31) with alternate text, under the tree's root (30). */
  const tagged = () =>
    basePdf({
      catalog: ' /StructTreeRoot 30 0 R /MarkInfo << /Marked true >>',
      page: ' /StructParents 0',
      contents: '33 0 R',
      objects: {
        30: '<< /Type /StructTreeRoot /K [31 0 R] /ParentTree 32 0 R /ParentTreeNextKey 1 >>',
        31: '<< /Type /StructElem /S /P /P 30 0 R /Pg 3 0 R /K 0 /Alt (PAY 100 EUR TO ALICE) >>',
        32: '<< /Nums [0 [31 0 R]] >>',
        33: stream(`/P << /MCID 0 >> BDC ${textContent('PAY 100 EUR TO ALICE')} EMC`),
      },
    });

  it("updated for a second signature's widget is allowed; an element's alternate text changed is not", async () => {
    const signed = await signAs(() => alice, 'Alice')(tagged());
    // Bob's field is the object after his signature's; its element points at its widget.
    const widget = nextObject(signed) + 1;
    const element = widget + 2;
    const both = await signAs(() => bob, 'Bob', {
      objects: {
        30: `<< /Type /StructTreeRoot /K [31 0 R ${element} 0 R] /ParentTree ${element + 1} 0 R /ParentTreeNextKey 2 >>`,
        [element]: `<< /Type /StructElem /S /Form /P 30 0 R /Pg 3 0 R /K << /Type /OBJR /Obj ${widget} 0 R >> >>`,
        [element + 1]: `<< /Nums [0 [31 0 R] 1 ${element} 0 R] >>`,
      },
    })(signed);
    const verdict = await verify(both);
    expect(after(verdict)).toMatchObject({ ok: true });
    expect(verdict.signatures[0]!.changes_after).toContainEqual(
      expect.objectContaining({ kind: 'structure tree', allowed: true }),
    );
    const retagged = appendRevision(signed, {
      31: objectText(signed, 31).replace('PAY 100 EUR TO ALICE', 'PAY 900 EUR TO MALLORY'),
    });
    expect(after(await verify(retagged))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('structure tree (tags) changed'),
    });
  });
});
