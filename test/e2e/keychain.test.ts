/**
 * Keys in the OS keychain, against a real Secret Service (gnome-keyring on a
 * D-Bus session of the test's own; secret-tool reads what was stored): no
 * secret in any file, the key found again by later commands, a key kept in the
 * file by an earlier version moved by `keys add` again, the entry deleted with
 * its profile, and the file with one warning line when no keychain answers.
 * The binding is native and reads the process's environment, so these run the
 * built binary.
 */
import { spawn } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE } from '../helpers/envelopes.js';
import { cleanEnv, ROOT, runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { expectNoKey, withConfig } from '../helpers/profiles.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { NO_SECRET_SERVICE, startSecretService, type SecretService } from '../helpers/secret-service.js';

let sandbox: SandboxProcess;
let keyring: SecretService;

beforeAll(async () => {
  if (NO_SECRET_SERVICE) return;
  [sandbox, keyring] = await Promise.all([startSandboxProcess(), startSecretService()]);
});
afterAll(async () => {
  await Promise.all([sandbox?.stop(), keyring?.stop()]);
});

/** Every file under these directories, whatever its name: none may hold the key or its hidden part. */
function expectInNoFile(dirs: string[], key: string): number {
  const hidden = key.slice(8, -4);
  let files = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        files += 1;
        const text = readFileSync(path).toString('latin1');
        expect(text.includes(key) || text.includes(hidden), `${path} holds the key`).toBe(false);
      }
    }
  };
  dirs.forEach(walk);
  return files;
}

describe.skipIf(NO_SECRET_SERVICE)('keys in the OS keychain (a real Secret Service)', () => {
  it('keys add keeps the key in the Secret Service only; later commands find it there; keys remove deletes it', async () => {
    const { env: config, dir, file } = withConfig();
    const env = { ...config, ...keyring.env, SIGN_STATE_DIR: dir };
    const add = await runCli(['keys', 'add', 'sbx', '--stdin', '--base-url', sandbox.baseUrl], {
      env,
      input: `${sandbox.apiKey}\n`,
    });
    expect(add.code).toBe(0);
    expect(add.stderr).toMatch(
      /✓ stored sk_test_\*{4}\w{4} as profile sbx in the Secret Service; checked with the service: test/,
    );
    expect(add.stderr).not.toContain('warning');

    // The config file holds the reference and the mask; the secret is where libsecret finds it.
    const profile = JSON.parse(readFileSync(file, 'utf8')).profiles.sbx;
    expect(profile.api_key).toBeUndefined();
    expect(profile).toMatchObject({
      keychain: { service: 'sign-cli', account: expect.stringMatching(/^sbx:[0-9a-f]{8}$/) },
      key_masked: expect.stringMatching(/^sk_test_\*{4}\w{4}$/),
      environment: 'test',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(keyring.lookup({ service: 'sign-cli', username: profile.keychain.account })).toBe(sandbox.apiKey);

    // Later commands read it from there.
    const created = await runCli(['envelopes', 'create', '-f', EXAMPLE, '--json'], { env });
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).envelope.id).toMatch(/^env_/);
    const listed = await runCli(['keys', 'list', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ name: 'sbx', source: 'local+service', storage: 'keychain', active: true }),
    );
    const table = await runCli(['keys', 'list', '--local'], { env });
    expect(table.stdout).toMatch(/^sbx \*.*local\s+keychain$/m);
    const doctor = await runCli(['doctor'], { env });
    expect(doctor.stdout).toMatch(
      /api key\s+sk_test_\*{4}\w{4} from profile sbx \(OS keychain\), environment test/,
    );
    const verbose = await runCli(['envelopes', 'list', '--limit', '1', '--verbose'], { env });
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toContain('API key from profile sbx (OS keychain)');

    // No file of the run holds the key: not the config, not the state, not the keyring's own (encrypted) store.
    expect(expectInNoFile([dir, keyring.dir], sandbox.apiKey)).toBeGreaterThan(1);
    expectNoKey([add, created, listed, table, doctor, verbose], sandbox.apiKey);

    // Without the keychain, the key is not there to use: exit 3, naming the entry and the way out.
    const locked = await runCli(['envelopes', 'list'], {
      env: { ...env, DBUS_SESSION_BUS_ADDRESS: undefined },
    });
    expect(locked.code).toBe(3);
    expect(locked.stderr).toContain(
      `the key of profile sbx is in the OS keychain (entry sign-cli/${profile.keychain.account}), and no D-Bus session`,
    );
    expect(locked.stderr).toContain('--insecure-storage');

    const removed = await runCli(['keys', 'remove', 'sbx'], { env });
    expect(removed.code).toBe(0);
    expect(keyring.lookup({ service: 'sign-cli', username: profile.keychain.account })).toBeNull();
  });

  it('moves a key an earlier version kept in the file when it is added again, and replaces a keychain key with --force', async () => {
    const { env: config, dir, file } = withConfig();
    const env = { ...config, ...keyring.env, SIGN_STATE_DIR: dir };
    // As an earlier version wrote it: the key in the file.
    writeFileSync(
      file,
      JSON.stringify({
        active_profile: 'old',
        profiles: { old: { api_key: sandbox.apiKey, base_url: sandbox.baseUrl, environment: 'test' } },
      }),
      { mode: 0o600 },
    );
    const before = await runCli(['doctor'], { env });
    expect(before.stdout).toContain(
      'from profile old (in the config file; `sign-cli keys add old` again moves it into the OS keychain)',
    );
    const again = await runCli(['keys', 'add', 'old', '--stdin', '--offline'], {
      env,
      input: `${sandbox.apiKey}\n`,
    });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(
      /moved sk_test_\*{4}\w{4} of profile old from the config file in the Secret Service/,
    );
    const moved = JSON.parse(readFileSync(file, 'utf8')).profiles.old;
    expect(moved.api_key).toBeUndefined();
    expect(keyring.lookup({ service: 'sign-cli', username: moved.keychain.account })).toBe(sandbox.apiKey);
    const used = await runCli(['envelopes', 'list', '--limit', '1'], { env });
    expect(used.stderr).toBe('');
    expect(used.code).toBe(0);

    // Another key for a keychain profile needs --force, and the replaced entry goes.
    const other = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      environment: 'test',
      name: 'other',
    });
    const refused = await runCli(['keys', 'add', 'old', '--stdin', '--offline'], {
      env,
      input: `${other.key}\n`,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('profile old already exists');
    const forced = await runCli(['keys', 'add', 'old', '--stdin', '--offline', '--force'], {
      env,
      input: `${other.key}\n`,
    });
    expect(forced.code).toBe(0);
    const replaced = JSON.parse(readFileSync(file, 'utf8')).profiles.old;
    expect(keyring.lookup({ service: 'sign-cli', username: replaced.keychain.account })).toBe(other.key);
    expect(keyring.lookup({ service: 'sign-cli', username: moved.keychain.account })).toBeNull();
    expectInNoFile([dir], other.key);
    expectInNoFile([dir], sandbox.apiKey);
    expectNoKey([before, again, used, refused, forced], sandbox.apiKey);
    expectNoKey([refused, forced], other.key);
  });

  it('falls back to the 0600 file with one warning line when the D-Bus session has no one answering; SIGN_KEYCHAIN=off chooses the file', async () => {
    const { env: config, file } = withConfig();
    const env = { ...config, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(keyring.dir, 'no-such-bus')}` };
    const add = await runCli(['keys', 'add', 'ci', '--stdin', '--offline'], {
      env,
      input: `${sandbox.apiKey}\n`,
    });
    expect(add.code).toBe(0);
    const warnings = add.stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^warning: no OS keychain answered \(the Secret Service did not answer: .+\); the key is kept in .*config\.json \(mode 0600\) instead/,
    );
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.ci.api_key).toBe(sandbox.apiKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const listed = await runCli(['keys', 'list', '--local', '--json'], { env });
    expect(JSON.parse(listed.stdout)[0]).toMatchObject({ name: 'ci', storage: 'file' });
    expectNoKey([add, listed], sandbox.apiKey);

    // A Secret Service that never answers (an unlock prompt nobody sees): given up after its bound,
    // the key kept in the file, and the command ends rather than waiting for the D-Bus call.
    const frozen = withConfig();
    const thaw = keyring.freeze();
    try {
      const stuck = await runCli(['keys', 'add', 'ci', '--stdin', '--offline'], {
        env: { ...frozen.env, ...keyring.env },
        input: `${sandbox.apiKey}\n`,
      });
      // It ended on its own (runCli's guard would have killed it: no exit code): whichever of its
      // bound and D-Bus's reply timeout came first, not how long either took.
      expect(stuck.code).toBe(0);
      // Either the bound or D-Bus's own reply timeout ends the call first; either way it is one warning line.
      expect(stuck.stderr.split('\n').filter(Boolean)).toEqual([
        expect.stringMatching(
          /^warning: no OS keychain answered \(the Secret Service did not answer: .+\); the key is kept in /,
        ),
        expect.stringMatching(/^✓ stored sk_test_/),
      ]);
      expect(JSON.parse(readFileSync(frozen.file, 'utf8')).profiles.ci.api_key).toBe(sandbox.apiKey);
    } finally {
      thaw();
    }

    // SIGN_KEYCHAIN=off: the file on purpose, a Secret Service running or not, and no warning.
    const off = withConfig();
    const quiet = await runCli(['keys', 'add', 'ci', '--stdin', '--offline'], {
      env: { ...off.env, ...keyring.env, SIGN_KEYCHAIN: 'off' },
      input: `${sandbox.apiKey}\n`,
    });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain('warning');
    expect(JSON.parse(readFileSync(off.file, 'utf8')).profiles.ci.api_key).toBe(sandbox.apiKey);
    expectNoKey([quiet], sandbox.apiKey);
  });
});

describe('an install without the keychain module (an offline npm install skips the optional addon)', () => {
  it('keys add says so in one line and keeps the key in the 0600 file: no require stack', async () => {
    // The package as an offline install has it: bin/ and dist/cli with no node_modules anywhere above.
    const installed = tempDir('sign-cli-no-addon-');
    cpSync(join(ROOT, 'bin'), join(installed, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'dist', 'cli'), join(installed, 'dist', 'cli'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    const config = withConfig();
    const key = 'sk_test_51NoAddonKeyForThisTestOnly0000abcd';
    const result = await new Promise<CliResult>((resolve) => {
      // A D-Bus address, so that the binding is looked for (without one it is not even loaded).
      const child = spawn(
        process.execPath,
        [join(installed, 'bin', 'sign-cli.js'), 'keys', 'add', 'ci', '--stdin', '--offline'],
        {
          cwd: installed,
          env: cleanEnv({
            ...config.env,
            DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(installed, 'no-bus')}`,
          }),
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      child.stdin.end(`${key}\n`);
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(
      /^warning: no OS keychain answered \(no OS keychain module for linux-x64 \(@napi-rs\/keyring, an optional dependency, is not installed\)\); the key is kept in .+ \(mode 0600\)/,
    );
    expect(result.stderr).not.toMatch(/Require stack|Cannot find module|node_modules/);
    expect(lines.filter((line) => line.startsWith('warning:'))).toHaveLength(1);
    expect(JSON.parse(readFileSync(config.file, 'utf8')).profiles.ci.api_key).toBe(key);
    expectNoKey([result], key);
  });
});
