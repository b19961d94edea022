/** `envelopes get`, in process against an in-process sandbox: the record and signer table, JSON, errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
let id: string;
const work = workspace('sign-cli-get-');

beforeAll(async () => {
  // Speed 0.01: the journey stays at its start for the whole file, so "sent" is what every test sees
  // (at the helper's speed 20 a loaded machine let it complete between create and get).
  sandbox = await startTestSandbox({ speed: 0.01 });
  id = (
    await runCommand(['envelopes', 'create', '-f', work.unique(), '--query', 'envelope.id'], {
      env: sandbox.env,
    })
  ).stdout.trim();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes get', () => {
  it('in a pipe: the fields as label: value, then the signers as a table', async () => {
    const result = await runCommand(['envelopes', 'get', id], { env: sandbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^id: +${id}$`, 'm'));
    expect(result.stdout).toMatch(/^status: +sent$/m);
    expect(result.stdout).toMatch(/^ORDER +NAME +CHANNEL +CONTACT +VERIFICATION +STATUS$/m);
    expect(result.stdout).toContain('Omar Khalil');
  });

  it('on a narrow terminal the contact gives way, never the names', async () => {
    const result = await runCommand(['envelopes', 'get', id], { env: sandbox.env, tty: true, columns: 60 });
    expect(result.code).toBe(0);
    for (const line of result.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
    expect(result.stdout).toContain('Omar Khalil');
  });

  it('--json prints the envelope as the service returned it; --query a part of it', async () => {
    const json = await runCommand(['envelopes', 'get', id, '--json'], { env: sandbox.env });
    expect(JSON.parse(json.stdout)).toMatchObject({ id, status: 'sent', environment: 'test' });
    const statuses = await runCommand(['envelopes', 'get', id, '--query', 'signers[].status'], {
      env: sandbox.env,
    });
    expect(JSON.parse(statuses.stdout)).toHaveLength(2);
  });

  it('an unknown id, or one of another environment, is not found (exit 1)', async () => {
    const missing = await runCommand(['envelopes', 'get', 'env_doesnotexist'], { env: sandbox.env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('HTTP 404');
    const live = await sandbox.mintKey({ environment: 'live' });
    const other = await runCommand(['envelopes', 'get', id], { env: { ...sandbox.env, SIGN_API_KEY: live } });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('envelope_not_found');
  });
});
