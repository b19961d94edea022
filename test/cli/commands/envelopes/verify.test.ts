/**
 * `envelopes verify`, in process against an in-process sandbox that signs its
 * signed copies: every check passes for the copy with the sandbox CA trusted;
 * without it, a changed byte, an appended revision, another envelope's trail,
 * each fails naming its check (exit 1); a file that is not a PDF is exit 2.
 * (pdfsig agrees: test/sandbox/pades.test.ts.)
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { signedCopyFrom } from '../../../helpers/signed-copy.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
const dir = tempDir('sign-cli-verify-');
let file: string;
let caFile: string;
let id: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 40 });
  env = sandbox.env;
  file = join(dir, 'signed.pdf');
  ({ id } = await signedCopyFrom(sandbox, file));
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, await (await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`)).text());
});
afterAll(async () => {
  await sandbox?.stop();
});

interface Verdict {
  valid: boolean;
  modified_after_signing: boolean;
  signatures: {
    signer: string;
    signing_time: string | null;
    checks: { check: string; ok: boolean; detail: string }[];
  }[];
  audit_trail: { ok: boolean; detail: string } | null;
}

describe('envelopes verify', () => {
  it("passes every check of the sandbox's signed copy with its CA trusted, and the audit trail names the file", async () => {
    const result = await runCommand(
      ['envelopes', 'verify', file, '--trust', caFile, '--envelope', id, '--json'],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const verdict = JSON.parse(result.stdout) as Verdict;
    expect(verdict.valid).toBe(true);
    // PAdES B-LTA: the signature, then the document timestamp over the DSS.
    expect(verdict.signatures).toHaveLength(2);
    expect(verdict.signatures[0]!.signer).toBe('sign-cli sandbox signing service');
    expect(verdict.signatures[0]!.checks.map((c) => [c.check, c.ok])).toEqual([
      ['byte range', true],
      ['digest', true],
      ['signature', true],
      ['timestamp', true],
      ['certificate chain', true],
      ['revocation', true],
      ['certificate purpose', true],
      ['signing certificate', true],
      ['changes after', true],
    ]);
    // B-T under it: the sandbox's TSA proves the time, and the chain is validated then.
    expect(verdict.signatures[0]).toMatchObject({
      type: 'approval',
      revision: 2,
      docmdp: null,
      validation_time: 'timestamp',
      timestamp: { tsa: 'sign-cli sandbox timestamp authority', valid: true },
    });
    // What came after it is the DSS and the document timestamp, both allowed.
    expect(
      (
        verdict.signatures[0] as unknown as { changes_after: { allowed: boolean; revision: number }[] }
      ).changes_after.every((c) => c.allowed && c.revision === 3),
    ).toBe(true);
    expect(verdict.signatures[1]).toMatchObject({
      signer: 'sign-cli sandbox timestamp authority',
      type: 'document timestamp',
      revision: 3,
      valid: true,
    });
    expect(verdict.modified_after_signing).toBe(false);
    expect(verdict.audit_trail).toMatchObject({ ok: true });
    const human = await runCommand(['envelopes', 'verify', file, '--trust', caFile], { env });
    expect(human.code).toBe(0);
    // The verdict is the last line of stdout, with the table: `verify x.pdf > report.txt` keeps it.
    expect(human.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /✓ .*signed\.pdf: 2 signatures verified \(sign-cli sandbox signing service, sign-cli sandbox timestamp authority\); unaltered since signing/,
    );
    // On stderr, at most the warning of a revocation status the copy cannot show (checked softly).
    for (const line of human.stderr.split('\n').filter(Boolean))
      expect(line).toMatch(/^warning: \S+: revocation unknown, accepted as revocation is checked softly: /);
    // The timestamp's time in the one time format of human output; --json keeps ISO.
    expect(human.stdout).toMatch(
      /timestamp +✓ +by sign-cli sandbox timestamp authority at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z: the signature existed then/,
    );
    expect(human.stdout).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}Z/);
    expect(verdict.signatures[0]!.signing_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('fails, naming the check, without the CA, after a changed byte or an appended revision, or against another envelope', async () => {
    const untrusted = await runCommand(['envelopes', 'verify', file], { env });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toContain('certificate chain: not to a trusted root');
    expect(untrusted.stderr).toContain(
      'hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem>',
    );

    const changed = Buffer.from(readFileSync(file));
    changed[300] = changed[300]! ^ 0x01;
    writeFileSync(join(dir, 'changed.pdf'), changed);
    const tampered = await runCommand(['envelopes', 'verify', join(dir, 'changed.pdf'), '--trust', caFile], {
      env,
    });
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain(
      'digest: sha256 of the signed bytes differs from the one signed: the document changed',
    );

    const appended = join(dir, 'appended.pdf');
    writeFileSync(appended, readFileSync(file));
    appendFileSync(appended, '\n% an incremental update after signing\n%%EOF\n');
    const after = await runCommand(['envelopes', 'verify', appended, '--trust', caFile, '--json'], { env });
    expect(after.code).toBe(1);
    expect(JSON.parse(after.stdout)).toMatchObject({ valid: false, modified_after_signing: true });
    const afterHuman = await runCommand(['envelopes', 'verify', appended, '--trust', caFile], { env });
    expect(afterHuman.stdout).toMatch(
      /changes after: modified after signing: \d+ bytes were appended after the last revision/,
    );

    const other = (
      await runCommand(
        [
          'envelopes',
          'create',
          '-f',
          join(ROOT, 'examples', 'envelope-ar.json'),
          '--new',
          '--query',
          'envelope.id',
        ],
        { env },
      )
    ).stdout.trim();
    await runCommand(['envelopes', 'download', other, '-o', join(dir, 'other.pdf'), '--wait'], { env });
    const mismatch = await runCommand(['envelopes', 'verify', file, '--trust', caFile, '--envelope', other], {
      env,
    });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toContain("its closing entry does not record this file's SHA-256");
  });

  it('download --verify checks the file it saved, the audit trail included; --json carries the verdict', async () => {
    const saved = join(dir, 'again.pdf');
    const human = await runCommand(
      ['envelopes', 'download', id, '-o', saved, '--verify', '--trust', caFile],
      { env },
    );
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /audit trail\s+✓\s+the audit trail of env_\w+ verifies \(\d+ entries\) and records this file's SHA-256/,
    );
    expect(human.stdout.split('\n').filter((l) => l.includes('✗'))).toEqual([]);
    const json = await runCommand(['envelopes', 'download', id, '-o', saved, '--verify', '--json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id,
      verification: { valid: false, audit_trail: { ok: true } },
    });
    expect((await runCommand(['envelopes', 'download', id, '-o', '-', '--verify'], { env })).code).toBe(2);
  });

  it('is exit 2 for a file that is not a PDF, and exit 1 for a PDF with no signature', async () => {
    const text = join(dir, 'not.pdf');
    writeFileSync(text, 'hello');
    const notPdf = await runCommand(['envelopes', 'verify', text], { env });
    expect(notPdf.code).toBe(2);
    expect(notPdf.stderr).toContain('not a PDF');
    const plain = join(dir, 'plain.pdf');
    writeFileSync(
      plain,
      '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
    );
    const unsigned = await runCommand(['envelopes', 'verify', plain], { env });
    expect(unsigned.code).toBe(1);
    expect(unsigned.stdout).toContain('no signature in it');
  });
});
