/** Global options and what every command shares, in process: where the key and base URL come from, bad values, one JSON style, a refused connection. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/paths.js';
import { EXAMPLE } from '../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';

let sandbox: TestSandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  env = sandbox.env;
});
afterAll(async () => {
  await sandbox?.stop();
});
/** Requests the sandbox has answered (each look counts itself). */
const work = tempDir('sign-cli-global-');
const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

describe('global options', () => {
  it('refuses --api-key as a flag without echoing it', async () => {
    const result = await runCommand([
      '--api-key',
      'sk_live_SuperSecretValue12345678',
      'envelopes',
      'get',
      'env_1',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SIGN_API_KEY');
    expect(result.stderr).not.toContain('SuperSecretValue');
  });
  it('reads the key from --api-key-file, with SIGN_API_KEY taking precedence', async () => {
    const keyFile = join(work, 'key.txt');
    writeFileSync(keyFile, `${sandbox.apiKey}\n`, { mode: 0o600 });
    const fromFile = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--api-key-file', keyFile], {
      env: { SIGN_BASE_URL: sandbox.baseUrl },
    });
    expect(fromFile.code).toBe(0);
    const envWins = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--api-key-file', keyFile], {
      env: { ...env, SIGN_API_KEY: 'sk_test_wrongwrongwrongwrong' },
    });
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
    const viaProfile = await runCommand(['envelopes', 'create', '-f', EXAMPLE], {
      env: { SIGN_CONFIG_DIR: configDir },
    });
    expect(viaProfile.code).toBe(0);
    const other = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--profile', 'broken'], {
      env: { SIGN_CONFIG_DIR: configDir },
    });
    expect(other.code).toBe(3);
    const missing = await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--profile', 'nope'], {
      env: { SIGN_CONFIG_DIR: configDir },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('profile "nope" does not exist');
  });
  it('takes endpoint paths from the config file, and rejects unknown operations there', async () => {
    const configDir = tempDir('sign-cli-paths-');
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ paths: { getEnvelope: '/api/v1/contracts/{id}' } }),
    );
    const moved = await runCommand(['envelopes', 'get', 'env_1', '--verbose'], {
      env: { ...env, SIGN_CONFIG_DIR: configDir },
    });
    expect(moved.stderr).toContain(`> GET ${sandbox.baseUrl}/api/v1/contracts/env_1`);
    expect(moved.code).toBe(1);
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ paths: { getEnvelop: '/x/{id}' } }));
    const typo = await runCommand(['envelopes', 'get', 'env_1'], {
      env: { ...env, SIGN_CONFIG_DIR: configDir },
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('paths.getEnvelop: unknown operation');
  });
  it('maps unknown options and bad values to exit 2', async () => {
    expect((await runCommand(['envelopes', 'create', '--bogus'])).code).toBe(2);
    expect((await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--rate', 'fast'], { env })).code).toBe(
      2,
    );
    expect(
      (await runCommand(['--base-url', 'not a url', 'envelopes', 'get', 'x'], { env: { SIGN_API_KEY: 'k' } }))
        .code,
    ).toBe(2);
    expect((await runCommand(['--help'])).code).toBe(0);
  });
});

describe('bad values name where they came from', () => {
  it('a bad SIGN_RETRIES or SIGN_TIMEOUT names the variable, not a flag', async () => {
    const retries = await runCommand(['envelopes', 'get', 'env_1'], { env: { ...env, SIGN_RETRIES: 'abc' } });
    expect(retries.code).toBe(2);
    expect(retries.stderr).toContain(
      'the environment variable SIGN_RETRIES must be a whole number from 0 to 100, got "abc"',
    );
    const timeout = await runCommand(['envelopes', 'get', 'env_1'], { env: { ...env, SIGN_TIMEOUT: '-1' } });
    expect(timeout.stderr).toContain('the environment variable SIGN_TIMEOUT must be a number greater than 0');
    const flag = await runCommand(['envelopes', 'get', 'env_1', '--retries', 'x'], { env });
    expect(flag.stderr).toContain('--retries must be a whole number');
  });
  it('an https:// base URL for a plain-HTTP server is one line that says so', async () => {
    const result = await runCommand(['envelopes', 'get', 'env_1', '--retries', '0'], {
      env: { ...env, SIGN_BASE_URL: sandbox.baseUrl.replace('http:', 'https:') },
    });
    expect(result.code).toBe(1);
    const errors = result.stderr.split('\n').filter(Boolean);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /does not answer TLS; it looks like a plain-HTTP server \(use http:\/\/ in the base URL\)/,
    );
    expect(result.stderr).not.toMatch(/SSL routines|deps\/openssl/);
  });
});

describe('one JSON style', () => {
  it('writes one compact JSON document per command to a pipe, and audit --json keeps hash_algorithm', async () => {
    const created = JSON.parse(
      (await runCommand(['envelopes', 'create', '-f', EXAMPLE, '--json', '--new'], { env })).stdout,
    );
    const audit = await runCommand(['envelopes', 'audit', created.envelope.id, '--json'], { env });
    expect(audit.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(audit.stdout)).toMatchObject({
      envelope_id: created.envelope.id,
      hash_algorithm: 'sha256',
      head_hash: expect.any(String),
    });
    for (const args of [
      ['envelopes', 'get', created.envelope.id, '--json'],
      ['keys', 'list', '--json'],
      ['doctor', '--json'],
    ]) {
      const result = await runCommand(args, { env });
      expect([args.join(' '), result.stdout.trim().split('\n').length]).toEqual([args.join(' '), 1]);
    }
  });
});

describe('a refused connection', () => {
  it('is said within about a second of waits (4 attempts), by every command alike', async () => {
    const nowhere = { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_API_KEY: sandbox.apiKey };
    const get = await runCommand(['envelopes', 'get', 'env_1', '--verbose'], { env: nowhere });
    expect(get.code).toBe(1);
    expect(get.stderr).toMatch(
      /could not connect to http:\/\/127\.0\.0\.1:9 \(.*refused.*\); nothing was sent \(4 attempts\)/i,
    );
    expect(get.stderr.match(/retrying in (\d\.\d) s/g)).toEqual([
      'retrying in 0.1 s',
      'retrying in 0.2 s',
      'retrying in 0.4 s',
    ]);
    const keys = await runCommand(['keys', 'list', '--verbose'], { env: nowhere });
    expect(keys.stderr.match(/retrying in \d\.\d s/g)).toHaveLength(3);
    expect(keys.stderr).toContain('showing local profiles only');
  });
});

describe('--query', () => {
  it('prints the id alone, unquoted (like jq -r); --no-raw quotes it', async () => {
    const raw = await runCommand(
      ['envelopes', 'create', '-f', 'examples/envelope.json', '--json', '--query', 'envelope.id'],
      { env },
    );
    expect(raw.code).toBe(0);
    expect(raw.stdout).toMatch(/^env_\w+\n$/);
    const quoted = await runCommand(['envelopes', 'get', raw.stdout.trim(), '--query', 'id', '--no-raw'], {
      env,
    });
    expect(quoted.code).toBe(0);
    expect(quoted.stdout).toBe(`${JSON.stringify(raw.stdout.trim())}\n`);
  });
  it('applies per line to line-per-object output, and implies --json', async () => {
    const result = await runCommand(
      [
        'envelopes',
        'create',
        '--ndjson',
        '-f',
        'examples/envelopes.ndjson',
        '--query',
        '[status, envelope.contract_id]',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const contracts = readFileSync(join(ROOT, 'examples/envelopes.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { contract_id: string }).contract_id);
    expect(lines).toEqual(contracts.map((c) => ['created', c]));
  });
  it('a bad expression is exit 2 before anything is sent', async () => {
    const before = await requests();
    const result = await runCommand(
      ['envelopes', 'create', '-f', 'examples/envelope.json', '--new', '--query', 'envelope.[id'],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^error: --query "envelope\.\[id" is not a valid JMESPath expression: .*\(hint: JMESPath/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // The control call itself is the only request the sandbox saw meanwhile.
    expect(await requests()).toBe(before + 1);
  });
});
