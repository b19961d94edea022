/** `keys list`, in process against an in-process sandbox: the listing merged with profiles, masked; refused and unreachable services. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { withConfig, expectNoKey, isoDay } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('keys list', () => {
  it("merges the service's listing with local profiles, marking each row's source", async () => {
    const { env } = withConfig();
    const remoteOnly = await sandbox.control<{ key: string; name: string }>('/_sandbox/keys', {
      name: 'ci-reader',
      scopes: ['envelopes:read'],
      expires: isoDay(5),
    });
    await runCommand(['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl], {
      env,
      input: sandbox.apiKey,
    });
    await runCommand(['keys', 'add', 'laptop', '--stdin', '--offline', '--expires', isoDay(-3)], {
      env,
      input: 'sk_live_LocalOnlyKey0123456789',
    });
    const list = await runCommand(['keys', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as Record<string, unknown>[];
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName.sbx).toMatchObject({
      source: 'local+service',
      active: true,
      environment: 'test',
      key: `sk_test_****${sandbox.apiKey.slice(-4)}`,
      scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'],
      status: 'active',
    });
    expect(byName['ci-reader']).toMatchObject({
      source: 'service',
      active: false,
      scopes: ['envelopes:read'],
      status: 'expiring',
      days_left: 5,
      key: `sk_test_****${remoteOnly.key.slice(-4)}`,
    });
    expect(byName.laptop).toMatchObject({
      source: 'local',
      status: 'expired',
      environment: 'live',
      key: 'sk_live_****6789',
    });
    for (const row of rows)
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining(['name', 'environment', 'key', 'last_used', 'expires', 'scopes', 'status']),
      );

    const table = await runCommand(['keys', 'list'], { env });
    // A pipe: one table, no borders, UPPER CASE heads; the key in use marked with *.
    expect(table.stdout.split('\n')[0]).toMatch(
      /^NAME\s+ENV\s+KEY\s+LAST USED\s+EXPIRES\s+SCOPES\s+SOURCE\s+STORED$/,
    );
    expect(table.stdout).toMatch(
      /^sbx \*\s+test\s+sk_test_\*{4}\w{4}\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s/m,
    );
    expect(table.stdout).not.toMatch(/[│┌└]/);
    expect(table.stdout).toMatch(/expired 3 days ago/);
    expect(table.stdout).toMatch(/5 days left/);
    expect(table.stdout).toContain('local+service');

    const local = await runCommand(['keys', 'list', '--local', '--json'], {
      env: { ...env, SIGN_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(local.code).toBe(0);
    expect((JSON.parse(local.stdout) as { source: string }[]).map((r) => r.source)).toEqual([
      'local',
      'local',
    ]);
    expectNoKey([list, table, local], sandbox.apiKey);
    expectNoKey([list, table, local], remoteOnly.key);
    expectNoKey([list, table, local], 'sk_live_LocalOnlyKey0123456789');
  });
  it('exits 3 when the service refuses the key, after showing the stored profiles and saying what is wrong', async () => {
    const { env } = withConfig();
    await runCommand(['keys', 'add', 'old', '--stdin', '--offline', '--expires', isoDay(-1)], {
      env,
      input: 'sk_test_ExpiredProfileKey000001',
    });
    const refused = {
      ...env,
      SIGN_BASE_URL: sandbox.baseUrl,
      SIGN_API_KEY: 'sk_test_NotAKeyTheSandboxKnows00',
    };
    const result = await runCommand(['keys', 'list'], { env: refused });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('HTTP 401 invalid_api_key');
    expect(result.stderr).toContain('the keys above are the local profiles only');
    // The stored profile, and the refused key in use, are still shown.
    expect(result.stdout).toMatch(
      /^old\s+.*sk_test_\*{4}0001\s+never\s+\d{4}-\d{2}-\d{2} \(expired 1 day ago\)/m,
    );
    expect(result.stdout).toMatch(/^\(SIGN_API_KEY\) \*\s+test\s+sk_test_\*{4}ws00\s/m);
    const json = await runCommand(['keys', 'list', '--json'], { env: refused });
    expect(json.code).toBe(3);
    expect((JSON.parse(json.stdout) as { name: string }[]).map((r) => r.name)).toEqual([
      'old',
      '(SIGN_API_KEY)',
    ]);
    // The active profile's own key, expired and refused: the same.
    const expired = await runCommand(['keys', 'list'], {
      env: { ...env, SIGN_BASE_URL: sandbox.baseUrl, SIGN_PROFILE: 'old' },
    });
    expect(expired.code).toBe(3);
    expect(expired.stdout).toMatch(/^old \*\s/m);
    expectNoKey([result, json, expired], 'sk_test_ExpiredProfileKey000001');
  });
  it('still lists local profiles, with a warning, when the service cannot be reached', async () => {
    const { env } = withConfig();
    await runCommand(['keys', 'add', 'away', '--stdin', '--offline', '--base-url', 'http://127.0.0.1:9'], {
      env,
      input: 'sk_test_unreachable0000000',
    });
    const result = await runCommand(['keys', 'list', '--json', '--retries', '0'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("could not read the service's key listing");
    expect(JSON.parse(result.stdout)).toHaveLength(1);
  });
});

describe('warnings before a request, and auth errors', () => {
  it('warns about an expired key it knows of, and exits 3 with a hint naming the profile', async () => {
    const { env } = withConfig();
    const expired = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'expired',
      expires: '2021-01-31',
    });
    await runCommand(
      [
        'keys',
        'add',
        'stale',
        '--stdin',
        '--offline',
        '--base-url',
        sandbox.baseUrl,
        '--expires',
        '2021-01-31',
        '--scope',
        'envelopes:read',
      ],
      { env, input: expired.key },
    );
    const result = await runCommand(['envelopes', 'create', '-f', EXAMPLE], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /warning: the API key sk_test_\*{4}\w{4} \(profile stale\) expired on 2021-01-31/,
    );
    expect(result.stderr).toMatch(/warning: .* envelopes:write/);
    expect(result.stderr).toMatch(/error: create envelope: HTTP 401 expired_api_key.*\(profile stale\)/);
    expectNoKey([result], expired.key);
  });
});
