/**
 * `envelopes extend` over real HTTP: the sandbox's TSA stamps, its responder
 * and OpenSSL's (`openssl ocsp` as a responder behind an HTTP server of the
 * test) answer `--online`. A B-LTA copy gets a document timestamp alone; its
 * B-T part gets the certificates, and with --online the OCSP responses; a
 * signature made by OpenSSL, whose certificate names OpenSSL's responder,
 * gets OpenSSL's answer. Every result: the input a prefix of it, each earlier
 * signature still valid under pdfsig and `envelopes verify`, the new token
 * verified by `openssl ts -verify`, qpdf finding nothing wrong. A real-world
 * B-T file (iText's, read from ../shared/pades-realworld, never copied into
 * the repository) keeps its signature as pdfsig and verify judged it. Then the
 * refusals: exit 2 before anything is sent, exit 1 with nothing written.
 */
import { execFile, execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { NO_PDFSIG, pdfsigTrusting } from '../../../helpers/pdfsig.js';
import { NO_OPENSSL, Pki } from '../../../helpers/openssl-pki.js';
import { missingTools } from '../../../helpers/system-tools.js';
import { addSignature, basePdf } from '../../../helpers/pdf-build.js';
import {
  dssOf,
  lastDocumentTimestamp,
  openssl,
  opensslOcspStatus,
  signaturesOf,
  signedRevision,
} from '../../../helpers/ltv.js';
import { parseCertificate, sameName } from '../../../../src/core/pades/x509.js';
import { parseSignedData } from '../../../../src/core/pades/cms.js';
import { CORPUS, present } from '../../../helpers/pades-corpus.js';
import { pemToDer } from '../../../../src/sandbox/signing/web-crypto.js';
import { pem } from '../../../../src/sandbox/signing/key-files.js';
import { signedCopyFrom } from '../../../helpers/signed-copy.js';

const NO_QPDF = missingTools(['qpdf'], 'qpdf', 'the structure checks of extended files');
const TOOLS_MISSING = NO_OPENSSL || NO_PDFSIG || NO_QPDF;
/** Each test asks the TSA, verifies twice and runs OpenSSL, pdfsig and qpdf: on a loaded machine, minutes. */
const SLOW = { timeout: 180_000 };

let sandbox: TestSandbox;
const dataDir = tempDir('sign-cli-extend-data-');
const dir = tempDir('sign-cli-extend-');
const caFile = join(dataDir, 'ca.pem');
let copy: Buffer;
let tsa: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 1, dataDir });
  tsa = `${sandbox.baseUrl}/_sandbox/tsa`;
  copy = (await signedCopyFrom(sandbox, join(dir, 'copy.pdf'))).pdf;
});
afterAll(async () => {
  await sandbox?.stop();
});

const extend = (...args: string[]) => runCommand(['envelopes', 'extend', ...args], { env: sandbox.env });

/** What independent software says of an extended file: every signature but the last intact, the last covering all. */
async function judgedByOthers(file: string, trusted: string[]): Promise<void> {
  const pdf = readFileSync(file);
  const stamp = lastDocumentTimestamp(pdf);
  writeFileSync(join(dir, 'last-token.der'), stamp.token);
  expect(
    openssl(
      dir,
      'ts',
      '-verify',
      '-token_in',
      '-in',
      'last-token.der',
      '-digest',
      stamp.digest,
      '-CAfile',
      caFile,
    ),
  ).toContain('Verification: OK');
  const report = await pdfsigTrusting(...trusted).checkOnline(file);
  const count = signaturesOf(pdf).length;
  expect(report).toContain(`Signature #${count}:`);
  expect(report).toMatch(
    /Signature #1:[\s\S]*Signature Validation: Signature is Valid\.[\s\S]*Certificate is Trusted\./,
  );
  expect(report).toMatch(new RegExp(`Signature #${count}:[\\s\\S]*Total document signed`));
  expect(report).not.toMatch(/Digest Mismatch|Syntax Error/);
  expect(execSync(`qpdf --check "${file}" 2>&1`, { encoding: 'utf8' })).toContain(
    'No syntax or stream encoding errors found',
  );
}

describe.skipIf(TOOLS_MISSING)('envelopes extend', SLOW, () => {
  it('gives a complete B-LTA copy a new document timestamp alone, the copy untouched before it', async () => {
    writeFileSync(join(dir, 'lta.pdf'), copy);
    const result = await extend(join(dir, 'lta.pdf'), '--tsa', tsa, '--trust', caFile);
    expect(result.code, result.stderr).toBe(0);
    const out = join(dir, 'lta-extended.pdf');
    expect(result.stdout).toMatch(
      /✓ .*lta\.pdf extended to .*lta-extended\.pdf: a document timestamp \(Timestamp2, by sign-cli sandbox timestamp authority at .*\); 3 signatures verified/,
    );
    expect(result.stderr).toBe('');
    const extended = readFileSync(out);
    expect(extended.subarray(0, copy.length).equals(copy)).toBe(true);
    expect(dssOf(extended)).toEqual(dssOf(copy));
    await judgedByOthers(out, [caFile]);
    const verify = await runCommand(['envelopes', 'verify', out, '--trust', caFile, '--json'], {
      env: sandbox.env,
    });
    expect(verify.code).toBe(0);
    expect(
      (JSON.parse(verify.stdout) as { signatures: { valid: boolean }[] }).signatures.map((s) => s.valid),
    ).toEqual([true, true, true]);
  });

  it('adds to a B-T copy the chain, and with --online the OCSP responses from the sandbox responder', async () => {
    const bt = signedRevision(copy);
    writeFileSync(join(dir, 'bt.pdf'), bt);
    const offline = await extend(
      join(dir, 'bt.pdf'),
      '--tsa',
      tsa,
      '--trust',
      caFile,
      '-o',
      join(dir, 'bt-offline.pdf'),
    );
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toContain('3 certificates and a document timestamp');
    expect(offline.stderr).toContain(
      'warning: sign-cli sandbox signing service: no revocation data; --online fetches it',
    );
    const offlineDss = dssOf(readFileSync(join(dir, 'bt-offline.pdf')));
    expect(offlineDss.certificates).toHaveLength(3);
    expect(offlineDss.ocspResponses).toHaveLength(0);

    const online = await extend(join(dir, 'bt.pdf'), '--tsa', tsa, '--trust', caFile, '--online', '--json');
    expect(online.code, online.stderr).toBe(0);
    const report = JSON.parse(online.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      output: join(dir, 'bt-extended.pdf'),
      added: { certificates: 3, ocsp_responses: 2, crls: 0 },
      missing: [],
      timestamp: { field: 'Timestamp1', tsa: 'sign-cli sandbox timestamp authority' },
      verification: { valid: true },
    });
    const extended = readFileSync(join(dir, 'bt-extended.pdf'));
    expect(extended.subarray(0, bt.length).equals(bt)).toBe(true);
    const signing = join(dataDir, 'signing.pem');
    const statuses = dssOf(extended).ocspResponses.map((r) => opensslOcspStatus(dir, r, caFile, signing));
    expect(statuses.some((s) => s.includes('Response verify OK') && s.includes(`${signing}: good`))).toBe(
      true,
    );
    await judgedByOthers(join(dir, 'bt-extended.pdf'), [caFile]);
  });

  describe('against OpenSSL as the OCSP responder', () => {
    let responder: Server;
    const pki = new Pki(dir);
    beforeAll(async () => {
      responder = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          writeFileSync(join(dir, 'openssl-req.der'), Buffer.concat(chunks));
          // openssl ocsp as the responder, one request a run: its index says what it issued.
          execFile(
            'openssl',
            [
              'ocsp',
              '-index',
              'index.txt',
              '-CA',
              'outside-ca.crt',
              '-rsigner',
              'outside-ca.crt',
              '-rkey',
              'outside-ca.key',
              '-reqin',
              'openssl-req.der',
              '-respout',
              'openssl-resp.der',
              '-ndays',
              '7',
            ],
            { cwd: dir },
            (error) => {
              if (error) res.writeHead(500).end();
              else
                res
                  .writeHead(200, { 'content-type': 'application/ocsp-response' })
                  .end(readFileSync(join(dir, 'openssl-resp.der')));
            },
          );
        });
      });
      await new Promise<void>((resolve) => responder.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => responder.close(() => resolve()));
    });

    it("fetches a signer's status from the responder its certificate names, and OpenSSL's answer is carried", async () => {
      const url = `http://127.0.0.1:${(responder.address() as AddressInfo).port}/`;
      const ca = pki.ca('Outside CA');
      const signer = pki.issue(ca, 'Outside Signer', { extensions: [`authorityInfoAccess=OCSP;URI:${url}`] });
      const cert = parseCertificate(pemToDer(readFileSync(signer.cert, 'utf8')));
      const expiry = cert.notAfter.toISOString().replace(/[-:T]/g, '').slice(2, 14);
      writeFileSync(
        join(dir, 'index.txt'),
        `V\t${expiry}Z\t\t${cert.serial.toUpperCase()}\tunknown\t/CN=Outside Signer/O=Elsewhere\n`,
      );
      const signed = await addSignature(basePdf(), {
        field: 'Outside',
        sign: (bytes) => pki.cms(bytes, signer, ca),
      });
      writeFileSync(join(dir, 'outside.pdf'), signed);
      const result = await extend(
        join(dir, 'outside.pdf'),
        '--tsa',
        tsa,
        '--trust',
        ca.cert,
        '--trust',
        caFile,
        '--online',
        '--json',
      );
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        added: { certificates: 2, ocsp_responses: 1 },
        missing: [],
      });
      const extended = readFileSync(join(dir, 'outside-extended.pdf'));
      expect(extended.subarray(0, signed.length).equals(signed)).toBe(true);
      const [response] = dssOf(extended).ocspResponses;
      expect(response!.equals(readFileSync(join(dir, 'openssl-resp.der')))).toBe(true);
      const status = opensslOcspStatus(dir, response!, ca.cert, signer.cert);
      expect(status).toContain('Response verify OK');
      expect(status).toContain(`${signer.cert}: good`);
      await judgedByOthers(join(dir, 'outside-extended.pdf'), [ca.cert, caFile]);
    });
  });
});

describe.skipIf(TOOLS_MISSING || !present)('envelopes extend of a B-T file from the real world', SLOW, () => {
  it("iText's B-T sample (read from the corpus, written only to a temporary folder): its signature still valid, a document timestamp over it", async () => {
    const source = join(CORPUS, 'itext', 'PAdESLevel__B-T.pdf');
    const original = readFileSync(source);
    // Its root travels in its CMS: trusted here as its source's test trusts it.
    const [signature] = signaturesOf(original);
    const root = parseSignedData(signature!.cms).certificates.find((c) => sameName(c.subject, c.issuer))!;
    const rootFile = join(dir, 'itext-root.pem');
    writeFileSync(rootFile, pem('CERTIFICATE', root.der));
    const out = join(dir, 'itext-bt-extended.pdf');
    const result = await extend(
      source,
      '--tsa',
      tsa,
      '--trust',
      rootFile,
      '--trust',
      caFile,
      '-o',
      out,
      '--json',
    );
    expect(result.code, result.stderr).toBe(0);
    // The signer, its TSA and their root, none in a DSS before.
    expect(JSON.parse(result.stdout)).toMatchObject({ added: { certificates: 3 } });
    const extended = readFileSync(out);
    expect(extended.subarray(0, original.length).equals(original)).toBe(true);
    const verified = await runCommand([
      'envelopes',
      'verify',
      out,
      '--trust',
      rootFile,
      '--trust',
      caFile,
      '--json',
    ]);
    const verdict = JSON.parse(verified.stdout) as {
      valid: boolean;
      signatures: { field: string; valid: boolean }[];
    };
    expect(verified.code, verified.stdout).toBe(0);
    expect(verdict.signatures.map((s) => [s.field, s.valid])).toEqual([
      ['Signature1', true],
      [JSON.parse(result.stdout).timestamp.field, true],
    ]);
    // pdfsig: the signature as valid as before (NSS finds fault with iText's test certificate,
    // before and after alike), the new document timestamp over the whole file.
    const pdfsig = pdfsigTrusting(rootFile, caFile);
    const before = pdfsig.check(source);
    const after = pdfsig.check(out);
    const first = (report: string) => /Signature #1:[\s\S]*?(?=Signature #2:|$)/.exec(report)![0];
    expect(first(before)).toContain('Signature Validation: Signature is Valid.');
    // The same report, but that the update now follows it.
    expect(first(after).replace('Not total document signed', 'Total document signed')).toBe(first(before));
    // pdfsig reads a document timestamp's byte range but does not validate its kind: OpenSSL does.
    expect(after).toMatch(/Signature #2:[\s\S]*Signature Type: unknown[\s\S]*Total document signed/);
    const stamp = lastDocumentTimestamp(extended);
    writeFileSync(join(dir, 'itext-token.der'), stamp.token);
    expect(
      openssl(
        dir,
        'ts',
        '-verify',
        '-token_in',
        '-in',
        'itext-token.der',
        '-digest',
        stamp.digest,
        '-CAfile',
        caFile,
      ),
    ).toContain('Verification: OK');
  });
});

describe('envelopes extend refuses', SLOW, () => {
  it('what it cannot extend: exit 2 before anything is sent, exit 1 with nothing written', async () => {
    writeFileSync(join(dir, 'in.pdf'), copy);
    // The output exists: not replaced without --force, the input least of all.
    writeFileSync(join(dir, 'in-extended.pdf'), 'mine');
    const exists = await extend(join(dir, 'in.pdf'), '--tsa', tsa, '--trust', caFile);
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain('in-extended.pdf exists: not replaced');
    expect(readFileSync(join(dir, 'in-extended.pdf'), 'utf8')).toBe('mine');
    const input = await extend(
      join(dir, 'in.pdf'),
      '--tsa',
      tsa,
      '--trust',
      caFile,
      '-o',
      join(dir, 'in.pdf'),
    );
    expect(input.code).toBe(2);
    expect(input.stderr).toContain('exists (it is the input): not replaced');
    expect(readFileSync(join(dir, 'in.pdf')).equals(copy)).toBe(true);

    const badTsa = await extend(join(dir, 'in.pdf'), '--tsa', 'ftp://example.com', '-o', join(dir, 'x.pdf'));
    expect(badTsa.code).toBe(2);
    expect(badTsa.stderr).toContain('--tsa ftp://example.com: not an http(s) URL');
    writeFileSync(join(dir, 'not.pdf'), 'hello');
    expect((await extend(join(dir, 'not.pdf'), '--tsa', tsa, '-o', join(dir, 'x.pdf'))).code).toBe(2);

    // Untrusted: it does not verify, so nothing is sent to the TSA and nothing written.
    const before = (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;
    const untrusted = await extend(join(dir, 'in.pdf'), '--tsa', tsa, '-o', join(dir, 'x.pdf'));
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('does not verify: nothing was sent, nothing written');
    expect((await sandbox.control<{ requests: number }>('/_sandbox/state')).requests).toBe(before + 1);
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);

    // A TSA that is not one, and one that is not there: exit 1, nothing written.
    const notTsa = await extend(
      join(dir, 'in.pdf'),
      '--tsa',
      `${sandbox.baseUrl}/_sandbox/health`,
      '--trust',
      caFile,
      '-o',
      join(dir, 'x.pdf'),
    );
    expect(notTsa.code).toBe(1);
    expect(notTsa.stderr).toMatch(/the TSA at .* answered HTTP 405|not a TimeStampResp/);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const gone = await extend(
      join(dir, 'in.pdf'),
      '--tsa',
      `http://127.0.0.1:${port}/`,
      '--trust',
      caFile,
      '-o',
      join(dir, 'x.pdf'),
    );
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('ECONNREFUSED');
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);

    // Asked: the input replaced by its extension.
    const forced = await extend(
      join(dir, 'in.pdf'),
      '--tsa',
      tsa,
      '--trust',
      caFile,
      '-o',
      join(dir, 'in.pdf'),
      '--force',
    );
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(dir, 'in.pdf')).subarray(0, copy.length).equals(copy)).toBe(true);
  });
});
