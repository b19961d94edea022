/**
 * The sandbox signs its signed copies (PAdES baseline B): its own CA made on
 * first start (keys 0600, the certificate at GET /_sandbox/ca.pem), and each
 * signed copy checked by an independent implementation, poppler's pdfsig:
 * valid, trusted with the sandbox CA, the whole document signed; one changed
 * byte and one appended revision fail there.
 */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { NO_PDFSIG, pdfsigTrusting } from '../helpers/pdfsig.js';

let sandbox: TestSandbox;
const dataDir = tempDir('sign-cli-pades-');
beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40, dataDir });
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('the sandbox signs its signed copies', () => {
  it('makes its CA on first start, keys 0600, and publishes the CA certificate', async () => {
    for (const file of ['ca-key.pem', 'signing-key.pem']) expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    const served = await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(readFileSync(join(dataDir, 'ca.pem'), 'utf8'));
  });

  it.skipIf(NO_PDFSIG)('a signed copy is valid and trusted under pdfsig, the whole document signed; a changed byte or an appended revision is not', async () => {
    const env = sandbox.env;
    const id = (await runCommand(['envelopes', 'create', '-f', join(ROOT, 'examples', 'envelope-ar.json'), '--new', '--query', 'envelope.id'], { env })).stdout.trim();
    const dir = tempDir();
    const file = join(dir, 'signed.pdf');
    expect((await runCommand(['envelopes', 'download', id, '-o', file, '--wait'], { env })).code).toBe(0);
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, await (await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`)).text());
    const pdfsig = pdfsigTrusting(caFile);
    const report = pdfsig.check(file);
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toContain('Signer Certificate Common Name: sign-cli sandbox signing service');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Certificate Validation: Certificate is Trusted.');
    expect(report).not.toMatch(/Syntax Error/);

    // The same copy downloaded again is the same bytes (RSA PKCS#1 v1.5 and the completion time).
    const again = join(dir, 'again.pdf');
    await runCommand(['envelopes', 'download', id, '-o', again], { env });
    expect(readFileSync(again).equals(readFileSync(file))).toBe(true);

    const changed = Buffer.from(readFileSync(file));
    changed[200] = changed[200]! ^ 0x01;
    writeFileSync(join(dir, 'changed.pdf'), changed);
    expect(pdfsig.check(join(dir, 'changed.pdf'))).toContain('Digest Mismatch');
    const appended = join(dir, 'appended.pdf');
    writeFileSync(appended, readFileSync(file));
    appendFileSync(appended, '\n% an incremental update after signing\n%%EOF\n');
    expect(pdfsig.check(appended)).not.toContain('Total document signed');
  });
});
