/** `config set` (with get, unset, list and path around it), in process: values checked before they are stored. */
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { withConfig, expectNoKey } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('config set', () => {
  it('sets, gets and unsets checked settings, and lists with keys masked', async () => {
    const { env, file } = withConfig();
    await runCommand(['keys', 'add', 'p', '--stdin', '--offline'], { env, input: sandbox.apiKey });
    expect((await runCommand(['config', 'set', 'rate', '120'], { env })).code).toBe(0);
    expect((await runCommand(['config', 'get', 'rate'], { env })).stdout.trim()).toBe('120');
    expect((await runCommand(['config', 'set', 'rate', 'fast'], { env })).code).toBe(2);
    expect((await runCommand(['config', 'set', 'webhook_scheme', 'rot13'], { env })).code).toBe(2);
    expect((await runCommand(['config', 'set', 'base_url', 'not-a-url'], { env })).code).toBe(2);
    expect(
      (await runCommand(['config', 'set', 'paths.getAuditTrail', '/api/v1/envelopes/{id}/audit'], { env }))
        .code,
    ).toBe(0);
    expect((await runCommand(['config', 'set', 'paths.nope', '/x'], { env })).code).toBe(2);
    expect((await runCommand(['config', 'set', 'default_profile', 'ghost'], { env })).code).toBe(2);
    expect((await runCommand(['config', 'set', 'colour', 'blue'], { env })).code).toBe(2);
    const list = await runCommand(['config', 'list'], { env });
    expect(list.stdout).toMatch(/rate\s+120/);
    expect(list.stdout).toContain('paths.getAuditTrail');
    const json = await runCommand(['config', 'list', '--json'], { env });
    expect(JSON.parse(json.stdout).profiles.p.api_key).toBe(`sk_test_****${sandbox.apiKey.slice(-4)}`);
    expect((await runCommand(['config', 'path'], { env })).stdout.trim()).toBe(file);
    expect((await runCommand(['config', 'unset', 'rate'], { env })).code).toBe(0);
    // Unset: back to its default, which `config get` prints.
    const unset = await runCommand(['config', 'get', 'rate'], { env });
    expect([unset.code, unset.stdout]).toEqual([0, '600\n']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expectNoKey([list, json], sandbox.apiKey);
  });
});
