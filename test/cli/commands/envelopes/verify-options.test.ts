/**
 * `envelopes verify --password`, `--password-file` and `--allow-weak`, run in process on files
 * written by qpdf (an AES-256 document whose user password is not empty) and OpenSSL (a SHA-1
 * CMS): exit 2 with a hint naming the flags when the password is missing, 0 with it; SHA-1 a
 * failure of its own unless allowed; the password shown nowhere.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';
import { addSignature, basePdf } from '../../../helpers/pdf-build.js';
import { NO_OPENSSL, Pki, type Party } from '../../../helpers/openssl-pki.js';
import { missingTools } from '../../../helpers/system-tools.js';

const NO_QPDF = missingTools(['qpdf'], 'qpdf', 'the tests of encrypted PDFs');
const dir = tempDir('sign-cli-verify-options-');
const PASSWORD = 'correct horse battery staple';
let pki: Pki;
let ca: Party;
let signer: Party;

beforeAll(() => {
  if (NO_OPENSSL) return;
  pki = new Pki(dir);
  ca = pki.ca('Options CA');
  signer = pki.issue(ca, 'Options Signer');
});

const verify = (...args: string[]) => runCommand(['envelopes', 'verify', ...args, '--trust', ca.cert]);

describe.skipIf(NO_OPENSSL || NO_QPDF)('envelopes verify --password', () => {
  it('is exit 2 with a hint without the password, 0 with it, given on the command line or in a file', async () => {
    const plain = join(dir, 'plain.pdf');
    const locked = join(dir, 'locked.pdf');
    writeFileSync(plain, basePdf());
    execFileSync('qpdf', [
      '--object-streams=generate',
      '--encrypt',
      PASSWORD,
      'owner',
      '256',
      '--',
      plain,
      locked,
    ]);
    const signed = join(dir, 'signed.pdf');
    writeFileSync(
      signed,
      await addSignature(readFileSync(locked), {
        field: 'Sig',
        password: PASSWORD,
        sign: (bytes) => pki.cms(bytes, signer, ca),
      }),
    );
    const missing = await verify(locked);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('encrypted with a password: its signatures cannot be found without it');
    expect(missing.stderr).toContain(
      'give its password with --password <password> or --password-file <file>',
    );

    const given = await verify(signed, '--password', PASSWORD, '--json');
    expect(given.code).toBe(0);
    expect(JSON.parse(given.stdout)).toMatchObject({
      encryption: 'decrypted with the password given',
      valid: true,
    });
    const file = join(dir, 'password.txt');
    writeFileSync(file, `${PASSWORD}\n`);
    expect((await verify(signed, '--password-file', file)).code).toBe(0);
    const wrong = await verify(locked, '--password', 'not it');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('the password given does not open it');
    for (const result of [missing, given, wrong])
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);

    const both = await verify(signed, '--password', PASSWORD, '--password-file', file);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--password and --password-file: give one of them, not both');
  });
});

describe.skipIf(NO_OPENSSL)('envelopes verify --allow-weak', () => {
  it('fails a SHA-1 signature as a weak algorithm, its bytes intact; passes it with --allow-weak', async () => {
    const file = join(dir, 'sha1.pdf');
    writeFileSync(
      file,
      await addSignature(basePdf(), {
        field: 'Sig',
        sign: (bytes) => pki.cms(bytes, signer, ca, { md: 'sha1' }),
      }),
    );
    const refused = await verify(file);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'digest: signed with SHA-1, a weak algorithm: not accepted; the bytes are intact',
    );
    const allowed = await verify(file, '--allow-weak', '--json');
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ valid: true, integrity: 'intact' });
  });
});
