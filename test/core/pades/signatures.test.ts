/**
 * CMS as it is written in the wild, and time that is proved rather than
 * claimed: signatures made by `openssl cms -sign` (CAdES with SHA-256 and
 * SHA-512, plain PKCS#7, RSA-PSS, ECDSA on P-256/384/521, Ed25519), RFC 3161
 * tokens from OpenSSL's TSA as signature timestamps and as document
 * timestamps (and one whose imprint is not the signature's), and a
 * certificate that had expired when it signed with its /M set back.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSignature, basePdf } from '../../helpers/pdf-build.js';
import {
  NO_OPENSSL,
  Pki,
  ed25519Cms,
  signatureValue,
  withSignatureTimestamp,
  type Party,
} from '../../helpers/openssl-pki.js';
import { tempDir } from '../../helpers/paths.js';
import { verifyPdf, type SignatureVerdict } from '../../../src/core/pades/verify.js';

const dir = tempDir('sign-cli-cms-');
let pki: Pki;
let ca: Party;
let tsa: Party;
const der = (file: string) =>
  new Uint8Array(Buffer.from(readFileSync(file, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64'));

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = pki.ca('Wild CA');
  tsa = pki.issue(ca, 'Wild TSA', { timestamping: true });
});

const only = async (pdf: Buffer, options: Parameters<typeof verifyPdf>[1] = {}): Promise<SignatureVerdict> =>
  (await verifyPdf(pdf, { trusted: [der(ca.cert)], ...options })).signatures[0]!;
const failures = (s: SignatureVerdict) => s.checks.filter((c) => !c.ok).map((c) => `${c.check}: ${c.detail}`);

describe.skipIf(NO_OPENSSL)('CMS made by OpenSSL', () => {
  it.each([
    [
      'RSA, CAdES, SHA-256',
      'rsa',
      { md: 'sha256' },
      'RSA PKCS#1 v1.5 with sha256',
      'ESS signing-certificate-v2 (sha256)',
    ],
    [
      'RSA, CAdES, SHA-512 (ESSCertIDv2 with SHA-512)',
      'rsa',
      { md: 'sha512' },
      'RSA PKCS#1 v1.5 with sha512',
      'ESS signing-certificate-v2 (sha512)',
    ],
    ['RSA-PSS', 'rsa', { md: 'sha256', pss: true }, 'RSA-PSS with sha256', 'names the signer'],
    ['ECDSA P-256', 'ec:P-256', { md: 'sha256' }, 'ECDSA with sha256', 'names the signer'],
    ['ECDSA P-384', 'ec:P-384', { md: 'sha384' }, 'ECDSA with sha384', 'names the signer'],
    ['ECDSA P-521', 'ec:P-521', { md: 'sha512' }, 'ECDSA with sha512', 'names the signer'],
    // OpenSSL 3.0's cms cannot sign with Ed25519: its key and certificate are OpenSSL's, the CMS is written by the test.
    ['Ed25519', 'ed25519', { md: 'sha512' }, 'Ed25519', 'names the signer'],
  ] as const)('%s verifies', async (_name, key, cmsOptions, algorithm, ess) => {
    const signer = pki.issue(ca, `Signer ${key}`, { key });
    const pdf = await addSignature(basePdf(), {
      field: 'Sig',
      sign: (bytes) =>
        key === 'ed25519' ? ed25519Cms(bytes, signer, ca) : pki.cms(bytes, signer, ca, cmsOptions),
    });
    const verdict = await only(pdf);
    expect(failures(verdict)).toEqual([]);
    expect(verdict.checks.find((c) => c.check === 'signature')!.detail).toContain(algorithm);
    expect(verdict.checks.find((c) => c.check === 'signing certificate')!.detail).toContain(ess);
  });

  it('plain PKCS#7 (adbe.pkcs7.detached, no ESS attribute) verifies; the same CMS as ETSI.CAdES.detached lacks what PAdES requires', async () => {
    const signer = pki.issue(ca, 'Plain Signer');
    const plain = await only(
      await addSignature(basePdf(), {
        field: 'Sig',
        subFilter: 'adbe.pkcs7.detached',
        sign: (bytes) => pki.cms(bytes, signer, ca, { cades: false }),
      }),
    );
    expect(failures(plain)).toEqual([]);
    const cades = await only(
      await addSignature(basePdf(), {
        field: 'Sig',
        subFilter: 'ETSI.CAdES.detached',
        sign: (bytes) => pki.cms(bytes, signer, ca, { cades: false }),
      }),
    );
    expect(failures(cades)).toEqual([
      'signing certificate: ETSI.CAdES.detached without the ESS signing certificate PAdES requires',
    ]);
  });
});

describe.skipIf(NO_OPENSSL)("time: timestamps from OpenSSL's TSA, and /M claimed", () => {
  it("a signature timestamp moves the validation time to the token's; one over other bytes fails", async () => {
    const signer = pki.issue(ca, 'Stamped Signer');
    const stamped = await addSignature(basePdf(), {
      field: 'Sig',
      sign: (bytes) => {
        const cms = pki.cms(bytes, signer, ca);
        return withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), tsa, ca));
      },
    });
    const verdict = await only(stamped);
    expect(failures(verdict)).toEqual([]);
    expect(verdict).toMatchObject({
      validation_time: 'timestamp',
      timestamp: { tsa: 'Wild TSA', valid: true },
    });
    expect(verdict.validated_at).toBe(verdict.timestamp!.time);

    const wrong = await addSignature(basePdf(), {
      field: 'Sig',
      sign: (bytes) =>
        withSignatureTimestamp(
          pki.cms(bytes, signer, ca),
          pki.timestamp(Buffer.from('something else'), tsa, ca),
        ),
    });
    const bad = await only(wrong);
    expect(failures(bad)).toEqual([
      expect.stringMatching(
        /^timestamp: the signature timestamp does not verify: its sha256 imprint is not the hash of what it should timestamp/,
      ),
    ]);
    expect(bad.validation_time).toBe('now');
  });

  it('a token by a certificate without the timeStamping purpose is not a timestamp', async () => {
    const signer = pki.issue(ca, 'Other Signer');
    const notTsa = pki.issue(ca, 'Not A TSA');
    const pdf = await addSignature(basePdf(), { field: 'Sig', sign: (bytes) => pki.cms(bytes, signer, ca) });
    expect(() => pki.timestamp(Buffer.from('x'), notTsa, ca)).toThrow();
    expect((await only(pdf)).timestamp).toBeNull();
  });

  it('a document timestamp appended after a signature is valid, and counted as an allowed change', async () => {
    const signer = pki.issue(ca, 'Later Stamped');
    const signed = await addSignature(basePdf(), {
      field: 'Sig',
      sign: (bytes) => pki.cms(bytes, signer, ca),
    });
    const stamped = await addSignature(signed, {
      field: 'Archive',
      subFilter: 'ETSI.RFC3161',
      sign: (bytes) => pki.timestamp(bytes, tsa, ca),
    });
    const verdict = await verifyPdf(stamped, { trusted: [der(ca.cert)] });
    expect(verdict.signatures.map(failures)).toEqual([[], []]);
    expect(verdict.signatures[1]).toMatchObject({
      type: 'document timestamp',
      signer: 'Wild TSA',
      timestamp: { valid: true },
    });
    expect(verdict.signatures[0]!.changes_after).toContainEqual(
      expect.objectContaining({ kind: 'document timestamp', allowed: true }),
    );
    expect(verdict.modified_after_signing).toBe(false);
    // A document timestamp over other bytes is caught by its imprint.
    const forged = await addSignature(signed, {
      field: 'Archive',
      subFilter: 'ETSI.RFC3161',
      sign: () => pki.timestamp(Buffer.from('other bytes'), tsa, ca),
    });
    const forgedVerdict = await verifyPdf(forged, { trusted: [der(ca.cert)] });
    expect(forgedVerdict.signatures[1]!.checks.find((c) => c.check === 'digest')).toMatchObject({
      ok: false,
      detail: expect.stringContaining('imprint is not the hash'),
    });
  });

  it('a certificate that had expired when it signed, /M set back into its validity: expired now, valid only --at claimed', async () => {
    const { ca: oldCa, signer } = await pki.dated(
      'Expired Signer',
      new Date('2020-01-01T00:00:00Z'),
      new Date('2021-01-01T00:00:00Z'),
    );
    const pdf = await addSignature(basePdf(), {
      field: 'Sig',
      signingTime: new Date('2020-06-01T12:00:00Z'),
      sign: (bytes) => pki.cms(bytes, signer, oldCa),
    });
    const trusted = [der(oldCa.cert)];
    const now = await only(pdf, { trusted });
    expect(failures(now)).toEqual([
      expect.stringMatching(
        /^certificate chain: the signer's certificate had expired at the validation time 20\d\d-.*valid until 2021-01-01/,
      ),
    ]);
    expect(now.signing_time).toBe('2020-06-01T12:00:00.000Z');
    const claimed = await only(pdf, { trusted, at: 'claimed' });
    expect(failures(claimed)).toEqual([]);
    expect(claimed).toMatchObject({ validation_time: 'claimed', validated_at: '2020-06-01T12:00:00Z' });
    const given = await only(pdf, { trusted, at: new Date('2022-01-01T00:00:00Z') });
    expect(given.validation_time).toBe('given');
    expect(failures(given)[0]).toContain('had expired at the validation time 2022-01-01T00:00:00Z');
  });
});
