/**
 * `envelopes verify` refuses what a forger would try (found by review): a CMS
 * carrying a look-alike signer certificate beside the real one, unsigned
 * objects smuggled into the signature's gap (a page's text replaced), a
 * certificate made for TLS servers, and an envelope whose title merely holds
 * the file's hash. Each is exit 1 naming its check.
 */
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPdf } from '../../../../src/sandbox/signing/pades.js';
import { tempDir } from '../../../helpers/paths.js';
import { example } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { signedCopyFrom } from '../../../helpers/signed-copy.js';

const crypto = globalThis.crypto;
x509.cryptoProvider.set(crypto as never);
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

let sandbox: TestSandbox;
const dataDir = tempDir('sign-cli-forge-');
const dir = tempDir('sign-cli-forgeries-');
let signedFile: string;
const caFile = join(dataDir, 'ca.pem');

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40, dataDir });
  signedFile = join(dir, 'signed.pdf');
  await signedCopyFrom(sandbox, signedFile);
});
afterAll(async () => {
  await sandbox?.stop();
});

const verify = (file: string, ...extra: string[]) =>
  runCommand(['envelopes', 'verify', file, '--trust', caFile, ...extra], { env: sandbox.env });
const der = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64'));

/** A self-signed CA of the forger's, and a certificate it issues with the given subject, serial and extensions. */
async function forgerCertificate(options: {
  name: string;
  subject: string;
  serial: string;
  extensions: x509.Extension[];
}) {
  const caKeys = await crypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const now = new Date(Date.now() - 86_400_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: options.name,
    notBefore: now,
    notAfter: new Date(Date.now() + 86_400_000 * 30),
    keys: caKeys,
    signingAlgorithm: RSA,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  const keys = await crypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: options.serial,
    subject: options.subject,
    issuer: ca.subject,
    notBefore: now,
    notAfter: new Date(Date.now() + 86_400_000 * 30),
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: RSA,
    extensions: options.extensions,
  });
  return { ca, leaf, key: keys.privateKey };
}

describe('envelopes verify against forgeries', () => {
  it('a look-alike signer certificate carried beside the real one does not chain (the signer is the leaf)', async () => {
    const real = new x509.X509Certificate(readFileSync(join(dataDir, 'signing.pem'), 'utf8'));
    const { leaf, key } = await forgerCertificate({
      name: 'CN=sign-cli sandbox CA, O=sign-cli sandbox',
      subject: real.subject,
      serial: real.serialNumber,
      extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
    });
    // The forger's certificate signs; the real signing certificate rides along in the CMS.
    const forged = await signPdf(
      stripSignature(readFileSync(signedFile)),
      {
        certificate: new Uint8Array(leaf.rawData),
        ca: der(real.toString('pem')),
        caFile: '',
        privateKey: key,
      },
      new Date(),
    );
    writeFileSync(join(dir, 'forged.pdf'), forged);
    const result = await verify(join(dir, 'forged.pdf'));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('certificate chain: not to a trusted root');
  });

  it("objects smuggled into the signature's gap (a page replaced) are unsigned content", async () => {
    const pdf = readFileSync(signedFile);
    const range = /\/ByteRange \[0 (\d+) (\d+) (\d+)\]/.exec(pdf.toString('latin1'))!;
    const [a, c] = [Number(range[1]), Number(range[2])];
    const hex = pdf
      .subarray(a + 1, c - 1)
      .toString('latin1')
      .replace(/0+$/, '');
    const injected = `${hex.length % 2 ? `${hex}0` : hex}> /X (unsigned) >>\nendobj\n6 0 obj\n<< /Length 0 >>\nstream\n\nendstream\nendobj\n999 0 obj\n<< /Y <`;
    const gap = `<${injected}${'0'.repeat(c - a - 2 - injected.length)}>`;
    expect(gap.length).toBe(c - a);
    writeFileSync(
      join(dir, 'smuggled.pdf'),
      Buffer.concat([pdf.subarray(0, a), Buffer.from(gap, 'latin1'), pdf.subarray(c)]),
    );
    const result = await verify(join(dir, 'smuggled.pdf'));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("leaves out more than the signature's /Contents");
  });

  it('a certificate made for TLS servers may not sign a document, even one that chains', async () => {
    const { ca, leaf, key } = await forgerCertificate({
      name: 'CN=Some Web CA',
      subject: 'CN=www.example.com',
      serial: '02',
      extensions: [
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ],
    });
    const webCa = join(dir, 'web-ca.pem');
    writeFileSync(webCa, ca.toString('pem'));
    const signed = await signPdf(
      stripSignature(readFileSync(signedFile)),
      {
        certificate: new Uint8Array(leaf.rawData),
        ca: new Uint8Array(ca.rawData),
        caFile: webCa,
        privateKey: key,
      },
      new Date(),
    );
    writeFileSync(join(dir, 'tls.pdf'), signed);
    const result = await runCommand([
      'envelopes',
      'verify',
      join(dir, 'tls.pdf'),
      '--trust',
      webCa,
      '--json',
    ]);
    expect(result.code).toBe(1);
    const purpose = (
      JSON.parse(result.stdout) as {
        signatures: { checks: { check: string; ok: boolean; detail: string }[] }[];
      }
    ).signatures[0]!.checks.find((c) => c.check === 'certificate purpose');
    expect(purpose).toMatchObject({ ok: false, detail: expect.stringContaining('for TLS servers') });
  });

  it("an envelope whose title holds the file's hash is not the envelope that sealed it", async () => {
    const sha = (JSON.parse((await verify(signedFile, '--json')).stdout) as { sha256: string }).sha256;
    const other = join(dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({ ...example(), title: `Unrelated NDA ${sha}`, contract_id: 'FORGE-1' }),
    );
    const otherId = (
      await runCommand(['envelopes', 'create', '-f', other, '--query', 'envelope.id'], { env: sandbox.env })
    ).stdout.trim();
    const result = await verify(signedFile, '--envelope', otherId);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("its closing entry does not record this file's SHA-256");
  });
});

/** The document as it was before the sandbox signed it: everything up to its signature's incremental update. */
function stripSignature(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const end = text.indexOf('%%EOF');
  return pdf.subarray(0, end + '%%EOF'.length + 1);
}
