/**
 * `envelopes verify` on files with several revisions, against independent
 * signers: a sandbox signed copy (its B-T revision) whose page is rewritten, then signed again by
 * poppler's pdfsig (NSS, a certificate made by OpenSSL, trusted): the first
 * signature fails and names the change, though every byte of the file is
 * covered by a valid, trusted signature; without the rewrite both pass. Then
 * what the command says: the revisions table, the verdict on stdout, `--at`,
 * a broken /ByteRange, "1 byte".
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { NO_PDFSIG, pdfsigTrusting, type Pdfsig } from '../../../helpers/pdfsig.js';
import { NO_OPENSSL, Pki } from '../../../helpers/openssl-pki.js';
import { addSignature, appendRevision, basePdf, stream, textContent } from '../../../helpers/pdf-build.js';
import { signedRevision } from '../../../helpers/ltv.js';
import { signedCopyFrom } from '../../../helpers/signed-copy.js';

let sandbox: TestSandbox;
const dataDir = tempDir('sign-cli-verify-rev-data-');
const dir = tempDir('sign-cli-verify-rev-');
const caFile = join(dataDir, 'ca.pem');
let copy: Buffer;

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40, dataDir });
  await signedCopyFrom(sandbox, join(dir, 'copy.pdf'));
  // Its B-T part: what follows the sandbox's signature here is what each test adds (the sandbox's
  // own DSS and document timestamp are test/sandbox/sandbox-ca.test.ts's).
  copy = signedRevision(readFileSync(join(dir, 'copy.pdf')));
  writeFileSync(join(dir, 'copy.pdf'), copy);
});
afterAll(async () => {
  await sandbox?.stop();
});

const verify = (file: string, ...extra: string[]) =>
  runCommand(['envelopes', 'verify', file, ...extra], { env: sandbox.env });
interface Verdict {
  valid: boolean;
  modified_after_signing: boolean;
  revisions: { revision: number; signed_by: string[] }[];
  signatures: {
    field: string;
    valid: boolean;
    revision: number;
    changes_after: { revision: number; kind: string; page?: number; allowed: boolean }[];
    checks: { check: string; ok: boolean; detail: string }[];
  }[];
}

describe.skipIf(NO_PDFSIG)('a second signature by pdfsig', () => {
  let pdfsig: Pdfsig;
  let bobCa: string;
  beforeAll(() => {
    const pki = new Pki(dir);
    const ca = pki.ca('Second Signer CA');
    const bob = pki.issue(ca, 'Bob Second');
    bobCa = ca.cert;
    execFileSync(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-inkey',
        bob.key,
        '-in',
        bob.cert,
        '-certfile',
        ca.cert,
        '-out',
        join(dir, 'bob.p12'),
        '-passout',
        'pass:',
        '-name',
        'bob',
      ],
      { stdio: 'ignore' },
    );
    pdfsig = pdfsigTrusting(ca.cert, caFile);
    execFileSync('pk12util', ['-i', join(dir, 'bob.p12'), '-d', pdfsig.nssdir, '-W', ''], {
      stdio: 'ignore',
    });
  });
  const signWithPdfsig = (input: string, output: string) =>
    execFileSync('pdfsig', ['-add-signature', '-nssdir', pdfsig.nssdir, '-nick', 'bob', input, output], {
      stdio: 'ignore',
    });

  it("after the sandbox's signature: both valid, each revision shown", async () => {
    signWithPdfsig(join(dir, 'copy.pdf'), join(dir, 'two.pdf'));
    expect(await pdfsig.checkOnline(join(dir, 'two.pdf'))).toMatch(/Signature #2:[\s\S]*Signature is Valid/);
    const json = await verify(join(dir, 'two.pdf'), '--trust', caFile, '--trust', bobCa, '--json');
    expect(json.code, json.stdout).toBe(0);
    const verdict = JSON.parse(json.stdout) as Verdict;
    expect(verdict.signatures.map((s) => [s.revision, s.valid])).toEqual([
      [2, true],
      [3, true],
    ]);
    expect(verdict.signatures[0]!.changes_after.every((c) => c.allowed && c.revision === 3)).toBe(true);
    const human = await verify(join(dir, 'two.pdf'), '--trust', caFile, '--trust', bobCa);
    expect(human.stdout).toMatch(/REVISION +BYTES +SIGNED BY +CHANGES/);
    expect(human.stdout).toMatch(/\n3 +\d+ +[0-9A-F]{32} +signature field [0-9A-F]{32} added/);
    expect(human.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /✓ .*two\.pdf: 2 signatures verified \(sign-cli sandbox signing service, Bob Second\); unaltered since signing$/,
    );
  });

  it("after the page was rewritten: the sandbox's signature fails naming the change, pdfsig's passes", async () => {
    // The sandbox copy's first page content is object 6 (pdfkit's numbering); the attacker redefines it.
    const attacked = appendRevision(copy, { 6: stream(textContent('PAY 900 EUR TO MALLORY')) });
    writeFileSync(join(dir, 'attacked.pdf'), attacked);
    signWithPdfsig(join(dir, 'attacked.pdf'), join(dir, 'attacked-two.pdf'));
    // pdfsig checks each signature's bytes: both "valid" there; only the first is not the whole document.
    expect(await pdfsig.checkOnline(join(dir, 'attacked-two.pdf'))).toMatch(
      /Signature #1:[\s\S]*Not total document signed[\s\S]*Signature is Valid[\s\S]*Signature #2:[\s\S]*Total document signed/,
    );
    const result = await verify(join(dir, 'attacked-two.pdf'), '--trust', caFile, '--trust', bobCa, '--json');
    expect(result.code).toBe(1);
    const verdict = JSON.parse(result.stdout) as Verdict;
    expect(verdict.valid).toBe(false);
    expect(verdict.signatures.map((s) => s.valid)).toEqual([false, true]);
    expect(verdict.signatures[0]!.changes_after).toContainEqual(
      expect.objectContaining({ revision: 3, kind: 'page content', page: 1, allowed: false }),
    );
    const human = await verify(join(dir, 'attacked-two.pdf'), '--trust', caFile, '--trust', bobCa);
    expect(human.stdout).toContain(
      'Signature1: changes after: changed after this signature: page 1 content (revision 3)',
    );
    expect(human.stdout).not.toContain('unaltered since signing');
  });
});

describe('what verify says', () => {
  it('a broken /ByteRange is its own failure, and not "modified after signing"', async () => {
    const text = copy.toString('latin1');
    // One byte more than the file has, written in as many digits: the file's layout stays as it was.
    const broken = Buffer.from(
      text.replace(
        /\/ByteRange \[0 (\d+) (\d+) (\d+)\]/,
        (_m, a: string, b: string, c: string) => `/ByteRange [0 ${a} ${b} ${Number(c) + 1}]`,
      ),
      'latin1',
    );
    expect(broken.length).toBe(copy.length);
    writeFileSync(join(dir, 'broken.pdf'), broken);
    const result = await verify(join(dir, 'broken.pdf'), '--trust', caFile, '--json');
    expect(result.code).toBe(1);
    const verdict = JSON.parse(result.stdout) as Verdict;
    expect(verdict.modified_after_signing).toBe(false);
    expect(verdict.signatures[0]!.checks).toContainEqual(
      expect.objectContaining({
        check: 'byte range',
        ok: false,
        detail: expect.stringContaining('reaches past the end of the file'),
      }),
    );
  });

  it('"1 byte", the verdict on stdout, and --at', async () => {
    writeFileSync(join(dir, 'one.pdf'), Buffer.concat([copy, Buffer.from('x')]));
    const one = await verify(join(dir, 'one.pdf'), '--trust', caFile);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain('modified after signing: 1 byte was appended after the last revision');
    expect(one.stdout.trimEnd().split('\n').at(-1)).toMatch(/^✗ .*one\.pdf does not verify: changes after: /);

    const bad = await verify(join(dir, 'copy.pdf'), '--at', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--at yesterday: not a time');
    const claimed = await verify(join(dir, 'copy.pdf'), '--trust', caFile, '--at', 'claimed', '--json');
    expect(claimed.code).toBe(0);
    expect(JSON.parse(claimed.stdout)).toMatchObject({ signatures: [{ validation_time: 'claimed' }] });
    const past = await verify(join(dir, 'copy.pdf'), '--trust', caFile, '--at', '2001-01-01T00:00:00Z');
    expect(past.code).toBe(1);
    expect(past.stdout).toContain('was not yet valid at the validation time 2001-01-01');
  });
});

describe.skipIf(NO_OPENSSL)('an expired certificate with /M set back', () => {
  it('is exit 1 by default and exit 0 with --at claimed', async () => {
    const pki = new Pki(dir);
    const { ca, signer } = await pki.dated(
      'Lapsed Signer',
      new Date('2020-01-01T00:00:00Z'),
      new Date('2021-01-01T00:00:00Z'),
    );
    writeFileSync(
      join(dir, 'lapsed.pdf'),
      await addSignature(basePdf(), {
        field: 'Sig',
        signingTime: new Date('2020-06-01T00:00:00Z'),
        sign: (bytes) => pki.cms(bytes, signer, ca),
      }),
    );
    const now = await verify(join(dir, 'lapsed.pdf'), '--trust', ca.cert);
    expect(now.code).toBe(1);
    expect(now.stdout).toContain(
      "certificate chain: the signer's certificate had expired at the validation time",
    );
    expect((await verify(join(dir, 'lapsed.pdf'), '--trust', ca.cert, '--at', 'claimed')).code).toBe(0);
  });
});
