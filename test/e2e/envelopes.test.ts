/**
 * End to end: the built binary, spawned as a user would run it, against a
 * spawned sandbox over real HTTP on loopback.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, derivedIdempotencyKey } from '../../src/core/idempotency.js';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
const example = () => JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;

let sandbox: SandboxProcess;
let env: Record<string, string>;
const work = tempDir('sign-cli-e2e-');

function writeJson(name: string, value: unknown): string {
  const path = join(work, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return path;
}

let uniques = 0;
/** The example envelope with a title and contract id of its own: the sandbox has not seen it, so a create really creates. */
function unique(): string {
  uniques++;
  const base = example();
  return writeJson(`unique-${uniques}.json`, { ...base, title: `${String(base.title)} #${uniques}`, contract_id: `${String(base.contract_id)}-${uniques}` });
}

/**
 * Starts `envelopes create -f <file> --verbose` and resolves once its request
 * is on the wire (interrupting after a fixed delay is flaky on a loaded machine).
 */
async function createUntilSent(extraEnv: Record<string, string>, file: string) {
  const child = spawn(process.execPath, [BIN, 'envelopes', 'create', '-f', file, '--verbose'], { env: cleanEnv(extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve) => {
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      if (stderr.includes('> POST')) resolve();
    });
  });
  await new Promise((r) => setTimeout(r, 100));
  return { child, exit, stdout: () => stdout };
}

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes create', () => {
  it('creates an envelope from a file, and `envelopes get` shows it', async () => {
    const before = await sandbox.envelopeCount();
    const file = unique();
    const result = await runCli(['envelopes', 'create', '-f', file], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const id = /created (env_\w+)/.exec(result.stdout)?.[1];
    expect(id).toBeDefined();
    expect(await sandbox.envelopeCount()).toBe(before + 1);

    const shown = await runCli(['envelopes', 'get', id!, '--json'], { env });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id, title: JSON.parse(readFileSync(file, 'utf8')).title, status: 'sent' });

    const table = await runCli(['envelopes', 'get', id!], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('Omar Khalil');
    expect(table.stdout).toContain(id!);
  });

  it('creates from stdin with --json output that parses', async () => {
    const input = readFileSync(unique(), 'utf8');
    const result = await runCli(['envelopes', 'create', '-f', '-', '--json'], { env, input });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    expect(report).toMatchObject({ input: '-', status: 'created', http_status: 201, error: null });
    // Derived from the body: SHA-256 of its canonical JSON, whatever its spacing or key order.
    expect(report.idempotency_key).toMatch(/^sc1-[0-9a-f]{48}$/);
    expect(report.idempotency_key).toBe(derivedIdempotencyKey(contentHash(JSON.parse(input))));
    expect(report.envelope.id).toMatch(/^env_/);
    expect(report.envelope.signers).toHaveLength(2);
  });

  it('exits 2 on an invalid envelope, lists every error with its path, and sends nothing', async () => {
    const bad = example();
    (bad.signers as Record<string, unknown>[])[1]!.phone = '0501234567';
    (bad.document as Record<string, unknown>).version = 0;
    delete bad.title;
    const path = writeJson('invalid.json', bad);
    const before = await sandbox.envelopeCount();
    const result = await runCli(['envelopes', 'create', '-f', path], { env });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('signers[1].phone');
    expect(result.stderr).toContain('document.version');
    expect(result.stderr).toContain('title: is required');
    expect(result.stderr).toContain('nothing was sent');
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('shows hostile input escaped, refuses duplicate keys and deep nesting (exit 2, one line each), and sends nothing', async () => {
    const before = await sandbox.envelopeCount();
    const escape = writeJson('esc.json', '{"title":\u001b]0;PWNED\u0007 }');
    const duplicate = writeJson('dup.json', '{\n  "title": 5,\n  "title": "Lease"\n}');
    const deep = writeJson('deep.json', `{"title":${'['.repeat(100_000)}`);
    // A valid envelope carrying a 5,000-level unknown field (written by hand: JSON.stringify would overflow).
    const deepUnknown = writeJson('deep-unknown.json', JSON.stringify(example()).replace(/}$/, `,"extra":${'['.repeat(5000)}${']'.repeat(5000)}}`));
    for (const [file, expected] of [
      [escape, /esc\.json.*invalid JSON at line 1, column 10: unexpected token '\\u001b'$/m],
      [duplicate, /dup\.json.*invalid JSON at line 3, column 3: duplicate key "title" \(first at line 2, column 3\)/],
      [deep, /deep\.json.*invalid JSON at line 1, column 73: nested deeper than 64 levels/],
      [deepUnknown, /deep-unknown\.json.*invalid JSON .*nested deeper than 64 levels/],
    ] as const) {
      for (const command of [['envelopes', 'validate', file], ['envelopes', 'create', '-f', file]]) {
        const result = await runCli(command, { env });
        expect([command, result.code]).toEqual([command, 2]);
        expect(result.stderr).toMatch(expected);
        expect(result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
        expect(result.stderr).not.toContain('Maximum call stack');
        expect(result.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
      }
    }
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('exits 2 on malformed JSON, naming line and column, and sends nothing', async () => {
    const path = writeJson('broken.json', '{\n  "title": "x",\n  "signers": [\n}\n');
    const before = await sandbox.envelopeCount();
    const result = await runCli(['envelopes', 'create', '-f', path], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.json: invalid JSON at line 4, column 1/);
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('validates every input before sending any: one bad file in a directory stops all', async () => {
    const dir = join(work, 'batch');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.json'), JSON.stringify(example()));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ ...example(), expires_in_days: -1 }));
    const before = await sandbox.envelopeCount();
    const result = await runCli(['envelopes', 'create', '-f', dir], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('b.json: expires_in_days');
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('exits 3 without an API key, or with a wrong one', async () => {
    const missing = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env: { SIGN_BASE_URL: sandbox.baseUrl } });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/no API key/);
    const wrongKey = 'sk_test_ThisKeyDoesNotExist0000000000';
    const wrong = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env: { ...env, SIGN_API_KEY: wrongKey } });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('HTTP 401');
    expect(wrong.stderr).not.toContain(wrongKey);
  });

  it('exits 3 for a key without the envelopes:write scope, and for an expired key', async () => {
    const readOnly = await sandbox.control<{ key: string }>('/_sandbox/keys', { name: 'reader', scopes: ['envelopes:read'] });
    const forbidden = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env: { ...env, SIGN_API_KEY: readOnly.key } });
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toContain('HTTP 403');
    expect(forbidden.stderr).toContain('envelopes:write');

    const expired = await sandbox.control<{ key: string }>('/_sandbox/keys', { name: 'old', expires: '2020-01-31' });
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env: { ...env, SIGN_API_KEY: expired.key } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('expired_api_key');
  });

  it('retries a create whose response was lost after commit, with the same key, leaving exactly one envelope', async () => {
    await sandbox.control('/_sandbox/faults', { drop_after_commit: 1 });
    const before = await sandbox.envelopeCount();
    const result = await runCli(['envelopes', 'create', '-f', unique(), '--verbose'], { env });
    expect(result.code).toBe(0);
    expect(await sandbox.envelopeCount()).toBe(before + 1);
    const keys = [...result.stderr.matchAll(/> idempotency-key: (\S+)/g)].map((m) => m[1]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
    expect(result.stderr).toContain('replayed by the service');
    expect(result.stdout).toMatch(/after 2 attempts, its answer replayed/);
  });

  it('retries through injected 503s and still creates exactly one', async () => {
    await sandbox.control('/_sandbox/faults', { fail_before_commit: 2, fail_status: 503 });
    const before = await sandbox.envelopeCount();
    const result = await runCli(['envelopes', 'create', '-f', unique(), '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status).toBe('created');
    expect(await sandbox.envelopeCount()).toBe(before + 1);
  });

  it('re-running with the same --idempotency-key does not create a second envelope', async () => {
    const before = await sandbox.envelopeCount();
    const args = ['envelopes', 'create', '-f', unique(), '--idempotency-key', `rerun-${Date.now()}`, '--json'];
    const first = JSON.parse((await runCli(args, { env })).stdout);
    const second = JSON.parse((await runCli(args, { env })).stdout);
    expect(second.envelope.id).toBe(first.envelope.id);
    expect(await sandbox.envelopeCount()).toBe(before + 1);
  });

  it('fails (exit 1, not retried) when a key is reused with another body', async () => {
    const key = `reuse-${Date.now()}`;
    expect((await runCli(['envelopes', 'create', '-f', unique(), '--idempotency-key', key], { env })).code).toBe(0);
    const other = writeJson('other.json', { ...example(), title: 'Another title' });
    const result = await runCli(['envelopes', 'create', '-f', other, '--idempotency-key', key, '--json', '--verbose'], { env });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'failed', http_status: 422, idempotency_key: key });
    expect(result.stderr).toContain('idempotency_key_reused');
    expect(result.stderr.match(/> POST /g)).toHaveLength(1);
  });

  it('Ctrl-C waits for the request in flight, exits 130, and the envelope is created once', async () => {
    await sandbox.control('/_sandbox/faults', { latency_ms: 1500 });
    const before = await sandbox.envelopeCount();
    try {
      const run = await createUntilSent(env, unique());
      run.child.kill('SIGINT');
      expect(await run.exit).toBe(130);
      expect(run.stdout()).toMatch(/created env_/);
      expect(await sandbox.envelopeCount()).toBe(before + 1);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });

  it('a second Ctrl-C quits at once; re-running the same command finishes without a duplicate', async () => {
    await sandbox.control('/_sandbox/faults', { latency_ms: 1500 });
    const before = await sandbox.envelopeCount();
    const state = { SIGN_STATE_DIR: tempDir('sign-cli-resume-') };
    try {
      const file = unique();
      const run = await createUntilSent({ ...env, ...state }, file);
      run.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 100));
      run.child.kill('SIGINT');
      expect(await run.exit).toBe(130);
      // The first request is still being processed by the service (1.5 s latency): the re-run reuses its key.
      const rerun = await runCli(['envelopes', 'create', '-f', file, '--verbose'], { env: { ...env, ...state } });
      expect(rerun.code).toBe(0);
      expect(rerun.stderr).toContain('resuming an earlier run');
      expect(await sandbox.envelopeCount()).toBe(before + 1);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });

  it('refuses to run the same command twice at once (exit 2), since both could send the same envelopes', async () => {
    await sandbox.control('/_sandbox/faults', { latency_ms: 1500 });
    const state = { SIGN_STATE_DIR: tempDir('sign-cli-twice-') };
    try {
      const file = unique();
      const first = await createUntilSent({ ...env, ...state }, file);
      const second = await runCli(['envelopes', 'create', '-f', file], { env: { ...env, ...state } });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`already running (pid ${first.child.pid})`);
      expect(await first.exit).toBe(0);
      // Once it is done, the command runs again, and reports the envelope as already created.
      const again = await runCli(['envelopes', 'create', '-f', file], { env: { ...env, ...state } });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/already created env_\w+ in test by an earlier run; not sent again/);
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
  });

  it('--dry-run validates and sends nothing, without needing a key', async () => {
    const before = await sandbox.envelopeCount();
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--dry-run', '--json'], { env: { SIGN_BASE_URL: sandbox.baseUrl } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'valid', envelope: example() });
    expect(await sandbox.envelopeCount()).toBe(before);
  });

  it('never prints the API key in full, even with --verbose', async () => {
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--verbose', '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('authorization: Bearer sk_test_****');
    expect(result.stdout + result.stderr).not.toContain(sandbox.apiKey);
  });

  it('points out a base URL ending in /api under --verbose', async () => {
    const result = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--verbose'], { env: { ...env, SIGN_BASE_URL: `${sandbox.baseUrl}/api` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('/api/api/v1/envelopes');
    expect(result.stderr).toMatch(/ends in \/api/);
  });

  it('exits 2 with no input and no terminal, naming the flag', async () => {
    const result = await runCli(['envelopes', 'create'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('-f');
  });
});

describe('envelopes validate', () => {
  it('exits 0 for valid files and 2 for invalid ones, with JSON paths', async () => {
    expect((await runCli(['envelopes', 'validate', EXAMPLE])).code).toBe(0);
    const bad = writeJson('v-bad.json', { ...example(), signers: [{ name: 'A', channel: 'whatsapp', order: 1 }] });
    const result = await runCli(['envelopes', 'validate', EXAMPLE, bad, '--json']);
    expect(result.code).toBe(2);
    const reports = result.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(reports[0]).toMatchObject({ valid: true, errors: [] });
    expect(reports[1]).toMatchObject({ valid: false, errors: [{ path: 'signers[0].phone' }] });
  });

  it('exits 2 when there is no envelope at all', async () => {
    const blank = writeJson('blank.ndjson', '\n\n');
    expect((await runCli(['envelopes', 'validate', '--ndjson', blank])).code).toBe(2);
    expect((await runCli(['envelopes', 'create', '--ndjson', '-f', blank], { env })).code).toBe(2);
  });

  it('warns about values the spec does not list but keeps exit 0', async () => {
    const path = writeJson('v-warn.json', { ...example(), locale: 'en' });
    const result = await runCli(['envelopes', 'validate', path]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: .*locale: "en" is not among the values seen/);
  });
});

describe('global options', () => {
  it('refuses --api-key as a flag without echoing it', async () => {
    const result = await runCli(['--api-key', 'sk_live_SuperSecretValue12345678', 'envelopes', 'get', 'env_1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SIGN_API_KEY');
    expect(result.stderr).not.toContain('SuperSecretValue');
  });

  it('reads the key from --api-key-file, with SIGN_API_KEY taking precedence', async () => {
    const keyFile = join(work, 'key.txt');
    writeFileSync(keyFile, `${sandbox.apiKey}\n`, { mode: 0o600 });
    const fromFile = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--api-key-file', keyFile], { env: { SIGN_BASE_URL: sandbox.baseUrl } });
    expect(fromFile.code).toBe(0);
    const envWins = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--api-key-file', keyFile], { env: { ...env, SIGN_API_KEY: 'sk_test_wrongwrongwrongwrong' } });
    expect(envWins.code).toBe(3);
  });

  it('uses the active profile from the config file, and --profile picks another', async () => {
    const configDir = tempDir('sign-cli-profile-');
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        active_profile: 'sandbox',
        profiles: {
          sandbox: { api_key: sandbox.apiKey, base_url: sandbox.baseUrl },
          broken: { api_key: 'sk_test_wrongwrongwrongwrong', base_url: sandbox.baseUrl },
        },
      }),
    );
    const viaProfile = await runCli(['envelopes', 'create', '-f', EXAMPLE], { env: { SIGN_CONFIG_DIR: configDir } });
    expect(viaProfile.code).toBe(0);
    const other = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--profile', 'broken'], { env: { SIGN_CONFIG_DIR: configDir } });
    expect(other.code).toBe(3);
    const missing = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--profile', 'nope'], { env: { SIGN_CONFIG_DIR: configDir } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('profile "nope" does not exist');
  });

  it('takes endpoint paths from the config file, and rejects unknown operations there', async () => {
    const configDir = tempDir('sign-cli-paths-');
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ paths: { getEnvelope: '/api/v1/contracts/{id}' } }));
    const moved = await runCli(['envelopes', 'get', 'env_1', '--verbose'], { env: { ...env, SIGN_CONFIG_DIR: configDir } });
    expect(moved.stderr).toContain(`> GET ${sandbox.baseUrl}/api/v1/contracts/env_1`);
    expect(moved.code).toBe(1);
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ paths: { getEnvelop: '/x/{id}' } }));
    const typo = await runCli(['envelopes', 'get', 'env_1'], { env: { ...env, SIGN_CONFIG_DIR: configDir } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('paths.getEnvelop: unknown operation');
  });

  it('maps unknown options and bad values to exit 2', async () => {
    expect((await runCli(['envelopes', 'create', '--bogus'])).code).toBe(2);
    expect((await runCli(['envelopes', 'create', '-f', EXAMPLE, '--rate', 'fast'], { env })).code).toBe(2);
    expect((await runCli(['--base-url', 'not a url', 'envelopes', 'get', 'x'], { env: { SIGN_API_KEY: 'k' } })).code).toBe(2);
    expect((await runCli(['--help'])).code).toBe(0);
  });
});
