/**
 * `sign-cli api` end to end: the built binary against a sandbox process. The
 * conventions (fields, --paginate over 250 envelopes, --include, --silent) are
 * tested in process (test/cli/commands/api); here, that the installed command
 * does the same over a real process boundary: a GET, a POST run twice that
 * creates one envelope, --paginate, and the exit codes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../helpers/envelopes.js';
import { runCli } from '../helpers/cli.js';
import { expectNoKey } from '../helpers/profiles.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('sign-cli api (built binary, sandbox process)', () => {
  it('GETs, POSTs twice creating once, paginates, and exits 0, 1, 3 and 2 as documented', async () => {
    const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
    const before = await sandbox.envelopeCount();
    const body = readFileSync(EXAMPLE, 'utf8');
    const first = await runCli(['api', '/api/v1/envelopes', '--input', '-', '--include'], {
      env,
      input: body,
    });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^HTTP 201\n/);
    const second = await runCli(['api', '/api/v1/envelopes', '--input', EXAMPLE], { env });
    expect(second.code).toBe(0);
    const id = (JSON.parse(second.stdout) as { id: string }).id;
    expect(first.stdout).toContain(id);
    expect(await sandbox.envelopeCount()).toBe(before + 1);

    const got = await runCli(['api', `/api/v1/envelopes/${id}`, '--query', 'status'], { env });
    expect(got.code).toBe(0);
    expect(got.stdout.trim()).toMatch(/^[a-z_]+$/); // --query prints a string raw, as jq -r
    const pages = await runCli(['api', '/api/v1/envelopes', '--paginate'], { env });
    expect(pages.code).toBe(0);
    const ids = pages.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);

    const missing = await runCli(['api', '/api/v1/envelopes/env_DoesNotExist0000000'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('envelope_not_found'); // the body, printed as gh api does
    const refused = await runCli(['api', '/api/v1/envelopes'], {
      env: { ...env, SIGN_API_KEY: 'sk_test_NotAKeyOfTheSandbox0000' },
    });
    expect(refused.code).toBe(3);
    const bad = await runCli(['api', 'https://elsewhere.example/api/v1/envelopes'], { env });
    expect(bad.code).toBe(2);
    expectNoKey([first, second, got, pages, missing, refused, bad], sandbox.apiKey);
  });
});
