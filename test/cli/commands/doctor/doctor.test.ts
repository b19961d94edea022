/** `doctor`, in process against an in-process sandbox: one line per check, failures explained. */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { withConfig, expectNoKey } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('doctor', () => {
  it('passes against the sandbox, one line per check, the key masked', async () => {
    const { env } = withConfig();
    await runCommand(['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl], {
      env,
      input: sandbox.apiKey,
    });
    const result = await runCommand(['doctor'], { env });
    expect(result.code).toBe(0);
    for (const check of [
      'node',
      'config',
      'base url',
      'service',
      'clock',
      'api key',
      'accepted',
      'expiry',
      'scopes',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^✓ ${check}\\b`, 'm'));
    }
    const verbose = await runCommand(['doctor', '--json', '--verbose'], { env });
    expect(JSON.parse(verbose.stdout).every((c: { status: string }) => c.status === 'ok')).toBe(true);
    expectNoKey([result, verbose], sandbox.apiKey);
  });
  it('masks a password given as a query parameter of a store URL wherever the URL is shown', async () => {
    const secret = 'pw-in-the-query-9';
    const store = `redis://127.0.0.1:1/?password=${secret}`;
    const shown = 'redis://127.0.0.1:1/?password=****';
    const env = { ...sandbox.env, SIGN_RATE_STORE: store, SIGN_JOURNAL_STORE: store };
    const doctor = await runCommand(['doctor', '--verbose'], { env });
    expect(doctor.stdout).toMatch(new RegExp(`^✗ rate store\\s+cannot reach ${escapeRegExp(shown)}`, 'm'));
    expect(doctor.stdout).toMatch(new RegExp(`^✗ journal store\\s+cannot reach ${escapeRegExp(shown)}`, 'm'));
    const list = await runCommand(['journal', 'list'], { env });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`journal store ${shown} is unreachable`);
    const keys = await runCommand(['keys', 'list', '--verbose'], { env });
    expect(keys.stderr).toContain(shown);
    const config = await runCommand(['config', 'list', '--json'], { env });
    for (const run of [doctor, list, keys, config]) expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it('fails on a world-readable config, an unreachable service and a refused key; warns on /api', async () => {
    const { env, file } = withConfig();
    await runCommand(['keys', 'add', 'bad', '--stdin', '--offline', '--base-url', sandbox.baseUrl], {
      env,
      input: 'sk_test_refused00000000000000',
    });
    chmodSync(file, 0o644);
    const result = await runCommand(['doctor', '--json'], { env });
    expect(result.code).toBe(1);
    const checks = Object.fromEntries(
      (JSON.parse(result.stdout) as { check: string; status: string; detail: string }[]).map((c) => [
        c.check,
        c,
      ]),
    );
    expect(checks.config).toMatchObject({ status: 'fail', detail: expect.stringContaining('chmod 600') });
    expect(checks.accepted).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('refuses the key'),
    });
    const api = await runCommand(['doctor', '--json'], {
      env: { ...env, SIGN_BASE_URL: `${sandbox.baseUrl}/api` },
    });
    const apiChecks = Object.fromEntries(
      (JSON.parse(api.stdout) as { check: string; status: string; detail: string }[]).map((c) => [
        c.check,
        c,
      ]),
    );
    expect(apiChecks['base url']).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('/api/api/v1/envelopes'),
    });
    const down = await runCommand(['doctor'], { env: { ...env, SIGN_BASE_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^✗ reachable\s+cannot reach http:\/\/127\.0\.0\.1:9/m);
  });
});

describe('doctor reports, never refuses', () => {
  it('a broken config file is a failed check (exit 1, not 2), naming the file but not its text', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'config.json'),
      '{"profiles": {"p": {"api_key": "sk_test_SecretInABrokenFile000"',
    );
    const result = await runCommand(['doctor'], { env: { SIGN_CONFIG_DIR: dir } });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ config\s+the config file .*config\.json is not valid JSON/m);
    expect(result.stdout + result.stderr).not.toContain('SecretInABrokenFile');
  });
  it('an unknown profile is a failed check too', async () => {
    const result = await runCommand(['doctor', '--json'], { env: { ...sandbox.env, SIGN_PROFILE: 'nope' } });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).find((c: { check: string }) => c.check === 'profile')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('profile "nope" does not exist'),
    });
  });
  it('gives no expiry verdict for a key the service refuses, and speaks of what a key can do, not of operation names', async () => {
    const refused = await runCommand(['doctor', '--json'], {
      env: { ...sandbox.env, SIGN_API_KEY: 'sk_test_RefusedByTheSandbox0000' },
    });
    const checks = JSON.parse(refused.stdout) as { check: string; status: string; detail: string }[];
    expect(checks.find((c) => c.check === 'accepted')?.status).toBe('fail');
    expect(checks.find((c) => c.check === 'expiry')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('not checked: the service refused the key'),
    });
    const narrow = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'narrow',
      scopes: ['envelopes:read'],
    });
    const scoped = await runCommand(['doctor'], { env: { ...sandbox.env, SIGN_API_KEY: narrow.key } });
    expect(scoped.stdout).toMatch(
      /scopes\s+envelopes:read; cannot create envelopes \(envelopes:write\), download signed copies \(contracts:read\), read audit trails \(audit:read\)/,
    );
    expect(scoped.stdout).not.toMatch(/createEnvelope|downloadSignedCopy|getAuditTrail/);
  });
});

describe('doctor judges the service by its answer', () => {
  let other: Server;
  let otherUrl: string;
  beforeAll(async () => {
    // A web server that is not the signing service: a 404 page for everything.
    other = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html>not found</html>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));
  const env = () => sandbox.env;

  it('marks the service by what it answered, not by any HTTP status', async () => {
    const result = await runCommand(['doctor'], {
      env: { SIGN_BASE_URL: otherUrl, SIGN_API_KEY: sandbox.apiKey },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(/^✓ (reachable|service)/m);
    expect(result.stdout).toMatch(
      /^✗ service\s+http:\/\/127\.0\.0\.1:\d+ answers, but not like the signing service: .* HTTP 404 \(text\/html\)/m,
    );
    const good = await runCommand(['doctor'], { env: env() });
    expect(good.stdout).toMatch(
      /^✓ service\s+http:\/\/127\.0\.0\.1:\d+ answers like the signing service in \d+ ms/m,
    );
  });
});

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
