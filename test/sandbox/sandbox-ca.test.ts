/**
 * The sandbox as a CA that answers, judged by OpenSSL, poppler's pdfsig and
 * qpdf over real HTTP: its OCSP responder (POST and GET, nonces repeated,
 * unknown serials unknown), its CRL, its B-LTA signed copies (the DSS's
 * certificates, OCSP responses and CRL each checked by OpenSSL; the document
 * timestamp's token by `openssl ts -verify`), and a revocation: the old
 * certificate revoked in OCSP and the CRL, the next copy signed by its
 * successor whose OCSP says good, the earlier copy still the same bytes.
 * Speed 1: the responses a copy carries are dated on the sandbox clock, which
 * then keeps to real time, as OpenSSL's checks of their dates expect.
 */
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { NO_PDFSIG, pdfsigTrusting } from '../helpers/pdfsig.js';
import { NO_OPENSSL } from '../helpers/openssl-pki.js';
import { missingTools } from '../helpers/system-tools.js';
import {
  dssOf,
  lastDocumentTimestamp,
  openssl,
  opensslAll,
  opensslOcspStatus,
  signaturesOf,
} from '../helpers/ltv.js';
import { parseCertificate } from '../../src/core/pades/x509.js';
import { pemToDer } from '../../src/sandbox/signing/web-crypto.js';
import { signedCopyFrom } from '../helpers/signed-copy.js';

/** A test that makes signed copies (a journey each, at speed 1) and runs OpenSSL and pdfsig: on a loaded machine, minutes. */
const SLOW = { timeout: 180_000 };
const NO_QPDF = missingTools(['qpdf'], 'qpdf', 'the structure checks of the B-LTA copies');

let sandbox: TestSandbox;
const dataDir = tempDir('sign-cli-ca-');
const dir = tempDir('sign-cli-ca-files-');
const caFile = join(dataDir, 'ca.pem');
beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 1, dataDir });
});
afterAll(async () => {
  await sandbox?.stop();
});

/** A signed copy of a new envelope, saved under `name`, and the envelope's id. */
async function signedCopyOf(name: string): Promise<{ pdf: Buffer; id: string }> {
  return signedCopyFrom(sandbox, join(dir, name));
}

const signedCopy = async (name: string) => (await signedCopyOf(name)).pdf;

/** The copy of envelope `id` downloaded again, under `name`. */
async function downloadAgain(id: string, name: string): Promise<Buffer> {
  const file = join(dir, name);
  expect((await runCommand(['envelopes', 'download', id, '-o', file], { env: sandbox.env })).code).toBe(0);
  return readFileSync(file);
}

/** The current certificate of a role, kept under `name` (the data dir's file changes at each reissue). */
function keep(role: 'signing' | 'tsa', name: string): string {
  writeFileSync(join(dir, name), readFileSync(join(dataDir, `${role}.pem`)));
  return join(dir, name);
}

const serialOf = (pemFile: string) => parseCertificate(pemToDer(readFileSync(pemFile, 'utf8'))).serial;

describe.skipIf(NO_OPENSSL)('the sandbox CA, as OpenSSL sees it', SLOW, () => {
  it('names its responder and CRL in the certificates it issues', () => {
    const text = openssl(dir, 'x509', '-in', join(dataDir, 'signing.pem'), '-noout', '-text');
    expect(text).toContain(`OCSP - URI:${sandbox.baseUrl}/_sandbox/ocsp`);
    expect(text).toContain(`URI:${sandbox.baseUrl}/_sandbox/crl/ca.crl`);
    expect(openssl(dir, 'x509', '-in', join(dataDir, 'tsa.pem'), '-noout', '-text')).toContain(
      `CA Issuers - URI:${sandbox.baseUrl}/_sandbox/ca.cer`,
    );
  });

  it('answers OCSP requests over POST and GET, with the nonce, and says unknown of what it never issued', async () => {
    const signing = keep('signing', 'ocsp-signing.pem');
    const tsa = keep('tsa', 'ocsp-tsa.pem');
    const url = `${sandbox.baseUrl}/_sandbox/ocsp`;
    const answer = await opensslAll(
      dir,
      'ocsp',
      '-issuer',
      caFile,
      '-cert',
      signing,
      '-cert',
      tsa,
      '-url',
      url,
      '-CAfile',
      caFile,
    );
    expect(answer).toContain('Response verify OK');
    expect(answer).toContain(`${signing}: good`);
    expect(answer).toContain(`${tsa}: good`);
    expect(answer).not.toMatch(/nonce|WARNING|error/i);

    const unknown = await opensslAll(
      dir,
      'ocsp',
      '-issuer',
      caFile,
      '-serial',
      '0x0123456789',
      '-url',
      url,
      '-CAfile',
      caFile,
    );
    expect(unknown).toContain('Response verify OK');
    expect(unknown).toContain('0x0123456789: unknown');

    // GET (RFC 6960 appendix A): the request in base64, URL-encoded, in the path.
    openssl(dir, 'ocsp', '-issuer', caFile, '-cert', signing, '-no_nonce', '-reqout', 'get.req');
    const base64 = readFileSync(join(dir, 'get.req')).toString('base64');
    const got = await fetch(`${url}/${encodeURIComponent(base64)}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/ocsp-response');
    const status = opensslOcspStatus(dir, Buffer.from(await got.arrayBuffer()), caFile, signing);
    expect(status).toContain('Response verify OK');
    expect(status).toContain(`${signing}: good`);

    // What is not a request is answered malformedRequest (an OCSPResponse of status 1), never a 500.
    const garbage = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/ocsp-request' },
      body: 'hello',
    });
    expect(Buffer.from(await garbage.arrayBuffer()).toString('hex')).toBe('30030a0101');
    expect((await fetch(url, { method: 'POST', body: 'x' })).status).toBe(415);
  });

  it('publishes a CRL that OpenSSL verifies against the CA, and the CA in DER', async () => {
    const crl = await fetch(`${sandbox.baseUrl}/_sandbox/crl/ca.crl`);
    expect(crl.headers.get('content-type')).toBe('application/pkix-crl');
    writeFileSync(join(dir, 'first.crl'), Buffer.from(await crl.arrayBuffer()));
    const text = await opensslAll(
      dir,
      'crl',
      '-inform',
      'DER',
      '-in',
      'first.crl',
      '-CAfile',
      caFile,
      '-noout',
      '-text',
    );
    expect(text).toContain('verify OK');
    expect(text).toContain('X509v3 CRL Number');
    expect(text).toContain('No Revoked Certificates');
    expect((await fetch(`${sandbox.baseUrl}/_sandbox/crl/other.crl`)).status).toBe(404);
    const der = Buffer.from(await (await fetch(`${sandbox.baseUrl}/_sandbox/ca.cer`)).arrayBuffer());
    expect(der.equals(Buffer.from(pemToDer(readFileSync(caFile, 'utf8'))))).toBe(true);
  });
});

describe.skipIf(NO_OPENSSL || NO_PDFSIG || NO_QPDF)('its signed copies are B-LTA', SLOW, () => {
  it('carries the chain, OCSP responses and the CRL in a DSS that OpenSSL checks, under a document timestamp OpenSSL verifies', async () => {
    const signing = keep('signing', 'lta-signing.pem');
    const tsa = keep('tsa', 'lta-tsa.pem');
    const pdf = await signedCopy('lta.pdf');
    const dss = dssOf(pdf);
    const serials = dss.certificates.map((der) => parseCertificate(der).serial).sort();
    expect(serials).toEqual([serialOf(signing), serialOf(tsa), serialOf(caFile)].sort());
    expect(dss.ocspResponses).toHaveLength(2);
    const statuses = [signing, tsa].map((cert) =>
      dss.ocspResponses
        .map((r) => opensslOcspStatus(dir, r, caFile, cert))
        .find((s) => s.includes(`${cert}: good`)),
    );
    for (const status of statuses) expect(status).toContain('Response verify OK');
    expect(dss.crls).toHaveLength(1);
    writeFileSync(join(dir, 'lta.crl'), dss.crls[0]!);
    expect(
      await opensslAll(dir, 'crl', '-inform', 'DER', '-in', 'lta.crl', '-CAfile', caFile, '-noout'),
    ).toContain('verify OK');

    const stamp = lastDocumentTimestamp(pdf);
    writeFileSync(join(dir, 'doc-ts.der'), stamp.token);
    expect(
      openssl(
        dir,
        'ts',
        '-verify',
        '-token_in',
        '-in',
        'doc-ts.der',
        '-digest',
        stamp.digest,
        '-CAfile',
        caFile,
      ),
    ).toContain('Verification: OK');
    // The document timestamp covers the whole file, its token aside.
    const [first, second] = signaturesOf(pdf);
    expect(first?.documentTimestamp).toBe(false);
    expect(second?.documentTimestamp).toBe(true);
    expect(second!.byteRange[2]! + second!.byteRange[3]!).toBe(pdf.length);

    // pdfsig: the signature valid and trusted (its OCSP asked of the sandbox, online), the timestamp the whole file.
    const report = await pdfsigTrusting(caFile).checkOnline(join(dir, 'lta.pdf'));
    expect(report).toMatch(
      /Signature #1:[\s\S]*Signature Validation: Signature is Valid\.[\s\S]*Certificate is Trusted\.[\s\S]*Signature #2:/,
    );
    expect(report).toMatch(/Signature #2:[\s\S]*Total document signed/);
    expect(report).not.toMatch(/Syntax Error|Digest Mismatch/);
    const qpdf = execQpdf(join(dir, 'lta.pdf'));
    expect(qpdf).toContain('No syntax or stream encoding errors found');
  });
});

function execQpdf(file: string): string {
  try {
    return execSync(`qpdf --check "${file}" 2>&1`, { encoding: 'utf8' });
  } catch (error) {
    // Exit 3: warnings only.
    return (error as { stdout?: string }).stdout ?? '';
  }
}

describe.skipIf(NO_OPENSSL || NO_PDFSIG)('a revocation', SLOW, () => {
  it('revokes the signing certificate in OCSP and the CRL; the next copy is signed by its successor, whose OCSP says good; the earlier copy stays the same bytes', async () => {
    const { pdf: before, id } = await signedCopyOf('before.pdf');
    const old = keep('signing', 'old-signing.pem');
    const revoked = await sandbox.control<Record<string, unknown>>('/_sandbox/revocations', {
      certificate: 'signing',
      reason: 'keyCompromise',
    });
    expect(revoked).toMatchObject({ certificate: 'signing', serial: serialOf(old), reason: 'keyCompromise' });
    const fresh = keep('signing', 'new-signing.pem');
    expect(serialOf(fresh)).not.toBe(serialOf(old));
    expect(revoked.replaced_by).toMatchObject({ serial: serialOf(fresh) });

    const url = `${sandbox.baseUrl}/_sandbox/ocsp`;
    const answer = await opensslAll(
      dir,
      'ocsp',
      '-issuer',
      caFile,
      '-cert',
      old,
      '-cert',
      fresh,
      '-url',
      url,
      '-CAfile',
      caFile,
    );
    expect(answer).toContain('Response verify OK');
    expect(answer).toMatch(new RegExp(`${old}: revoked\\n[\\s\\S]*Reason: keyCompromise`));
    expect(answer).toContain(`${fresh}: good`);
    writeFileSync(
      join(dir, 'after.crl'),
      Buffer.from(await (await fetch(`${sandbox.baseUrl}/_sandbox/crl/ca.crl`)).arrayBuffer()),
    );
    const crl = await opensslAll(
      dir,
      'crl',
      '-inform',
      'DER',
      '-in',
      'after.crl',
      '-CAfile',
      caFile,
      '-noout',
      '-text',
    );
    expect(crl).toContain('verify OK');
    expect(crl).toContain(`Serial Number: ${serialOf(old).toUpperCase()}`);
    expect(crl).toContain('Key Compromise');

    const after = await signedCopy('after.pdf');
    expect(signaturesOf(after)[0]!.signerSerial).toBe(serialOf(fresh));
    expect(signaturesOf(before)[0]!.signerSerial).toBe(serialOf(old));
    const carried = dssOf(after).ocspResponses.map((r) => opensslOcspStatus(dir, r, caFile, fresh));
    expect(carried.some((s) => s.includes('Response verify OK') && s.includes(`${fresh}: good`))).toBe(true);
    // NSS asks the responder too: the earlier copy's certificate is revoked now, the new one's is not.
    const pdfsig = pdfsigTrusting(caFile);
    expect(await pdfsig.checkOnline(join(dir, 'before.pdf'))).toContain('Certificate has been Revoked');
    expect(await pdfsig.checkOnline(join(dir, 'after.pdf'))).toContain('Certificate is Trusted');

    // Made again, the earlier copy is what it was: signed then, by the certificate of then.
    expect((await downloadAgain(id, 'before-again.pdf')).equals(before)).toBe(true);
  });

  it('revokes the TSA: the next copy is stamped by its successor', async () => {
    const oldTsa = keep('tsa', 'old-tsa.pem');
    await sandbox.control('/_sandbox/revocations', { certificate: 'tsa', reason: 'cessationOfOperation' });
    const newTsa = keep('tsa', 'new-tsa.pem');
    const pdf = await signedCopy('after-tsa.pdf');
    const stamp = signaturesOf(pdf).find((s) => s.documentTimestamp)!;
    expect(stamp.signerSerial).toBe(serialOf(newTsa));
    expect(stamp.signerSerial).not.toBe(serialOf(oldTsa));
    const answer = await opensslAll(
      dir,
      'ocsp',
      '-issuer',
      caFile,
      '-cert',
      oldTsa,
      '-url',
      `${sandbox.baseUrl}/_sandbox/ocsp`,
      '-CAfile',
      caFile,
    );
    expect(answer).toMatch(/revoked[\s\S]*Reason: cessationOfOperation/);
  });

  it('refuses a revocation it cannot make, in one line naming the field', async () => {
    const post = (body: unknown, key = sandbox.apiKey) =>
      fetch(`${sandbox.baseUrl}/_sandbox/revocations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const [body, field] of [
      [{}, 'certificate'],
      [{ certificate: 'ca' }, 'certificate'],
      [{ certificate: 'signing', at: 'yesterday' }, 'at'],
      [{ certificate: 'signing', at: '2999-01-01T00:00:00Z' }, 'at'],
      [{ certificate: 'signing', reason: 'tired' }, 'reason'],
    ] as const) {
      const answer = await post(body);
      expect(answer.status).toBe(400);
      const error = (await answer.json()) as { code: string; message: string };
      expect(error.code).toBe('invalid_revocation');
      expect(error.message.startsWith(`${field} must`)).toBe(true);
    }
    expect((await post({ certificate: 'signing' }, 'sk_test_wrong')).status).toBe(401);
    const listed = await sandbox.control<{ data: { certificate: string }[] }>('/_sandbox/revocations');
    expect(listed.data.map((r) => r.certificate)).toEqual(['signing', 'tsa']);
  });

  it('started again elsewhere, issues certificates that name the new place; earlier copies stay the same bytes', async () => {
    const { pdf, id } = await signedCopyOf('moved-before.pdf');
    const previous = keep('signing', 'moved-old.pem');
    const oldUrl = sandbox.baseUrl;
    await sandbox.stop();
    sandbox = await startTestSandbox({ speed: 1, dataDir });
    expect(sandbox.baseUrl).not.toBe(oldUrl);
    // A copy waits for the certificates being issued for the new place: then signing.pem is the new one.
    expect((await downloadAgain(id, 'moved-again.pdf')).equals(pdf)).toBe(true);
    const current = keep('signing', 'moved-new.pem');
    expect(serialOf(current)).not.toBe(serialOf(previous));
    expect(openssl(dir, 'x509', '-in', current, '-noout', '-text')).toContain(
      `OCSP - URI:${sandbox.baseUrl}/_sandbox/ocsp`,
    );
    const answer = await opensslAll(
      dir,
      'ocsp',
      '-issuer',
      caFile,
      '-cert',
      previous,
      '-cert',
      current,
      '-url',
      `${sandbox.baseUrl}/_sandbox/ocsp`,
      '-CAfile',
      caFile,
    );
    expect(answer).toContain(`${previous}: good`);
    expect(answer).toContain(`${current}: good`);
  });
});

describe('the CA on disk', () => {
  it('puts back signing.pem and tsa.pem from its ledger when a start was cut short before copying them', async () => {
    const { SandboxCa } = await import('../../src/sandbox/signing/signing-identity.js');
    const own = tempDir('sign-cli-ca-disk-');
    const ca = await SandboxCa.open(own, new Date());
    await ca.useUrl('http://127.0.0.1:9', new Date());
    const issued = readFileSync(join(own, 'signing.pem'), 'utf8');
    writeFileSync(join(own, 'signing.pem'), readFileSync(join(own, 'tsa.pem')));
    await SandboxCa.open(own, new Date());
    expect(readFileSync(join(own, 'signing.pem'), 'utf8')).toBe(issued);
  });
});
