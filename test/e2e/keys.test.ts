/**
 * `keys`, `config` and `doctor`, spawned as a user runs them, against a real
 * sandbox. The full key must never appear in any of their output.
 */
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  await sandbox?.stop();
});

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
const isoDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** Every output of a run, for scanning: a key must never appear in full, nor its hidden middle. */
function expectNoKey(results: CliResult[], key: string): void {
  const hidden = key.slice(8, -4);
  for (const r of results) {
    expect(r.stdout + r.stderr).not.toContain(key);
    expect(r.stdout + r.stderr).not.toContain(hidden);
  }
}

function withConfig() {
  const dir = tempDir('sign-cli-keys-');
  return { dir, env: { SIGN_CONFIG_DIR: dir }, file: join(dir, 'config.json') };
}

describe('keys add / use / remove', () => {
  it('stores a key from stdin in a 0600 config file, first profile active', async () => {
    const { env, file } = withConfig();
    const add = await runCli(['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl, '--scope', 'envelopes:write'], { env, input: `${sandbox.apiKey}\n` });
    expect(add.code).toBe(0);
    expect(add.stderr).toContain('now active');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Checked with the service: its listing wins over the flags, and the disagreement is shown.
    expect(add.stderr).toContain("--scope says envelopes:write, but the service lists envelopes:write envelopes:read contracts:read audit:read for this key; storing the service's");
    expect(add.stderr).toContain('checked with the service: test, expires 20');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({ active_profile: 'sbx', profiles: { sbx: { api_key: sandbox.apiKey, environment: 'test', expires: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'] } } });
    // So `keys list --local` knows everything without asking again.
    const local = JSON.parse((await runCli(['keys', 'list', '--local', '--json'], { env })).stdout);
    expect(local[0]).toMatchObject({ name: 'sbx', status: 'active', scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'] });
    // The stored profile works, and its use is recorded.
    const created = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env });
    expect(created.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.sbx.last_used).toMatch(/^\d{4}-\d\d-\d\dT/);
    expectNoKey([add, created], sandbox.apiKey);
  });

  it('refuses to store a key the service refuses (exit 3), unless --offline; empty stdin says no key was given', async () => {
    const { env, file } = withConfig();
    const refused = await runCli(['keys', 'add', 'bad', '--stdin', '--base-url', sandbox.baseUrl], { env, input: 'sk_test_NotKnownToTheSandbox000\n' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('refused this key (HTTP 401); it was not stored');
    expect(existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).profiles?.bad : undefined).toBeUndefined();
    const offline = await runCli(['keys', 'add', 'bad', '--stdin', '--offline', '--base-url', sandbox.baseUrl], { env, input: 'sk_test_NotKnownToTheSandbox000\n' });
    expect(offline.code).toBe(0);
    const empty = await runCli(['keys', 'add', 'none', '--stdin', '--offline'], { env, input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no key was given: stdin was empty');
  });

  it('keys use warns when SIGN_API_KEY still wins, and keys list marks the key actually in use', async () => {
    const { env } = withConfig();
    await runCli(['keys', 'add', 'a', '--stdin', '--offline'], { env, input: 'sk_test_aaaaaaaaaaaaaaaa' });
    await runCli(['keys', 'add', 'b', '--stdin', '--offline'], { env, input: 'sk_test_bbbbbbbbbbbbbbbb' });
    const use = await runCli(['keys', 'use', 'b'], { env: { ...env, SIGN_API_KEY: 'sk_test_FromTheEnvironment000' } });
    expect(use.code).toBe(0);
    expect(use.stderr).toContain("SIGN_API_KEY is set in this environment and wins over profile b's key");
    const list = JSON.parse((await runCli(['keys', 'list', '--local', '--json'], { env: { ...env, SIGN_API_KEY: 'sk_test_FromTheEnvironment000' } })).stdout) as { name: string; active: boolean; source: string; key: string }[];
    expect(list.filter((r) => r.active)).toEqual([expect.objectContaining({ name: '(SIGN_API_KEY)', source: 'env', key: 'sk_test_****t000' })]);
    const profileInUse = JSON.parse((await runCli(['keys', 'list', '--local', '--json'], { env })).stdout) as { name: string; active: boolean }[];
    expect(profileInUse.filter((r) => r.active).map((r) => r.name)).toEqual(['b']);
  });

  it('never takes a key from a flag or without stdin off a terminal; checks names and scopes', async () => {
    const { env } = withConfig();
    const noInput = await runCli(['keys', 'add', 'x'], { env });
    expect(noInput.code).toBe(2);
    expect(noInput.stderr).toContain('--stdin');
    expect((await runCli(['keys', 'add', 'x', '--stdin', '--offline', '--scope', 'envelopes:delete'], { env, input: 'sk_test_abcdefghijklmnop' })).code).toBe(2);
    expect((await runCli(['keys', 'add', 'bad.name', '--stdin', '--offline'], { env, input: 'sk_test_abcdefghijklmnop' })).code).toBe(2);
    expect((await runCli(['keys', 'add', 'x', '--stdin', '--offline'], { env, input: 'two words' })).code).toBe(2);
    expect((await runCli(['keys', 'add', 'x', '--stdin', '--offline'], { env, input: '\n' })).code).toBe(2);
    const short = await runCli(['keys', 'add', 'tiny', '--stdin', '--offline'], { env, input: 'abc123' });
    expect(short.code).toBe(0);
    expect(short.stderr).toContain('only 6 characters');
    const listed = await runCli(['keys', 'list', '--local', '--json'], { env });
    expect(JSON.parse(listed.stdout)[0]).toMatchObject({ name: 'tiny', key: '****' });
    expect(listed.stdout + short.stdout + short.stderr).not.toContain('abc123');
    expect((await runCli(['keys', 'remove', 'tiny'], { env })).code).toBe(0);
    expect((await runCli(['keys', 'add', 'x', '--stdin', '--offline'], { env, input: 'sk_test_abcdefghijklmnop' })).code).toBe(0);
    const again = await runCli(['keys', 'add', 'x', '--stdin', '--offline'], { env, input: 'sk_test_qrstuvwxyzabcdef' });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
    expect((await runCli(['keys', 'add', 'x', '--stdin', '--offline', '--force'], { env, input: 'sk_test_qrstuvwxyzabcdef' })).code).toBe(0);
  });

  it('switches and removes profiles', async () => {
    const { env, file } = withConfig();
    await runCli(['keys', 'add', 'a', '--stdin', '--offline'], { env, input: 'sk_test_aaaaaaaaaaaaaaaa' });
    await runCli(['keys', 'add', 'b', '--stdin', '--offline'], { env, input: 'sk_test_bbbbbbbbbbbbbbbb' });
    expect(JSON.parse(readFileSync(file, 'utf8')).active_profile).toBe('a');
    expect((await runCli(['keys', 'use', 'b'], { env })).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).active_profile).toBe('b');
    expect((await runCli(['keys', 'use', 'c'], { env })).code).toBe(2);
    expect((await runCli(['keys', 'remove', 'b'], { env })).code).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.profiles.b).toBeUndefined();
    expect(after.active_profile).toBeUndefined();
  });
});

describe('keys list', () => {
  it("merges the service's listing with local profiles, marking each row's source", async () => {
    const { env } = withConfig();
    const remoteOnly = await sandbox.control<{ key: string; name: string }>('/_sandbox/keys', { name: 'ci-reader', scopes: ['envelopes:read'], expires: isoDay(5) });
    await runCli(['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl], { env, input: sandbox.apiKey });
    await runCli(['keys', 'add', 'laptop', '--stdin', '--offline', '--expires', isoDay(-3)], { env, input: 'sk_live_LocalOnlyKey0123456789' });
    const list = await runCli(['keys', 'list', '--json'], { env });
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout) as Record<string, unknown>[];
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName.sbx).toMatchObject({ source: 'local+service', active: true, environment: 'test', key: `sk_test_****${sandbox.apiKey.slice(-4)}`, scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'], status: 'active' });
    expect(byName['ci-reader']).toMatchObject({ source: 'service', active: false, scopes: ['envelopes:read'], status: 'expiring', days_left: 5, key: `sk_test_****${remoteOnly.key.slice(-4)}` });
    expect(byName.laptop).toMatchObject({ source: 'local', status: 'expired', environment: 'live', key: 'sk_live_****6789' });
    for (const row of rows) expect(Object.keys(row)).toEqual(expect.arrayContaining(['name', 'environment', 'key', 'last_used', 'expires', 'scopes', 'status']));

    const table = await runCli(['keys', 'list'], { env });
    // A pipe: one table, no borders, UPPER CASE heads; the key in use marked with *.
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+ENV\s+KEY\s+LAST USED\s+EXPIRES\s+SCOPES\s+SOURCE$/);
    expect(table.stdout).toMatch(/^sbx \*\s+test\s+sk_test_\*{4}\w{4}\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s/m);
    expect(table.stdout).not.toMatch(/[│┌└]/);
    expect(table.stdout).toMatch(/expired 3 days ago/);
    expect(table.stdout).toMatch(/5 days left/);
    expect(table.stdout).toContain('local+service');

    const local = await runCli(['keys', 'list', '--local', '--json'], { env: { ...env, SIGN_BASE_URL: 'http://127.0.0.1:9' } });
    expect(local.code).toBe(0);
    expect((JSON.parse(local.stdout) as { source: string }[]).map((r) => r.source)).toEqual(['local', 'local']);
    expectNoKey([list, table, local], sandbox.apiKey);
    expectNoKey([list, table, local], remoteOnly.key);
    expectNoKey([list, table, local], 'sk_live_LocalOnlyKey0123456789');
  });

  it('exits 3 when the service refuses the key, after showing the stored profiles and saying what is wrong', async () => {
    const { env } = withConfig();
    await runCli(['keys', 'add', 'old', '--stdin', '--offline', '--expires', isoDay(-1)], { env, input: 'sk_test_ExpiredProfileKey000001' });
    const refused = { ...env, SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: 'sk_test_NotAKeyTheSandboxKnows00' };
    const result = await runCli(['keys', 'list'], { env: refused });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('HTTP 401 invalid_api_key');
    expect(result.stderr).toContain('the keys above are the local profiles only');
    // The stored profile, and the refused key in use, are still shown.
    expect(result.stdout).toMatch(/^old\s+.*sk_test_\*{4}0001\s+never\s+\d{4}-\d{2}-\d{2} \(expired 1 day ago\)/m);
    expect(result.stdout).toMatch(/^\(SIGN_API_KEY\) \*\s+test\s+sk_test_\*{4}ws00\s/m);
    const json = await runCli(['keys', 'list', '--json'], { env: refused });
    expect(json.code).toBe(3);
    expect((JSON.parse(json.stdout) as { name: string }[]).map((r) => r.name)).toEqual(['old', '(SIGN_API_KEY)']);
    // The active profile's own key, expired and refused: the same.
    const expired = await runCli(['keys', 'list'], { env: { ...env, SIGN_BASE_URL: sandbox.baseUrl, SIGN_PROFILE: 'old' } });
    expect(expired.code).toBe(3);
    expect(expired.stdout).toMatch(/^old \*\s/m);
    expectNoKey([result, json, expired], 'sk_test_ExpiredProfileKey000001');
  });

  it('still lists local profiles, with a warning, when the service cannot be reached', async () => {
    const { env } = withConfig();
    await runCli(['keys', 'add', 'away', '--stdin', '--offline', '--base-url', 'http://127.0.0.1:9'], { env, input: 'sk_test_unreachable0000000' });
    const result = await runCli(['keys', 'list', '--json', '--retries', '0'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("could not read the service's key listing");
    expect(JSON.parse(result.stdout)).toHaveLength(1);
  });
});

describe('keys check', () => {
  it('exits 0 when all is well and 1 with one line per problem', async () => {
    const { env } = withConfig();
    await runCli(['keys', 'add', 'fine', '--stdin', '--offline', '--expires', isoDay(200), '--scope', 'envelopes:write'], { env, input: 'sk_test_fine000000000000000' });
    const ok = await runCli(['keys', 'check', '--local'], { env });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('');

    await runCli(['keys', 'add', 'soon', '--stdin', '--offline', '--expires', isoDay(20)], { env, input: 'sk_test_soon000000000000000' });
    expect((await runCli(['keys', 'check', '--local'], { env })).code).toBe(0);
    const within30 = await runCli(['keys', 'check', '--local', '--expiring-within', '30'], { env });
    expect(within30.code).toBe(1);
    expect(within30.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^✗ expiring: soon \(sk_test_\*\*\*\*0000\) expires on .* in 20 day/)]);

    await runCli(['keys', 'add', 'old', '--stdin', '--offline', '--expires', isoDay(-1)], { env, input: 'sk_test_old0000000000000000' });
    await runCli(['keys', 'add', 'narrow', '--stdin', '--offline', '--scope', 'envelopes:read', '--require', 'envelopes:write'], { env, input: 'sk_test_narrow0000000000000' });
    const bad = await runCli(['keys', 'check', '--local', '--json'], { env });
    expect(bad.code).toBe(1);
    const { problems } = JSON.parse(bad.stdout) as { problems: { name: string; problem: string }[] };
    expect(problems.map((p) => `${p.name}:${p.problem}`).sort()).toEqual(['narrow:missing_scope', 'old:expired']);
  });

  it('checks the keys the service lists too, and required scopes from config', async () => {
    const { env } = withConfig();
    await sandbox.control('/_sandbox/keys', { name: 'expiring-ci', expires: isoDay(2) });
    const remote = await runCli(['keys', 'check'], { env: { ...env, SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey } });
    expect(remote.code).toBe(1);
    expect(remote.stdout).toContain('expiring: expiring-ci');
    expect((await runCli(['config', 'set', 'required_scopes', 'audit:read'], { env })).code).toBe(0);
    await runCli(['keys', 'add', 'writer', '--stdin', '--offline', '--scope', 'envelopes:write', '--expires', isoDay(300)], { env, input: 'sk_test_writer000000000000' });
    const scoped = await runCli(['keys', 'check', '--local'], { env });
    expect(scoped.code).toBe(1);
    expect(scoped.stdout).toContain('lacks the required scope audit:read');
  });
});

describe('warnings before a request, and auth errors', () => {
  it('warns about an expired key it knows of, and exits 3 with a hint naming the profile', async () => {
    const { env } = withConfig();
    const expired = await sandbox.control<{ key: string }>('/_sandbox/keys', { name: 'expired', expires: '2021-01-31' });
    await runCli(['keys', 'add', 'stale', '--stdin', '--offline', '--base-url', sandbox.baseUrl, '--expires', '2021-01-31', '--scope', 'envelopes:read'], { env, input: expired.key });
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/warning: the API key sk_test_\*{4}\w{4} \(profile stale\) expired on 2021-01-31/);
    expect(result.stderr).toMatch(/warning: .* envelopes:write/);
    expect(result.stderr).toMatch(/error: create envelope: HTTP 401 expired_api_key.*\(profile stale\)/);
    expectNoKey([result], expired.key);
  });
});

describe('config', () => {
  it('sets, gets and unsets checked settings, and lists with keys masked', async () => {
    const { env, file } = withConfig();
    await runCli(['keys', 'add', 'p', '--stdin', '--offline'], { env, input: sandbox.apiKey });
    expect((await runCli(['config', 'set', 'rate', '120'], { env })).code).toBe(0);
    expect((await runCli(['config', 'get', 'rate'], { env })).stdout.trim()).toBe('120');
    expect((await runCli(['config', 'set', 'rate', 'fast'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'webhook_scheme', 'rot13'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'base_url', 'not-a-url'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'paths.getAuditTrail', '/api/v1/envelopes/{id}/audit'], { env })).code).toBe(0);
    expect((await runCli(['config', 'set', 'paths.nope', '/x'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'default_profile', 'ghost'], { env })).code).toBe(2);
    expect((await runCli(['config', 'set', 'colour', 'blue'], { env })).code).toBe(2);
    const list = await runCli(['config', 'list'], { env });
    expect(list.stdout).toMatch(/rate\s+120/);
    expect(list.stdout).toContain('paths.getAuditTrail');
    const json = await runCli(['config', 'list', '--json'], { env });
    expect(JSON.parse(json.stdout).profiles.p.api_key).toBe(`sk_test_****${sandbox.apiKey.slice(-4)}`);
    expect((await runCli(['config', 'path'], { env })).stdout.trim()).toBe(file);
    expect((await runCli(['config', 'unset', 'rate'], { env })).code).toBe(0);
    // Unset: back to its default, which `config get` prints.
    const unset = await runCli(['config', 'get', 'rate'], { env });
    expect([unset.code, unset.stdout]).toEqual([0, '600\n']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expectNoKey([list, json], sandbox.apiKey);
  });
});

describe('doctor', () => {
  it('passes against the sandbox, one line per check, the key masked', async () => {
    const { env } = withConfig();
    await runCli(['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl], { env, input: sandbox.apiKey });
    const result = await runCli(['doctor'], { env });
    expect(result.code).toBe(0);
    for (const check of ['node', 'config', 'base url', 'service', 'clock', 'api key', 'accepted', 'expiry', 'scopes']) {
      expect(result.stdout).toMatch(new RegExp(`^✓ ${check}\\b`, 'm'));
    }
    const verbose = await runCli(['doctor', '--json', '--verbose'], { env });
    expect(JSON.parse(verbose.stdout).every((c: { status: string }) => c.status === 'ok')).toBe(true);
    expectNoKey([result, verbose], sandbox.apiKey);
  });

  it('fails on a world-readable config, an unreachable service and a refused key; warns on /api', async () => {
    const { env, file } = withConfig();
    await runCli(['keys', 'add', 'bad', '--stdin', '--offline', '--base-url', sandbox.baseUrl], { env, input: 'sk_test_refused00000000000000' });
    chmodSync(file, 0o644);
    const result = await runCli(['doctor', '--json'], { env });
    expect(result.code).toBe(1);
    const checks = Object.fromEntries((JSON.parse(result.stdout) as { check: string; status: string; detail: string }[]).map((c) => [c.check, c]));
    expect(checks.config).toMatchObject({ status: 'fail', detail: expect.stringContaining('chmod 600') });
    expect(checks.accepted).toMatchObject({ status: 'fail', detail: expect.stringContaining('refuses the key') });
    const api = await runCli(['doctor', '--json'], { env: { ...env, SIGN_BASE_URL: `${sandbox.baseUrl}/api` } });
    const apiChecks = Object.fromEntries((JSON.parse(api.stdout) as { check: string; status: string; detail: string }[]).map((c) => [c.check, c]));
    expect(apiChecks['base url']).toMatchObject({ status: 'warn', detail: expect.stringContaining('/api/api/v1/envelopes') });
    const down = await runCli(['doctor'], { env: { ...env, SIGN_BASE_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^✗ reachable\s+cannot reach http:\/\/127\.0\.0\.1:9/m);
  });
});
