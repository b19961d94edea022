/**
 * End to end: the built binary creates the Arabic example envelope against a
 * spawned sandbox, waits for it to complete and downloads its signed copy;
 * pdf.js reads the Arabic names back as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { readPdf } from '../helpers/pdf.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope-ar.json');
const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { title: string; contract_id: string; signers: { name: string }[] };

describe('signed copy of an Arabic envelope, through the CLI', () => {
  let sandbox: SandboxProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Speed 40: the two-signer journey takes well under a second.
    sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
    env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('creates examples/envelope-ar.json, downloads the signed copy with --wait, and its text has the Arabic names as written', async () => {
    const created = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const { envelope } = JSON.parse(created.stdout) as { envelope: { id: string } };

    const file = join(tempDir(), 'signed.pdf');
    const download = await runCli(['envelopes', 'download', envelope.id, '-o', file, '--wait'], { env });
    expect(download.code, download.stderr).toBe(0);
    const pdf = readFileSync(file);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const read = await readPdf(pdf);
    expect(read.pages).toBe(2);
    const [copy, certificate] = read.lines as [string[], string[]];
    expect(copy[1]).toBe(example.title);
    expect(copy).toContain(`Contract ID: ${example.contract_id}`);
    expect(certificate[0]).toBe('Certificate of completion');
    example.signers.forEach(({ name }, i) => {
      expect(copy).toContain(`${i + 1}. ${name}`);
      expect(certificate).toContain(`${i + 1}. ${name}`);
    });
    expect(example.signers[0]!.name).toBe('ليلى حداد');

    // The certificate's head hash is the audit trail's, as the API reports it.
    const trail = await runCli(['envelopes', 'audit', envelope.id, '--json'], { env });
    const { entries } = JSON.parse(trail.stdout) as { entries: { hash: string }[] };
    expect(certificate).toContain(`Head hash (SHA-256): ${entries.at(-1)!.hash}`);
  });
});
