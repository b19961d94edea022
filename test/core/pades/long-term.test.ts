/**
 * Long-term status, on signatures built up level by level from OpenSSL's parts: B-B (a CMS by
 * `openssl cms`), B-T (a token by `openssl ts`), B-LT (a DSS with `openssl ocsp`'s responses),
 * B-LTA (a document timestamp after it). Whether each is LTV-complete, until when it proves itself
 * (the archive timestamp's TSA certificate), and past-signature validation: certificates that
 * have expired since pass when a timestamp proves they were valid when used, and fail without one.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSignature, basePdf } from '../../helpers/pdf-build.js';
import {
  NO_OPENSSL,
  Pki,
  signatureValue,
  withSignatureTimestamp,
  withUnsignedAttribute,
  type Party,
} from '../../helpers/openssl-pki.js';
import { DAY, OpenSslCa } from '../../helpers/openssl-ca.js';
import { withDss } from '../../helpers/pdf-ltv.js';
import { tempDir } from '../../helpers/paths.js';
import { children, explicit, octets, readDer, sequence } from '../../../src/core/pades/der.js';
import { encode } from '../../../src/core/pades/der-write.js';
import { verifyPdf, type PdfVerdict, type VerifyOptions } from '../../../src/core/pades/verify.js';

const dir = tempDir('sign-cli-ltv-');
let pki: Pki;
let ca: OpenSslCa;
let shortTsa: Party;
let archiveTsa: Party;
let signer: Party;
let bb: Buffer;
let bt: Buffer;
let blt: Buffer;
let blta: Buffer;

const der = (file: string) =>
  new Uint8Array(Buffer.from(readFileSync(file, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64'));
/** The certificate's notAfter, as OpenSSL reads it. */
const notAfter = (party: Party) =>
  new Date(
    /notAfter=(.+)/.exec(
      execFileSync('openssl', ['x509', '-in', party.cert, '-noout', '-enddate'], { encoding: 'utf8' }),
    )![1]!,
  );

const archive = (pdf: Buffer) =>
  addSignature(pdf, {
    field: 'Archive',
    subFilter: 'ETSI.RFC3161',
    sign: (bytes) => pki.timestamp(bytes, archiveTsa, ca.party),
  });

beforeAll(async () => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = new OpenSslCa(dir, 'LTV CA');
  shortTsa = ca.issue('Short TSA', { kind: 'tsa', notAfter: new Date(Date.now() + 20 * DAY) });
  archiveTsa = ca.issue('Archive TSA', { kind: 'tsa', notAfter: new Date(Date.now() + 900 * DAY) });
  signer = ca.issue('Long Signer', { notAfter: new Date(Date.now() + 10 * DAY) });
  const sign = (stamped: boolean) =>
    addSignature(basePdf(), {
      field: 'Sig',
      sign: (bytes) => {
        const cms = pki.cms(bytes, signer, ca.party);
        return stamped
          ? withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), shortTsa, ca.party))
          : cms;
      },
    });
  bb = await sign(false);
  bt = await sign(true);
  blt = withDss(bt, { ocsps: [ca.ocspResponse(signer), ca.ocspResponse(shortTsa)] });
  blta = await archive(blt);
});

async function verify(pdf: Buffer, options: VerifyOptions = {}): Promise<PdfVerdict> {
  return verifyPdf(pdf, { trusted: [der(ca.party.cert)], systemRoots: false, ...options });
}
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

describe.skipIf(NO_OPENSSL)('long-term status', () => {
  it('B-B: no timestamp, not LTV-complete, proves itself until its signer’s certificate expires', async () => {
    const { signatures } = await verify(bb);
    expect(signatures[0]!.ltv).toEqual({
      level: 'B-B',
      complete: false,
      detail: 'not LTV-complete: no trusted timestamp proves when it was signed',
      proves_until: iso(notAfter(signer)),
      renewal: 'the certificate of Long Signer, on which the signature rests, expires then',
    });
  });

  it('B-T: a signature timestamp, no revocation data: until the TSA’s certificate expires', async () => {
    const { signatures } = await verify(bt);
    expect(signatures[0]!.ltv).toMatchObject({
      level: 'B-T',
      complete: false,
      proves_until: iso(notAfter(shortTsa)),
      renewal: 'the certificate of Short TSA, on which its signature timestamp rests, expires then',
    });
    expect(signatures[0]!.ltv!.detail).toContain(
      'the file holds no revocation data that shows Long Signer (signer)',
    );
  });

  it('B-LT: the DSS holds the responses, but no document timestamp covers them', async () => {
    const { signatures } = await verify(blt);
    expect(signatures[0]!.revocation!.status).toBe('good');
    expect(signatures[0]!.ltv).toMatchObject({ level: 'B-LT', complete: false });
    expect(signatures[0]!.ltv!.detail).toBe(
      'not LTV-complete: the OCSP response in the DSS for Long Signer (signer) is covered by no timestamp (a document timestamp after it would cover it)',
    );
    expect(signatures[0]!.revocation!.certificates.every((c) => !c.covered)).toBe(true);
  });

  it('B-LTA: a document timestamp over the DSS: LTV-complete, re-timestamp before the archive TSA’s certificate expires', async () => {
    const verdict = await verify(blta);
    const [signature, stamp] = verdict.signatures;
    expect(verdict.valid).toBe(true);
    expect(signature!.ltv).toEqual({
      level: 'B-LTA',
      complete: true,
      detail:
        'LTV-complete: the revocation data of the 2 certificates it rests on is in the file, covered by a timestamp',
      proves_until: iso(notAfter(archiveTsa)),
      renewal: 'the certificate of Archive TSA, on which the document timestamp Archive rests, expires then',
    });
    expect(signature!.revocation!.certificates.map((c) => [c.certificate, c.status, c.covered])).toEqual([
      ['Long Signer', 'good', true],
      ['Short TSA', 'good', true],
    ]);
    // The archive timestamp's own TSA has no revocation data yet (the next renewal adds it): unknown, softly.
    expect(stamp!.type).toBe('document timestamp');
    expect(stamp!.ltv).toBeNull();
    expect(stamp!.revocation!.certificates[0]).toMatchObject({
      certificate: 'Archive TSA',
      status: 'unknown',
    });
  });

  it('past-signature validation: sixty days on, the expired signer and TSA pass where a timestamp proves their time, and fail where none does', async () => {
    const later = new Date(Date.now() + 60 * DAY);
    const lta = await verify(blta, { now: later });
    expect(lta.signatures.map((s) => [s.field, s.valid])).toEqual([
      ['Sig', true],
      ['Archive', true],
    ]);
    const timestamp = lta.signatures[0]!.checks.find((c) => c.check === 'timestamp')!;
    expect(timestamp.detail).toContain('which the document timestamp Archive proves');
    // B-T: the signature timestamp's TSA is checked now, and has expired; so the signer is checked now too.
    const t = (await verify(bt, { now: later })).signatures[0]!;
    expect(t.valid).toBe(false);
    expect(t.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(['timestamp', 'certificate chain']);
    expect(t.checks.find((c) => c.check === 'timestamp')!.detail).toContain(
      'had expired at the validation time',
    );
    // B-B: checked at the current time, its signer has expired.
    const b = (await verify(bb, { now: later })).signatures[0]!;
    expect(b.checks.find((c) => c.check === 'certificate chain')!.detail).toContain(
      "the signer's certificate had expired at the validation time",
    );
  });

  it('revocation values carried in the CMS (CAdES id-aa-ets-revocationValues) count as embedded', async () => {
    const basic = (ocsp: Buffer) => {
      const [, bytes] = sequence(explicit(sequence(readDer(ocsp), 'OCSPResponse')[1]!), 'responseBytes');
      return octets(bytes);
    };
    const values = encode(
      0x30,
      encode(
        0xa1,
        encode(0x30, Buffer.concat([basic(ca.ocspResponse(signer)), basic(ca.ocspResponse(shortTsa))])),
      ),
    );
    const pdf = await addSignature(basePdf(), {
      field: 'Sig',
      sign: (bytes) => {
        const cms = pki.cms(bytes, signer, ca.party);
        const stamped = withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), shortTsa, ca.party));
        return withUnsignedAttribute(stamped, '1.2.840.113549.1.9.16.2.24', values);
      },
    });
    expect(children(readDer(values)).length).toBe(1);
    const { signatures } = await verify(await archive(pdf));
    expect(
      signatures[0]!.revocation!.certificates.map((c) => [c.certificate, c.status, c.source, c.covered]),
    ).toEqual([
      ['Long Signer', 'good', 'signature', true],
      ['Short TSA', 'good', 'signature', true],
    ]);
    expect(signatures[0]!.ltv).toMatchObject({ level: 'B-LTA', complete: true });
  });
});
