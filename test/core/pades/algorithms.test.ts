/**
 * The algorithms and CMS structures signing software writes beyond the common ones, each in a
 * small signed PDF: SHA-3 with RSA and ECDSA, Ed448 with SHAKE256, plain ECDSA (BSI TR-03111),
 * EdDSA with a digest RFC 8419 does not allow; SHA-1 as a policy (computed, refused unless
 * allowed, distinct from a digest that does not match) in a CAdES CMS, adbe.pkcs7.sha1 and
 * adbe.x509.rsa_sha1; two SignerInfos in one CMS; a CMS carrying content of its own; a
 * timestamp whose TSA certificate is only in the document's DSS. OpenSSL makes the keys and
 * certificates, and the CMS where its `cms -sign` can; the others are written by
 * test/helpers/openssl-pki.ts's handCms, signed by node:crypto.
 */
import * as nodeCrypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addSignature,
  appendRevision,
  basePdf,
  nextObject,
  objectText,
  stream,
} from '../../helpers/pdf-build.js';
import {
  NO_OPENSSL,
  Pki,
  handCms,
  signatureValue,
  withSignatureTimestamp,
  type Party,
} from '../../helpers/openssl-pki.js';
import { tempDir } from '../../helpers/paths.js';
import { encode } from '../../../src/core/pades/der-write.js';
import { parseSignedData } from '../../../src/core/pades/cms.js';
import { verifyPdf, type SignatureVerdict, type VerifyOptions } from '../../../src/core/pades/verify.js';

const dir = tempDir('sign-cli-algorithms-');
let pki: Pki;
let ca: Party;
let tsa: Party;
const der = (file: string) =>
  Buffer.from(readFileSync(file, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64');

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = pki.ca('Algorithms CA');
  tsa = pki.issue(ca, 'Algorithms TSA', { timestamping: true });
});

const only = async (pdf: Buffer, options: VerifyOptions = {}): Promise<SignatureVerdict> =>
  (await verifyPdf(pdf, { trusted: [new Uint8Array(der(ca.cert))], ...options })).signatures[0]!;
const failures = (s: SignatureVerdict) =>
  s.checks.filter((c) => !c.ok).map((c) => `${c.check} (${c.failure}): ${c.detail}`);
const check = (s: SignatureVerdict, name: string) => s.checks.find((c) => c.check === name)!;
const key = (party: Party) => nodeCrypto.createPrivateKey(readFileSync(party.key));
const signed = (
  sign: (bytes: Buffer) => Uint8Array,
  extra: Partial<Parameters<typeof addSignature>[1]> = {},
) => addSignature(basePdf(), { field: 'Sig', sign, ...extra });

describe.skipIf(NO_OPENSSL)('algorithms', () => {
  it.each([
    [
      'RSA with SHA3-256 (OpenSSL: rsaEncryption with a SHA3-256 digest)',
      'rsa',
      (bytes: Buffer, s: Party) => pki.cms(bytes, s, ca, { md: 'sha3-256' }),
      'RSA PKCS#1 v1.5 with sha3-256',
    ],
    [
      'RSA with SHA3-512 named in the signature algorithm (id-rsassa-pkcs1-v1_5-with-sha3-512)',
      'rsa',
      (bytes: Buffer, s: Party) =>
        handCms(bytes, s, ca, {
          digest: 'sha3-512',
          digestOid: '2.16.840.1.101.3.4.2.10',
          signatureOid: '2.16.840.1.101.3.4.3.16',
          sign: (attributes) => nodeCrypto.sign('sha3-512', attributes, key(s)),
        }),
      'RSA PKCS#1 v1.5 with sha3-512',
    ],
    [
      'ECDSA with SHA3-384',
      'ec:P-384',
      (bytes: Buffer, s: Party) =>
        handCms(bytes, s, ca, {
          digest: 'sha3-384',
          digestOid: '2.16.840.1.101.3.4.2.9',
          signatureOid: '2.16.840.1.101.3.4.3.11',
          sign: (attributes) => nodeCrypto.sign('sha3-384', attributes, key(s)),
        }),
      'ECDSA with sha3-384',
    ],
    [
      'plain ECDSA with SHA-256 (BSI TR-03111: r and s side by side)',
      'ec:P-256',
      (bytes: Buffer, s: Party) =>
        handCms(bytes, s, ca, {
          digest: 'sha256',
          digestOid: '2.16.840.1.101.3.4.2.1',
          signatureOid: '0.4.0.127.0.7.1.1.4.1.3',
          sign: (attributes) =>
            nodeCrypto.sign('sha256', attributes, { key: key(s), dsaEncoding: 'ieee-p1363' }),
        }),
      'plain ECDSA (BSI TR-03111) with sha256',
    ],
    [
      'Ed448 with SHAKE256 (RFC 8419)',
      'ed448',
      (bytes: Buffer, s: Party) =>
        handCms(bytes, s, ca, {
          digest: 'shake256',
          digestOid: '2.16.840.1.101.3.4.2.12',
          signatureOid: '1.3.101.113',
          sign: (attributes) => nodeCrypto.sign(null, attributes, key(s)),
        }),
      'Ed448',
    ],
  ] as const)('%s verifies', async (_name, keyType, sign, algorithm) => {
    const signer = pki.issue(ca, `Signer ${keyType}`, { key: keyType });
    const verdict = await only(await signed((bytes) => sign(bytes, signer)));
    expect(failures(verdict)).toEqual([]);
    expect(check(verdict, 'signature').detail).toContain(algorithm);
  });

  it('the same, signed over other attributes, does not', async () => {
    const signer = pki.issue(ca, 'Plain ECDSA Forger', { key: 'ec:P-256' });
    const verdict = await only(
      await signed((bytes) =>
        handCms(bytes, signer, ca, {
          digest: 'sha256',
          digestOid: '2.16.840.1.101.3.4.2.1',
          signatureOid: '0.4.0.127.0.7.1.1.4.1.3',
          sign: () =>
            nodeCrypto.sign('sha256', Buffer.from('other'), { key: key(signer), dsaEncoding: 'ieee-p1363' }),
        }),
      ),
    );
    expect(failures(verdict)).toEqual([
      expect.stringMatching(
        /^signature \(broken\): the CMS signature does not verify with the signer's certificate/,
      ),
    ]);
    expect(verdict.integrity).toBe('broken');
  });

  it('Ed25519 with a SHA-1 digest is refused as broken: RFC 8419 pins SHA-512', async () => {
    const signer = pki.issue(ca, 'Ed25519 SHA-1', { key: 'ed25519' });
    const verdict = await only(
      await signed((bytes) =>
        handCms(bytes, signer, ca, {
          digest: 'sha1',
          digestOid: '1.3.14.3.2.26',
          signatureOid: '1.3.101.112',
          sign: (attributes) => nodeCrypto.sign(null, attributes, key(signer)),
        }),
      ),
      { allowWeak: true },
    );
    expect(failures(verdict)).toEqual([
      'signature (broken): Ed25519 signs with SHA-512 as its digest (RFC 8419); this signer names SHA-1',
    ]);
  });
});

describe.skipIf(NO_OPENSSL)('SHA-1, a policy', () => {
  const weak = 'signed with SHA-1, a weak algorithm: not accepted; the bytes are intact';

  it('a CAdES CMS with SHA-1: refused, its bytes intact; accepted with allowWeak; a changed byte is a digest that does not match', async () => {
    const signer = pki.issue(ca, 'SHA-1 Signer');
    const pdf = await signed((bytes) => pki.cms(bytes, signer, ca, { md: 'sha1' }));
    const refused = await only(pdf);
    expect(failures(refused)).toEqual([`digest (weak): ${weak}`]);
    expect(refused).toMatchObject({ valid: false, integrity: 'intact' });
    expect(failures(await only(pdf, { allowWeak: true }))).toEqual([]);
    const changed = Buffer.from(pdf);
    changed[200] = changed[200]! ^ 1;
    const broken = await only(changed);
    expect(failures(broken)).toEqual([
      'digest (broken): sha1 of the signed bytes differs from the one signed: the document changed',
    ]);
    expect(broken.integrity).toBe('broken');
  });

  it('adbe.pkcs7.sha1: the SHA-1 of the signed bytes, carried and signed', async () => {
    const signer = pki.issue(ca, 'PKCS7 SHA-1 Signer');
    const sha1 = (bytes: Uint8Array) => nodeCrypto.createHash('sha1').update(bytes).digest();
    const sign = (of: (bytes: Buffer) => Buffer) => (bytes: Buffer) =>
      pki.cms(of(bytes), signer, ca, { md: 'sha1', attached: true, cades: false });
    const pdf = await signed(sign(sha1), { subFilter: 'adbe.pkcs7.sha1' });
    expect(failures(await only(pdf))).toEqual([`digest (weak): ${weak}`]);
    expect(failures(await only(pdf, { allowWeak: true }))).toEqual([]);
    const other = await signed(
      sign(() => sha1(Buffer.from('other bytes'))),
      { subFilter: 'adbe.pkcs7.sha1' },
    );
    expect(failures(await only(other, { allowWeak: true }))).toEqual([
      'digest (broken): the SHA-1 the CMS carries is not that of the signed bytes: the document changed',
    ]);
  });

  it('adbe.x509.rsa_sha1: a PKCS#1 signature in /Contents, the certificate in /Cert; SHA-256 verifies, SHA-1 is refused', async () => {
    const signer = pki.issue(ca, 'X509 Signer');
    const x509 = (hash: string) =>
      signed((bytes) => encode(0x04, nodeCrypto.sign(hash, bytes, key(signer))), {
        subFilter: 'adbe.x509.rsa_sha1',
        dictionary: ` /Cert <${der(signer.cert).toString('hex')}>`,
      });
    const sha256 = await only(await x509('sha256'));
    expect(failures(sha256)).toEqual([]);
    expect(check(sha256, 'signature').detail).toContain('adbe.x509.rsa_sha1');
    expect(failures(await only(await x509('sha1')))).toEqual([`digest (weak): ${weak}`]);
  });
});

describe.skipIf(NO_OPENSSL)('CMS structures', () => {
  it('two SignerInfos both verify, as openssl cms -verify has it; one whose signature is spoilt fails the signature', async () => {
    const first = pki.issue(ca, 'First Signer');
    const second = pki.issue(ca, 'Second Signer');
    const both = await only(await signed((bytes) => pki.cms(bytes, first, ca, { others: [second] })));
    expect(failures(both)).toEqual([]);
    expect(check(both, 'signature').detail).toContain('all 2 signers of the CMS verified');
    const spoilt = await only(
      await signed((bytes) => {
        const cms = Buffer.from(pki.cms(bytes, first, ca, { others: [second] }));
        const value = parseSignedData(cms).signers[1]!.signature;
        cms[value.byteOffset - cms.byteOffset + 10]! ^= 1;
        return cms;
      }),
    );
    expect(failures(spoilt)).toEqual([
      expect.stringMatching(/^signature \(broken\): the CMS signature does not verify/),
    ]);
  });

  it('a CMS that carries the signed bytes verifies; one carrying other bytes, or none, signs something else', async () => {
    const signer = pki.issue(ca, 'Enveloping Signer');
    expect(
      failures(await only(await signed((bytes) => pki.cms(bytes, signer, ca, { attached: true })))),
    ).toEqual([]);
    const other = await only(
      await signed(() => pki.cms(Buffer.from('other bytes'), signer, ca, { attached: true })),
    );
    expect(failures(other)).toEqual([
      'digest (broken): the CMS carries content of its own (11 bytes) that is not the signed bytes of this document',
    ]);
    const empty = await only(await signed(() => pki.cms(Buffer.alloc(0), signer, ca, { attached: true })));
    expect(failures(empty)).toEqual([
      'digest (broken): the CMS carries an empty content of its own: what it signs is not this document',
    ]);
  });

  it("a signature timestamp whose TSA certificate is only in the document's DSS verifies; without the DSS it cannot be checked, and the signature is still intact", async () => {
    const signer = pki.issue(ca, 'Long-Term Signer');
    const pdf = await signed((bytes) => {
      const cms = pki.cms(bytes, signer, ca);
      return withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), tsa, ca, false));
    });
    const without = await only(pdf);
    expect(failures(without)).toEqual([
      "timestamp (unverifiable): the signature timestamp does not verify: the TSA's certificate is neither in the token nor in the document's DSS: the timestamp cannot be checked",
    ]);
    expect(without.integrity).toBe('intact');
    const next = nextObject(pdf);
    const withDss = appendRevision(pdf, {
      1: objectText(pdf, 1).replace(/>>\s*$/, ` /DSS ${next} 0 R >>`),
      [next]: `<< /Certs [${next + 1} 0 R] >>`,
      [next + 1]: stream(der(tsa.cert).toString('latin1')),
    });
    const verdict = await only(withDss);
    expect(failures(verdict)).toEqual([]);
    expect(verdict).toMatchObject({
      validation_time: 'timestamp',
      timestamp: { tsa: 'Algorithms TSA', valid: true },
    });
  });
});
