/**
 * Long-term status of the real-world files that carry long-term validation data (pdfcpu's PAdES
 * samples from the Ukrainian Diia test PKI, iText's level samples, DSS's LT and LTA test files,
 * Acrobat's adbe-revocationInfoArchival): the level each signature reaches, whether it is
 * LTV-complete, and what its revocation data says. Where a file's name or its source states a
 * level, the level here is that one, or the difference is written down with its reason. Their
 * roots are test roots nobody trusts (pades-ocsp-sign-cert.pdf aside, whose root Node trusts):
 * the level counts structure, not trust. Read from SIGN_PADES_CORPUS or ../shared/pades-realworld,
 * skipped when absent (realworld.test.ts says so, and fails in CI).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/paths.js';
import { verifyPdf, type PdfVerdict } from '../../../src/core/pades/verify.js';

const CORPUS = process.env.SIGN_PADES_CORPUS || resolve(ROOT, '..', 'shared', 'pades-realworld');
const present = existsSync(join(CORPUS, 'expected.tsv'));
/** As realworld.test.ts: a fixed instant, so that a certificate expiring does not move these. */
const NOW = new Date('2026-06-01T00:00:00Z');

const verify = (file: string): Promise<PdfVerdict> =>
  verifyPdf(readFileSync(join(CORPUS, file)), { now: NOW });
const levels = (verdict: PdfVerdict) =>
  Object.fromEntries(verdict.signatures.filter((s) => s.ltv).map((s) => [s.field, s.ltv!.level]));

describe.skipIf(!present)('long-term status of real-world files', () => {
  it.each([
    // pdfcpu's samples, named by their level (Diia test PKI).
    ['pdfcpu/testPAdES_BB.pdf', { 'SignatureFieldName 25': 'B-B' }],
    ['pdfcpu/testPAdES_BT.pdf', { 'SignatureFieldName 25': 'B-T' }],
    ['pdfcpu/testPAdES_BLT.pdf', { 'SignatureFieldName 25': 'B-LT' }],
    ['pdfcpu/testPAdES_BLTA.pdf', { 'SignatureFieldName 25': 'B-LTA' }],
    // iText's PAdESLevelIntegrationTest samples.
    ['itext/PAdESLevel__B-T.pdf', { Signature1: 'B-T' }],
    ['itext/PAdESLevel__B-LTA.pdf', { Signature1: 'B-LTA' }],
    // DSS's "PAdES-LT": the two signatures whose responses its DSS holds are B-LT; the first has
    // none for its signer (LEPROPRE Jean), and a document timestamp after it: B-T.
    ['dss/PAdES-LT.pdf', { Signature1: 'B-T', Signature2: 'B-LT', Signature4: 'B-LT' }],
    // Acrobat's archived OCSP response, no timestamp.
    ['dss/adbe_ocsp_signed.pdf', { Signature2: 'B-B' }],
  ] as const)('%s', async (file, expected) => {
    expect(levels(await verify(file))).toEqual(expected);
  });

  it('pades-ocsp-sign-cert.pdf (e-Szigno, a root Node trusts): B-LTA, LTV-complete, every certificate good; valid; re-timestamp before its TSA certificate expires', async () => {
    const verdict = await verify('dss/pades-ocsp-sign-cert.pdf');
    expect(verdict.valid).toBe(true);
    const signature = verdict.signatures.find((s) => s.field === 'Signature1')!;
    expect(signature.ltv).toMatchObject({
      level: 'B-LTA',
      complete: true,
      proves_until: '2028-02-07T18:00:00Z',
      renewal:
        'the certificate of Qualified e-Szigno TSA 2016 01, on which the document timestamp Signature2 rests, expires then',
    });
    expect(
      signature.revocation!.certificates.map((c) => [c.certificate, c.role, c.status, c.kind, c.covered]),
    ).toEqual([
      ['Czékmány Balázs', 'signer', 'good', 'ocsp', true],
      ['Qualified e-Szigno CA 2009', 'signer CA', 'good', 'ocsp', true],
      ['Qualified e-Szigno TSA 2016 01', 'TSA', 'good', 'ocsp', true],
    ]);
  });

  it('Acrobat’s adbe-revocationInfoArchival is read: the OCSP response and the CRL signed with the signature', async () => {
    const ocsp = (await verify('dss/adbe_ocsp_signed.pdf')).signatures[0]!;
    // No timestamp: checked at the current time, which the response of 2018 does not speak for.
    expect(ocsp.revocation!.certificates[0]).toMatchObject({
      certificate: 'Luigi Di Maio',
      status: 'unknown',
    });
    expect(ocsp.revocation!.certificates[0]!.detail).toBe(
      'Luigi Di Maio: the OCSP response signed with the signature does not serve: it speaks for 2018-11-13T14:30:00Z to 2018-11-13T21:05:07Z, not for 2026-06-01T00:00:00Z',
    );
    const crl = (await verify('dss/adbe_crl_signed.pdf')).signatures.find((s) => s.field === 'Signature2')!;
    expect(crl.revocation!.certificates[0]!.detail).toContain(
      'the CRL signed with the signature does not serve',
    );
    // B-T, not B-LT: the document timestamps' TSA (PostSignum TSA - TSU 1) has no revocation data in the file.
    expect(crl.ltv!.level).toBe('B-T');
  });

  it('where DSS names a higher level, the certificate without revocation data in the file is named', async () => {
    // lt-short.pdf: 24 signatures (DSS: "LT") and a document timestamp; their TSA's CA has no OCSP response or CRL here.
    const short = await verify('dss/lt-short.pdf');
    const signatures = short.signatures.filter((s) => s.ltv);
    expect(signatures).toHaveLength(24);
    expect(new Set(signatures.map((s) => s.ltv!.level))).toEqual(new Set(['B-T']));
    expect(signatures[1]!.revocation!.certificates.find((c) => c.role === 'TSA CA')).toMatchObject({
      certificate: 'GlobalSign CA for AATL - SHA384 - G4',
      status: 'unknown',
    });
    // Certipost "extended-LTA": its signer's CRLs are there (signed with SHA-1: counted, not accepted), its primary CA's are not.
    const certipost = await verify('dss/Test.signed_Certipost-2048-SHA512.extended-LTA.pdf');
    const signature = certipost.signatures.find((s) => s.ltv)!;
    expect(signature.ltv!.level).toBe('B-T');
    expect(signature.revocation!.certificates.map((c) => c.detail)).toContain(
      'Certipost E-Trust Primary Qualified CA: no OCSP response or CRL about it in the file (3 about other certificates)',
    );
  });
});
