/**
 * What got in a newcomer's way in their first hour, each as the built CLI
 * shows it: errors that name the real cause and fix, doctor that reports
 * instead of refusing, settings that show their defaults, one JSON style.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
let sandbox: SandboxProcess;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandboxProcess();
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('errors that name the cause and the fix', () => {
  it('an NDJSON file given without --ndjson suggests --ndjson', async () => {
    const file = join(tempDir(), 'batch.ndjson');
    const line = JSON.stringify(JSON.parse(readFileSync(EXAMPLE, 'utf8')));
    writeFileSync(file, `${line}\n${line}\n`);
    const result = await runCli(['envelopes', 'create', '-f', file, '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid JSON at line 2, column 1: .*; this looks like NDJSON \(one envelope per line\): add --ndjson/);
    expect(result.stderr).not.toMatch(/position \d+/);
  });

  it('a bad SIGN_RETRIES or SIGN_TIMEOUT names the variable, not a flag', async () => {
    const retries = await runCli(['envelopes', 'get', 'env_1'], { env: { ...env, SIGN_RETRIES: 'abc' } });
    expect(retries.code).toBe(2);
    expect(retries.stderr).toContain('the environment variable SIGN_RETRIES must be a whole number from 0 to 100, got "abc"');
    const timeout = await runCli(['envelopes', 'get', 'env_1'], { env: { ...env, SIGN_TIMEOUT: '-1' } });
    expect(timeout.stderr).toContain('the environment variable SIGN_TIMEOUT must be a number greater than 0');
    const flag = await runCli(['envelopes', 'get', 'env_1', '--retries', 'x'], { env });
    expect(flag.stderr).toContain('--retries must be a whole number');
  });

  it('an https:// base URL for a plain-HTTP server is one line that says so', async () => {
    const result = await runCli(['envelopes', 'get', 'env_1', '--retries', '0'], { env: { ...env, SIGN_BASE_URL: sandbox.baseUrl.replace('http:', 'https:') } });
    expect(result.code).toBe(1);
    const errors = result.stderr.split('\n').filter(Boolean);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/does not answer TLS; it looks like a plain-HTTP server \(use http:\/\/ in the base URL\)/);
    expect(result.stderr).not.toMatch(/SSL routines|deps\/openssl/);
  });

  it('a signed copy asked for too early suggests --wait', async () => {
    const created = JSON.parse((await runCli(['envelopes', 'create', '-f', EXAMPLE, '--json', '--new'], { env })).stdout);
    const result = await runCli(['envelopes', 'download', created.envelope.id, '-o', join(tempDir(), 'x.pdf')], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('envelope_not_completed');
    expect(result.stderr).toContain('add --wait to wait for it');
  });
});

describe('doctor reports, never refuses', () => {
  it('a broken config file is a failed check (exit 1, not 2), naming the file but not its text', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {"p": {"api_key": "sk_test_SecretInABrokenFile000"');
    const result = await runCli(['doctor'], { env: { SIGN_CONFIG_DIR: dir } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ config\s+the config file .*config\.json is not valid JSON/m);
    expect(result.stdout + result.stderr).not.toContain('SecretInABrokenFile');
  });

  it('an unknown profile is a failed check too', async () => {
    const result = await runCli(['doctor', '--json'], { env: { ...env, SIGN_PROFILE: 'nope' } });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).find((c: { check: string }) => c.check === 'profile')).toMatchObject({ status: 'fail', detail: expect.stringContaining('profile "nope" does not exist') });
  });

  it('gives no expiry verdict for a key the service refuses, and speaks of what a key can do, not of operation names', async () => {
    const refused = await runCli(['doctor', '--json'], { env: { ...env, SIGN_API_KEY: 'sk_test_RefusedByTheSandbox0000' } });
    const checks = JSON.parse(refused.stdout) as { check: string; status: string; detail: string }[];
    expect(checks.find((c) => c.check === 'accepted')?.status).toBe('fail');
    expect(checks.find((c) => c.check === 'expiry')).toMatchObject({ status: 'fail', detail: expect.stringContaining('not checked: the service refused the key') });
    const narrow = await sandbox.control<{ key: string }>('/_sandbox/keys', { name: 'narrow', scopes: ['envelopes:read'] });
    const scoped = await runCli(['doctor'], { env: { ...env, SIGN_API_KEY: narrow.key } });
    expect(scoped.stdout).toMatch(/scopes\s+envelopes:read; cannot create envelopes \(envelopes:write\), download signed copies \(contracts:read\), read audit trails \(audit:read\)/);
    expect(scoped.stdout).not.toMatch(/createEnvelope|downloadSignedCopy|getAuditTrail/);
  });
});

describe('settings and JSON', () => {
  it('config get of an unset setting prints its default; config path has --json', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const configEnv = { SIGN_CONFIG_DIR: dir };
    expect((await runCli(['config', 'get', 'rate'], { env: configEnv })).stdout).toBe('600\n');
    expect(JSON.parse((await runCli(['config', 'get', 'paths.getAuditTrail', '--json'], { env: configEnv })).stdout)).toEqual({ name: 'paths.getAuditTrail', value: '/api/v1/envelopes/{id}/audit-trail', source: 'default' });
    await runCli(['config', 'set', 'rate', '120'], { env: configEnv });
    expect(JSON.parse((await runCli(['config', 'get', 'rate', '--json'], { env: configEnv })).stdout)).toEqual({ name: 'rate', value: 120, source: 'config' });
    expect(JSON.parse((await runCli(['config', 'path', '--json'], { env: configEnv })).stdout)).toEqual({ path: join(dir, 'config.json') });
    expect((await runCli(['config', 'list'], { env: configEnv })).stdout).toMatch(/^timeout\s+30\s+default$/m);
  });

  it('config list shows where each value comes from: flag, env, profile, config, default', async () => {
    const dir = tempDir();
    const configEnv = { SIGN_CONFIG_DIR: dir };
    await runCli(['keys', 'add', 'prod', '--stdin', '--offline', '--base-url', 'https://esign.example.com'], { env: configEnv, input: 'sk_live_ProfileKeyForSources0042' });
    await runCli(['config', 'set', 'rate', '120'], { env: configEnv });
    const source = (text: string, name: string) => new RegExp(`^${name}\\s+(.*?)\\s{2,}(\\S.*)$`, 'm').exec(text)?.slice(1);
    const fromProfile = await runCli(['config', 'list'], { env: configEnv });
    expect(fromProfile.code).toBe(0);
    expect(source(fromProfile.stdout, 'base_url')).toEqual(['https://esign.example.com', 'profile prod']);
    expect(source(fromProfile.stdout, 'api_key')).toEqual(['sk_live_****0042', 'profile prod']);
    expect(source(fromProfile.stdout, 'profile')).toEqual(['prod', 'config']);
    expect(source(fromProfile.stdout, 'rate')).toEqual(['120', 'config']);
    expect(source(fromProfile.stdout, 'retries')).toEqual(['5', 'default']);
    const fromEnv = await runCli(['config', 'list', '--timeout', '9'], { env: { ...configEnv, SIGN_BASE_URL: 'http://127.0.0.1:4999', SIGN_RETRIES: '2' } });
    expect(source(fromEnv.stdout, 'base_url')).toEqual(['http://127.0.0.1:4999', 'env SIGN_BASE_URL']);
    expect(source(fromEnv.stdout, 'retries')).toEqual(['2', 'env SIGN_RETRIES']);
    expect(source(fromEnv.stdout, 'timeout')).toEqual(['9', 'flag --timeout']);
    const json = JSON.parse((await runCli(['config', 'list', '--json'], { env: { ...configEnv, SIGN_BASE_URL: 'http://127.0.0.1:4999' } })).stdout);
    expect(json.effective).toContainEqual({ name: 'base_url', value: 'http://127.0.0.1:4999', source: 'env SIGN_BASE_URL' });
    expect(json.profiles.prod.api_key).toBe('sk_live_****0042');
    expect(JSON.stringify([fromProfile, fromEnv, json])).not.toContain('ProfileKeyForSources');
  });

  it('writes one compact JSON document per command to a pipe, and audit --json keeps hash_algorithm', async () => {
    const created = JSON.parse((await runCli(['envelopes', 'create', '-f', EXAMPLE, '--json', '--new'], { env })).stdout);
    const audit = await runCli(['envelopes', 'audit', created.envelope.id, '--json'], { env });
    expect(audit.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(audit.stdout)).toMatchObject({ envelope_id: created.envelope.id, hash_algorithm: 'sha256', head_hash: expect.any(String) });
    for (const args of [['envelopes', 'get', created.envelope.id, '--json'], ['keys', 'list', '--json'], ['doctor', '--json']]) {
      const result = await runCli(args, { env });
      expect([args.join(' '), result.stdout.trim().split('\n').length]).toEqual([args.join(' '), 1]);
    }
  });
});
