/** `keys add`, in process against an in-process sandbox: the key checked with the service, stored 0600, never from a flag. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { withConfig, expectNoKey } from '../../../helpers/profiles.js';
import { CTRL_C, fakePrompter } from '../../../helpers/prompter.js';
import { unwrapped } from '../../../helpers/terminal-fit.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('keys add', () => {
  it('an expired key is refused saying it has expired, and is not stored', async () => {
    const { env, file } = withConfig();
    const expired = await sandbox.mintKey({ environment: 'test', expires: '2020-01-31' });
    const add = await runCommand(['keys', 'add', 'old', '--stdin', '--base-url', sandbox.baseUrl], {
      env,
      input: `${expired}\n`,
    });
    expect(add.code).toBe(3);
    expect(add.stderr).toContain(
      `error: the service at ${sandbox.baseUrl} refused this key: it has expired (HTTP 401 expired_api_key: the API key expired on 2020-01-31); it was not stored`,
    );
    expect(add.stderr).toContain('add a key that has not expired');
    expect(existsSync(file)).toBe(false);
    expectNoKey([add], expired);
  });

  it('stores a key from stdin in a 0600 config file, first profile active', async () => {
    const { env, file } = withConfig();
    const add = await runCommand(
      ['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl, '--scope', 'envelopes:write'],
      { env, input: `${sandbox.apiKey}\n` },
    );
    expect(add.code).toBe(0);
    expect(add.stderr).toContain('now active');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Checked with the service: its listing wins over the flags, and the disagreement is shown.
    expect(add.stderr).toContain(
      "--scope says envelopes:write, but the service lists envelopes:write envelopes:read contracts:read audit:read for this key; storing the service's",
    );
    expect(add.stderr).toContain('checked with the service: test, expires 20');
    // No D-Bus session in this environment, so no keychain: the file, said in one warning line.
    expect(add.stderr.split('\n').filter((l) => l.includes('keychain'))).toEqual([
      `warning: no OS keychain answered (no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service); the key is kept in ${file} (mode 0600) instead: --insecure-storage chooses that without this warning`,
    ]);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({
      active_profile: 'sbx',
      profiles: {
        sbx: {
          api_key: sandbox.apiKey,
          environment: 'test',
          expires: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
          scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'],
        },
      },
    });
    // So `keys list --local` knows everything without asking again.
    const local = JSON.parse((await runCommand(['keys', 'list', '--local', '--json'], { env })).stdout);
    expect(local[0]).toMatchObject({
      name: 'sbx',
      status: 'active',
      scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'],
      storage: 'file',
    });
    // Chosen on purpose: the file without a warning, and doctor does not suggest moving it.
    const chosen = await runCommand(['keys', 'add', 'plain', '--stdin', '--offline', '--insecure-storage'], {
      env,
      input: `${sandbox.apiKey}\n`,
    });
    expect(chosen.code).toBe(0);
    expect(chosen.stderr).not.toContain('warning');
    expect(chosen.stderr).toContain(`as profile plain in ${file}`);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.plain).toMatchObject({
      api_key: sandbox.apiKey,
      insecure_storage: true,
    });
    const doctor = await runCommand(['doctor', '--profile', 'plain'], {
      env: { ...env, SIGN_BASE_URL: sandbox.baseUrl },
    });
    expect(doctor.stdout).toContain('from profile plain (in the config file, by --insecure-storage)');
    expectNoKey([chosen, doctor], sandbox.apiKey);
    // The stored profile works, and its use is recorded.
    const created = await runCommand(['envelopes', 'create', '-f', EXAMPLE], { env });
    expect(created.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.sbx.last_used).toMatch(/^\d{4}-\d\d-\d\dT/);
    expectNoKey([add, created], sandbox.apiKey);
  });
  it('refuses to store a key the service refuses (exit 3), unless --offline; empty stdin says no key was given', async () => {
    const { env, file } = withConfig();
    const refused = await runCommand(['keys', 'add', 'bad', '--stdin', '--base-url', sandbox.baseUrl], {
      env,
      input: 'sk_test_NotKnownToTheSandbox000\n',
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'refused this key (HTTP 401 invalid_api_key: the API key is not known to this service); it was not stored',
    );
    expect(
      existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).profiles?.bad : undefined,
    ).toBeUndefined();
    const offline = await runCommand(
      ['keys', 'add', 'bad', '--stdin', '--offline', '--base-url', sandbox.baseUrl],
      { env, input: 'sk_test_NotKnownToTheSandbox000\n' },
    );
    expect(offline.code).toBe(0);
    const empty = await runCommand(['keys', 'add', 'none', '--stdin', '--offline'], { env, input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no key was given: stdin was empty');
  });
  it('never takes a key from a flag or without stdin off a terminal; checks names and scopes', async () => {
    const { env } = withConfig();
    const noInput = await runCommand(['keys', 'add', 'x'], { env });
    expect(noInput.code).toBe(2);
    expect(noInput.stderr).toContain('--stdin');
    expect(
      (
        await runCommand(['keys', 'add', 'x', '--stdin', '--offline', '--scope', 'envelopes:delete'], {
          env,
          input: 'sk_test_abcdefghijklmnop',
        })
      ).code,
    ).toBe(2);
    expect(
      (
        await runCommand(['keys', 'add', 'bad.name', '--stdin', '--offline'], {
          env,
          input: 'sk_test_abcdefghijklmnop',
        })
      ).code,
    ).toBe(2);
    expect(
      (await runCommand(['keys', 'add', 'x', '--stdin', '--offline'], { env, input: 'two words' })).code,
    ).toBe(2);
    expect((await runCommand(['keys', 'add', 'x', '--stdin', '--offline'], { env, input: '\n' })).code).toBe(
      2,
    );
    const short = await runCommand(['keys', 'add', 'tiny', '--stdin', '--offline'], { env, input: 'abc123' });
    expect(short.code).toBe(0);
    expect(short.stderr).toContain('only 6 characters');
    const listed = await runCommand(['keys', 'list', '--local', '--json'], { env });
    expect(JSON.parse(listed.stdout)[0]).toMatchObject({ name: 'tiny', key: '****' });
    expect(listed.stdout + short.stdout + short.stderr).not.toContain('abc123');
    expect((await runCommand(['keys', 'remove', 'tiny'], { env })).code).toBe(0);
    expect(
      (
        await runCommand(['keys', 'add', 'x', '--stdin', '--offline'], {
          env,
          input: 'sk_test_abcdefghijklmnop',
        })
      ).code,
    ).toBe(0);
    const again = await runCommand(['keys', 'add', 'x', '--stdin', '--offline'], {
      env,
      input: 'sk_test_qrstuvwxyzabcdef',
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
    expect(
      (
        await runCommand(['keys', 'add', 'x', '--stdin', '--offline', '--force'], {
          env,
          input: 'sk_test_qrstuvwxyzabcdef',
        })
      ).code,
    ).toBe(0);
  });
});

describe('keys add, the hidden prompt through the injected prompter', () => {
  it('asks for the key masked, checks it with the service and stores it', async () => {
    const { env, file } = withConfig();
    const prompter = fakePrompter([sandbox.apiKey]);
    const add = await runCommand(['keys', 'add', 'typed', '--base-url', sandbox.baseUrl], {
      env,
      tty: true,
      prompter,
    });
    expect(add.code).toBe(0);
    expect(prompter.asked).toEqual([{ kind: 'password', message: 'API key for profile typed:', mask: '*' }]);
    expect(unwrapped(add.stderr)).toContain('checked with the service: test');
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.typed.api_key).toBe(sandbox.apiKey);
    expectNoKey([add], sandbox.apiKey);
  });

  it('Ctrl-C at the prompt is exit 130 and stores nothing; off a terminal it is not asked', async () => {
    const { env, file } = withConfig();
    const interrupted = await runCommand(['keys', 'add', 'typed', '--offline'], {
      env,
      tty: true,
      prompter: fakePrompter([CTRL_C]),
    });
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain('interrupted; nothing was saved or sent');
    expect(existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).profiles?.typed).toBeFalsy();
    const prompter = fakePrompter();
    const piped = await runCommand(['keys', 'add', 'typed', '--offline'], { env, prompter });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('no key given: pipe it in with --stdin');
    expect(prompter.asked).toEqual([]);
  });
});
