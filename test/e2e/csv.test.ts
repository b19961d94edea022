/**
 * Bulk from a spreadsheet end to end: the built binary against a sandbox
 * process, the CSV piped on stdin (`--csv -`) as Excel saves it with `;`. The
 * service's own listing shows one envelope per row with every name exact; a
 * re-run creates none. (Every convention is tested in process:
 * test/cli/commands/envelopes/create-csv.test.ts.)
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  await sandbox?.stop();
});

const NAMES = ['Layla Haddad', 'عمر خليل', 'Haddad; Rami "Ray"', 'مريم العلي'];

describe('envelopes create --csv - (built binary, sandbox process)', () => {
  it('creates one envelope per piped row, names exact as the service lists them; a re-run creates none', async () => {
    const rows = NAMES.map((name, i) =>
      [
        `E2E-CSV-${i}`,
        `"${name.replace(/"/g, '""')}"`,
        i % 2 ? '' : `p${i}@example.com`,
        i % 2 ? `+97150123450${i}` : '',
        i % 2 ? 'whatsapp' : 'email',
        '',
        '',
        '14',
      ].join(';'),
    );
    const csv = `\uFEFFcontract_id;signer_name;signer_email;signer_phone;channel;witness_name;witness_phone;days\r\n${rows.join('\r\n')}\r\n`;
    const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: tempDir() };
    const args = ['envelopes', 'create', '--csv', '-', '--template', join(ROOT, 'examples', 'template.json')];
    const first = await runCli(args, { env, input: csv });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('created 4 in test, already created 0, failed 0');
    expect(first.stdout + first.stderr).toMatch(/created env_\w+ in test from stdin:row 2/);

    const listed = await runCli(['envelopes', 'list', '--contract-id', 'E2E-CSV-2', '--json'], { env });
    expect(listed.code).toBe(0);
    const found = listed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { signers: { name: string }[] });
    expect(found.map((e) => e.signers[0]!.name)).toEqual(['Haddad; Rami "Ray"']);
    const all = await runCli(['envelopes', 'list', '--all', '--json'], { env });
    const names = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { contract_id: string; signers: { name: string }[] })
      .filter((e) => e.contract_id.startsWith('E2E-CSV-'));
    expect(names.map((e) => e.signers[0]!.name).sort()).toEqual([...NAMES].sort());

    const again = await runCli(args, { env, input: csv });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('created 0 in test, already created 4');
    expect(await sandbox.envelopeCount()).toBe(names.length);
  });
});
