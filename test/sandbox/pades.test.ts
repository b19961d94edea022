/**
 * The sandbox signs its signed copies (PAdES baseline B-T, then B-LTA: the
 * CA's part is test/sandbox/sandbox-ca.test.ts): its own CA and TSA made on
 * first start (keys 0600, the CA certificate at GET /_sandbox/ca.pem), and
 * each signed copy checked by independent implementations: poppler's pdfsig
 * (valid, trusted with the sandbox CA, the document timestamp covering the
 * whole document; one changed byte and one appended revision fail there) and
 * OpenSSL, which verifies the signature's timestamp token and the tokens POST
 * /_sandbox/tsa answers to its own requests.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { NO_PDFSIG, pdfsigTrusting } from '../helpers/pdfsig.js';
import { NO_OPENSSL } from '../helpers/openssl-pki.js';
import { parseSignedData, CMS_OID } from '../../src/core/pades/cms.js';
import { encoded } from '../../src/core/pades/der.js';
import { readPdf as readRevisions } from '../../src/core/pades/pdf-file.js';
import { findSignatures } from '../../src/core/pades/pdf-signatures.js';
import { signedCopyFrom } from '../helpers/signed-copy.js';

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
    for (const file of ['ca-key.pem', 'signing-key.pem', 'tsa-key.pem'])
      expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    const served = await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(readFileSync(join(dataDir, 'ca.pem'), 'utf8'));
  });

  it.skipIf(NO_PDFSIG)(
    'a signed copy is valid and trusted under pdfsig, the whole document signed; a changed byte or an appended revision is not',
    async () => {
      const env = sandbox.env;
      const dir = tempDir();
      const file = join(dir, 'signed.pdf');
      const { id } = await signedCopyFrom(sandbox, file, 'envelope-ar.json');
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, await (await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`)).text());
      const pdfsig = pdfsigTrusting(caFile);
      // Apart from this process: NSS asks the sandbox's OCSP responder, which its certificate names.
      const report = await pdfsig.checkOnline(file);
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
      expect(await pdfsig.checkOnline(join(dir, 'changed.pdf'))).toContain('Digest Mismatch');
      const appended = join(dir, 'appended.pdf');
      writeFileSync(appended, readFileSync(file));
      appendFileSync(appended, '\n% an incremental update after signing\n%%EOF\n');
      expect(await pdfsig.checkOnline(appended)).not.toContain('Total document signed');
    },
  );

  it.skipIf(NO_OPENSSL)(
    "its signatures carry a timestamp token OpenSSL verifies, and its TSA answers OpenSSL's own requests",
    async () => {
      const dir = tempDir();
      const { pdf } = await signedCopyFrom(sandbox, join(dir, 'signed.pdf'));
      const [signature] = findSignatures(readRevisions(pdf).revisions.at(-1)!);
      const signer = parseSignedData(signature!.contents).signers[0]!;
      const token = signer.unsigned.get(CMS_OID.signatureTimeStamp)?.[0];
      expect(token).toBeDefined();
      writeFileSync(join(dir, 'token.der'), encoded(token!));
      writeFileSync(join(dir, 'signature.bin'), signer.signature);
      const caFile = join(dir, 'ca.pem');
      writeFileSync(caFile, readFileSync(join(dataDir, 'ca.pem')));
      const openssl = (...args: string[]) =>
        execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
      // The token stamps the signature value (PAdES B-T), by a TSA the sandbox CA issued.
      expect(
        openssl(
          'ts',
          '-verify',
          '-token_in',
          '-in',
          'token.der',
          '-data',
          'signature.bin',
          '-CAfile',
          caFile,
        ),
      ).toContain('Verification: OK');

      writeFileSync(join(dir, 'mine.txt'), 'a file of my own');
      openssl('ts', '-query', '-data', 'mine.txt', '-sha256', '-cert', '-out', 'request.tsq');
      const answer = await fetch(`${sandbox.baseUrl}/_sandbox/tsa`, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query' },
        body: readFileSync(join(dir, 'request.tsq')),
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/timestamp-reply');
      writeFileSync(join(dir, 'reply.tsr'), Buffer.from(await answer.arrayBuffer()));
      expect(openssl('ts', '-verify', '-in', 'reply.tsr', '-data', 'mine.txt', '-CAfile', caFile)).toContain(
        'Verification: OK',
      );
      writeFileSync(join(dir, 'other.txt'), 'another file');
      expect(() =>
        openssl('ts', '-verify', '-in', 'reply.tsr', '-data', 'other.txt', '-CAfile', caFile),
      ).toThrow();

      // What is not a request gets the sandbox's JSON error, never a 500.
      const garbage = await fetch(`${sandbox.baseUrl}/_sandbox/tsa`, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query' },
        body: 'hello',
      });
      expect(garbage.status).toBe(400);
      expect(await garbage.json()).toMatchObject({ code: 'invalid_timestamp_request' });
      expect((await fetch(`${sandbox.baseUrl}/_sandbox/tsa`, { method: 'POST', body: 'x' })).status).toBe(
        415,
      );
      expect((await fetch(`${sandbox.baseUrl}/_sandbox/tsa`)).status).toBe(405);
    },
  );
});
