/**
 * `envelopes verify` against an independent implementation: a PDF that
 * poppler's pdfsig signs (with a key and certificate made by openssl, imported
 * into NSS) verifies with its CA given to --trust; one changed byte and one
 * appended revision fail in both. (The other way round, pdfsig checking the
 * sandbox's signed copies: test/sandbox/pades.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';
import { NO_PDFSIG, pdfsigTrusting, type Pdfsig } from '../../../helpers/pdfsig.js';

const dir = tempDir('sign-cli-interop-');
const ca = join(dir, 'ca.crt');
const signed = join(dir, 'signed-by-pdfsig.pdf');
let pdfsig: Pdfsig;

/** A CA and a signer certificate from openssl, the signer's key and chain imported into pdfsig's NSS database. */
function opensslSigner(): Pdfsig {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=Elsewhere Issuing CA/O=Elsewhere',
    '-addext',
    'basicConstraints=critical,CA:true',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  run(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'signer.key',
    '-out',
    'signer.csr',
    '-subj',
    '/CN=Amal Haddad/O=Elsewhere',
  );
  writeFileSync(
    join(dir, 'ext.cnf'),
    'basicConstraints=CA:false\nkeyUsage=critical,digitalSignature,nonRepudiation\n',
  );
  run(
    'x509',
    '-req',
    '-in',
    'signer.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'signer.crt',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  );
  run(
    'pkcs12',
    '-export',
    '-inkey',
    'signer.key',
    '-in',
    'signer.crt',
    '-certfile',
    'ca.crt',
    '-out',
    'signer.p12',
    '-passout',
    'pass:',
    '-name',
    'signer',
  );
  const nss = pdfsigTrusting(ca);
  execFileSync('pk12util', ['-i', join(dir, 'signer.p12'), '-d', nss.nssdir, '-W', ''], { stdio: 'ignore' });
  return nss;
}

beforeAll(async () => {
  if (NO_PDFSIG) return;
  pdfsig = opensslSigner();
  // A plain PDF, as any producer makes one.
  const PDFDocument = createRequire(join(ROOT, 'package.json'))('pdfkit') as new () => {
    pipe(s: NodeJS.WritableStream): void;
    text(t: string): void;
    end(): void;
  };
  const doc = new PDFDocument();
  const out = createWriteStream(join(dir, 'plain.pdf'));
  doc.pipe(out);
  doc.text('An employment contract, signed elsewhere.');
  doc.end();
  await finished(out);
  execFileSync(
    'pdfsig',
    ['-add-signature', '-nssdir', pdfsig.nssdir, '-nick', 'signer', join(dir, 'plain.pdf'), signed],
    { stdio: 'ignore' },
  );
});

describe.skipIf(NO_PDFSIG)('envelopes verify and pdfsig agree', () => {
  it('a PDF pdfsig signed verifies with its CA trusted, and not without', async () => {
    expect(pdfsig.check(signed)).toContain('Signature Validation: Signature is Valid.');
    const result = await runCommand(['envelopes', 'verify', signed, '--trust', ca, '--json']);
    expect(result.code, result.stdout).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      valid: true,
      signatures: [{ signer: 'Amal Haddad', sub_filter: 'adbe.pkcs7.detached', valid: true }],
    });
    expect((await runCommand(['envelopes', 'verify', signed])).code).toBe(1);
  });

  it('one changed byte and one appended revision fail in both', async () => {
    const changed = Buffer.from(readFileSync(signed));
    changed[400] = changed[400]! ^ 0x01;
    writeFileSync(join(dir, 'changed.pdf'), changed);
    expect(pdfsig.check(join(dir, 'changed.pdf'))).not.toContain('Signature is Valid.');
    const ours = await runCommand(['envelopes', 'verify', join(dir, 'changed.pdf'), '--trust', ca]);
    expect(ours.code).toBe(1);
    expect(ours.stdout).toContain('digest: sha256 of the signed bytes differs');

    const appended = join(dir, 'appended.pdf');
    writeFileSync(appended, readFileSync(signed));
    appendFileSync(appended, '\n% another revision\n%%EOF\n');
    expect(pdfsig.check(appended)).not.toContain('Total document signed');
    const after = await runCommand(['envelopes', 'verify', appended, '--trust', ca]);
    expect(after.code).toBe(1);
    expect(after.stdout).toContain('modified after signing');
  });
});
