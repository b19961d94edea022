/**
 * Revocation checked from what the file carries, against a CA run by OpenSSL (`openssl ca` issues
 * and revokes, `-gencrl` writes CRLs, `openssl ocsp` answers from its database): a signer revoked
 * before the signature timestamp fails, one revoked after it passes and says why; a response
 * signed by a certificate without the OCSP-signing purpose, one about another certificate, a
 * stale one, and a CRL signed by another key with the issuer's name leave the status unknown
 * (soft passes it with a warning, require fails it); a revoked TSA fails its timestamp's signature.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSignature, basePdf } from '../../helpers/pdf-build.js';
import {
  NO_OPENSSL,
  Pki,
  signatureValue,
  withSignatureTimestamp,
  type Party,
} from '../../helpers/openssl-pki.js';
import { DAY, OpenSslCa } from '../../helpers/openssl-ca.js';
import { withDss, type DssContents } from '../../helpers/pdf-ltv.js';
import { tempDir } from '../../helpers/paths.js';
import { verifyPdf, type SignatureVerdict, type VerifyOptions } from '../../../src/core/pades/verify.js';

const dir = tempDir('sign-cli-revocation-');
let pki: Pki;
let ca: OpenSslCa;
let tsa: Party;
let responder: Party;

const der = (file: string) =>
  new Uint8Array(Buffer.from(readFileSync(file, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64'));

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = new OpenSslCa(dir, 'Rev CA');
  tsa = ca.issue('Rev TSA', { kind: 'tsa', notAfter: new Date(Date.now() + 700 * DAY) });
  responder = ca.issue('Rev OCSP Responder', { kind: 'ocsp', noCheck: true });
});

/** A PDF signed by `signer` (OpenSSL's CMS), with a signature timestamp by `stampedBy` (OpenSSL's TSA) unless null. */
async function signed(signer: Party, stampedBy: Party | null = tsa): Promise<Buffer> {
  return addSignature(basePdf(), {
    field: 'Sig',
    sign: (bytes) => {
      const cms = pki.cms(bytes, signer, ca.party);
      return stampedBy
        ? withSignatureTimestamp(cms, pki.timestamp(signatureValue(cms), stampedBy, ca.party))
        : cms;
    },
  });
}

async function verdict(pdf: Buffer, options: VerifyOptions = {}): Promise<SignatureVerdict> {
  return (await verifyPdf(pdf, { trusted: [der(ca.party.cert)], systemRoots: false, ...options }))
    .signatures[0]!;
}

const check = (v: SignatureVerdict) => v.checks.find((c) => c.check === 'revocation');
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** The TSA's status, good, so that a test's result is its signer's alone. */
const tsaGood = (): DssContents => ({ ocsps: [ca.ocspResponse(tsa)] });

describe.skipIf(NO_OPENSSL)('revocation, from OpenSSL’s CA, OCSP responder and CRLs', () => {
  it('a signer revoked before its signature timestamp fails: "revoked on <date> (keyCompromise)", under soft and require', async () => {
    const signer = ca.issue('Revoked Before', { notBefore: new Date(Date.now() - 3 * DAY) });
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - DAY);
    ca.revoke(signer, revokedAt);
    const pdf = withDss(await signed(signer), { ocsps: [ca.ocspResponse(signer), ...tsaGood().ocsps!] });
    for (const revocation of ['soft', 'require'] as const) {
      const v = await verdict(pdf, { revocation });
      expect(v.valid).toBe(false);
      expect(v.integrity).toBe('modified-allowed');
      expect(check(v)).toMatchObject({ ok: false, failure: 'revoked' });
      expect(check(v)!.detail).toContain(`revoked on ${iso(revokedAt)} (keyCompromise)`);
      expect(v.revocation).toMatchObject({ status: 'revoked', policy: revocation });
      expect(v.revocation!.certificates[0]).toMatchObject({
        certificate: 'Revoked Before',
        role: 'signer',
        status: 'revoked',
        source: 'dss',
        kind: 'ocsp',
        reason: 'keyCompromise',
        revoked_at: iso(revokedAt),
      });
    }
  });

  it('a signer revoked after its signature timestamp passes, and says the timestamp proved it good then', async () => {
    const signer = ca.issue('Revoked After');
    const pdf0 = await signed(signer);
    const stamped = (await verdict(pdf0)).timestamp!.time!;
    const revokedAt = new Date(new Date(stamped).getTime() + 3600_000);
    ca.revoke(signer, revokedAt);
    const pdf = withDss(pdf0, { ocsps: [ca.ocspResponse(signer), ...tsaGood().ocsps!] });
    const v = await verdict(pdf, { now: new Date(revokedAt.getTime() + 3600_000) });
    expect(v.valid).toBe(true);
    expect(check(v)).toMatchObject({ ok: true });
    expect(check(v)!.detail).toContain(
      `Revoked After was revoked on ${iso(revokedAt)} (keyCompromise), after the signature timestamp of ${stamped} proved what it signed existed on ${stamped}: it was good then`,
    );
    // Without the timestamp nothing proves it was made before the revocation: it fails.
    const bare = withDss(await signed(signer, null), { ocsps: [ca.ocspResponse(signer)] });
    const b = await verdict(bare, { now: new Date(revokedAt.getTime() + 3600_000) });
    expect(check(b)).toMatchObject({ ok: false, failure: 'revoked' });
  });

  it('a response signed by a certificate without the OCSP-signing purpose is not used; a delegated responder’s is', async () => {
    const signer = ca.issue('Delegated Signer');
    const plain = ca.issue('Not A Responder', { kind: 'plain' });
    const unsigned = await signed(signer);
    const byPlain = await verdict(
      withDss(unsigned, {
        ocsps: [ca.ocspResponse(signer, { signer: plain }), ...tsaGood().ocsps!],
        certs: [ca.der(plain)],
      }),
    );
    expect(byPlain.revocation!.certificates[0]).toMatchObject({ status: 'unknown' });
    expect(check(byPlain)).toMatchObject({ ok: true, warning: true });
    expect(check(byPlain)!.detail).toContain(
      'signed by Not A Responder, which Rev CA did not delegate OCSP signing to (no id-kp-OCSPSigning extended key usage)',
    );
    const byResponder = await verdict(
      withDss(unsigned, { ocsps: [ca.ocspResponse(signer, { signer: responder }), ...tsaGood().ocsps!] }),
    );
    expect(byResponder.revocation!.certificates.map((c) => [c.certificate, c.role, c.status])).toEqual([
      ['Delegated Signer', 'signer', 'good'],
      ['Rev TSA', 'TSA', 'good'],
    ]);
    expect(check(byResponder)!.detail).not.toContain('unknown');
    // Without id-pkix-ocsp-nocheck, the responder's own status is asked about too, at the time it answered.
    const checked = ca.issue('Checked Responder', { kind: 'ocsp' });
    const signerOnly = ca.ocspResponse(signer, { signer: checked });
    const unchecked = await verdict(withDss(unsigned, { ocsps: [signerOnly, ...tsaGood().ocsps!] }));
    expect(unchecked.revocation!.certificates.map((c) => [c.certificate, c.role, c.status])).toEqual([
      ['Delegated Signer', 'signer', 'good'],
      ['Checked Responder', 'OCSP responder', 'unknown'],
      ['Rev TSA', 'TSA', 'good'],
    ]);
    const both = await verdict(
      withDss(unsigned, { ocsps: [signerOnly, ca.ocspResponse(checked), ...tsaGood().ocsps!] }),
    );
    expect(both.revocation!.status).toBe('good');
  });

  it('a response about another certificate says nothing about this one: unknown, passed softly, failed when required', async () => {
    const signer = ca.issue('Asked About');
    const other = ca.issue('Someone Else');
    const pdf = withDss(await signed(signer), { ocsps: [ca.ocspResponse(other), ...tsaGood().ocsps!] });
    const soft = await verdict(pdf);
    expect(soft.valid).toBe(true);
    expect(check(soft)).toMatchObject({ ok: true, warning: true });
    expect(check(soft)!.detail).toContain(
      'Asked About: no OCSP response or CRL about it in the file (2 about other certificates)',
    );
    const required = await verdict(pdf, { revocation: 'require' });
    expect(required.valid).toBe(false);
    expect(check(required)).toMatchObject({ ok: false, failure: 'unverifiable' });
    expect(required.integrity).toBe('modified-allowed');
  });

  it('a stale response (its next update passed before the time it must speak for) is not used', async () => {
    const signer = ca.issue('Stale Signer');
    const response = ca.ocspResponse(signer, { minutes: 10 });
    // A signature without a timestamp is validated now: a day later, the response no longer speaks for it.
    const v = await verdict(withDss(await signed(signer, null), { ocsps: [response] }), {
      now: new Date(Date.now() + DAY),
      revocation: 'require',
    });
    expect(check(v)).toMatchObject({ ok: false, failure: 'unverifiable' });
    expect(check(v)!.detail).toMatch(
      /the OCSP response in the DSS does not serve: it speaks for \S+ to \S+, not for \S+/,
    );
  });

  it('CRLs: one signed by the issuer speaks (good, or revoked with its reason); one with the issuer’s name and another key does not', async () => {
    const signer = ca.issue('Listed Signer');
    const pdf = await signed(signer);
    const [from, to] = [new Date(Date.now() - 60_000), new Date(Date.now() + DAY)];
    const good = await verdict(withDss(pdf, { crls: [ca.crl(from, to)], ...tsaGood() }));
    expect(good.revocation!.certificates[0]).toMatchObject({ status: 'good', kind: 'crl', source: 'dss' });
    // Another CA, its own key, under the same name: its CRL names Rev CA and is not signed by its key.
    const impostor = new OpenSslCa(tempDir('sign-cli-impostor-'), 'Rev CA');
    const forged = await verdict(withDss(pdf, { crls: [impostor.crl(from, to)], ...tsaGood() }));
    expect(forged.revocation!.certificates[0]).toMatchObject({ status: 'unknown' });
    expect(forged.revocation!.certificates[0]!.detail).toContain(
      "the CRL in the DSS is not usable: it names Rev CA as its issuer but is not signed by Rev CA's key",
    );
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000);
    ca.revoke(signer, revokedAt, 'cessationOfOperation');
    const listed = await verdict(withDss(pdf, { crls: [ca.crl(from, to)], ...tsaGood() }));
    expect(listed.revocation!.certificates[0]).toMatchObject({
      status: 'revoked',
      kind: 'crl',
      reason: 'cessationOfOperation',
      revoked_at: iso(revokedAt),
    });
  });

  it('a TSA revoked before it stamped fails the signature it timestamps', async () => {
    const revokedTsa = ca.issue('Revoked TSA', { kind: 'tsa', notBefore: new Date(Date.now() - 3 * DAY) });
    const revokedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - DAY);
    ca.revoke(revokedTsa, revokedAt);
    const signer = ca.issue('Stamped By Revoked');
    const pdf = withDss(await signed(signer, revokedTsa), {
      ocsps: [ca.ocspResponse(signer), ca.ocspResponse(revokedTsa)],
    });
    const v = await verdict(pdf);
    expect(v.valid).toBe(false);
    expect(v.revocation!.certificates.find((c) => c.role === 'TSA')).toMatchObject({
      certificate: 'Revoked TSA',
      status: 'revoked',
      reason: 'keyCompromise',
    });
    expect(check(v)!.detail).toContain(`Revoked TSA was revoked on ${iso(revokedAt)} (keyCompromise)`);
  });
});
