/** `envelopes download`, in process against an in-process sandbox: --wait, the PDF check, -o -, errors. */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { readPdf } from '../../../helpers/pdf.js';

const ARABIC = join(ROOT, 'examples', 'envelope-ar.json');
const arabic = JSON.parse(readFileSync(ARABIC, 'utf8')) as {
  title: string;
  contract_id: string;
  signers: { name: string }[];
};
let sandbox: TestSandbox;
let env: Record<string, string>;

beforeAll(async () => {
  // Speed 40: a two-signer journey takes well under a second.
  sandbox = await startTestSandbox({ speed: 40 });
  env = sandbox.env;
});
afterAll(async () => {
  await sandbox?.stop();
});

const create = async (file: string) =>
  (
    await runCommand(['envelopes', 'create', '-f', file, '--new', '--query', 'envelope.id'], { env })
  ).stdout.trim();

describe('envelopes download', () => {
  it('--wait, then the signed copy of an Arabic envelope: its text has the names as written, and the audit head hash', async () => {
    const id = await create(ARABIC);
    const file = join(tempDir(), 'signed.pdf');
    const download = await runCommand(['envelopes', 'download', id, '-o', file, '--wait', '--json'], { env });
    expect(download.code, download.stderr).toBe(0);
    const pdf = readFileSync(file);
    expect(JSON.parse(download.stdout)).toMatchObject({
      id,
      file,
      bytes: pdf.length,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const read = await readPdf(pdf);
    // The document (the lease, in Arabic, filled in, each signer's place), then the certificate, in Arabic too.
    const page = read.lines.findIndex((lines) => lines[0] === 'شهادة الإتمام');
    expect(page).toBeGreaterThan(0);
    const copy = read.lines.slice(0, page).flat();
    const certificate = read.lines[page]!;
    expect(copy[1]).toBe('عقد إيجار مكتب');
    expect(copy[0]).toContain(`المرجع: ${arabic.contract_id}`);
    arabic.signers.forEach(({ name }) => expect(copy).toContain(name));
    expect(certificate).toContain(`العنوان: ${arabic.title}`);
    expect(certificate).toContain(`رقم العقد: ${arabic.contract_id}`);
    arabic.signers.forEach(({ name }, i) => expect(certificate).toContain(`${i + 1}. ${name}`));
    const trail = JSON.parse((await runCommand(['envelopes', 'audit', id, '--json'], { env })).stdout) as {
      entries: { hash: string; type: string; detail: string }[];
    };
    // The certificate carries the trail up to the completion; the trail's closing entry then names this document's hash.
    expect(certificate).toContain(`تجزئة SHA-256 لآخر قيد: ${trail.entries.at(-2)!.hash}`);
    expect(trail.entries.at(-1)).toMatchObject({
      type: 'document.sealed',
      detail: `signed copy sha256 ${JSON.parse(download.stdout).sha256}`,
    });
  });

  it('-o - writes the PDF to stdout and nothing else', async () => {
    const id = await create(EXAMPLE);
    const result = await runCommand(['envelopes', 'download', id, '--wait', '-o', '-'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('%PDF-')).toBe(true);
  });

  it('too early: exit 1 suggesting --wait, and no file, not even a partial one', async () => {
    // A signer who never opens it (the sandbox's +noview): the envelope stays unsigned however loaded the machine is.
    const dir = tempDir();
    const envelope = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { signers: { email?: string }[] };
    envelope.signers[0]!.email = 'pending+noview@example.com';
    writeFileSync(join(dir, 'pending.json'), JSON.stringify(envelope));
    const id = await create(join(dir, 'pending.json'));
    rmSync(join(dir, 'pending.json'));
    const result = await runCommand(['envelopes', 'download', id, '-o', join(dir, 'x.pdf')], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('envelope_not_completed');
    expect(result.stderr).toContain('add --wait to wait for it');
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a bad --wait-timeout is exit 2 before anything is sent', async () => {
    const result = await runCommand(['envelopes', 'download', 'env_x', '--wait', '--wait-timeout', 'soon'], {
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--wait-timeout');
  });
});
