/**
 * Secrets never leak: every stdout, stderr and --verbose trace of the CLI and
 * the sandbox, and every file they write, is scanned for every API key and
 * webhook secret in use, whole and without its prefix. Only the two places
 * meant to hold secrets may: the sandbox's credentials.env, and the CLI's
 * config.json when the user stored a key there with `keys add` (both 0600).
 * A server that echoes the key back (with or without its prefix) is part of
 * the run, as is the sandbox's `--json` first line, which hands its key to
 * scripts by contract and is the one output exempt.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startListenerProcess } from '../helpers/listener.js';
import { NO_REDIS, startRedis } from '../helpers/redis.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
const outputs: { label: string; text: string }[] = [];
const record = (label: string, result: { stdout: string; stderr: string }) =>
  outputs.push(
    { label: `${label} (stdout)`, text: result.stdout },
    { label: `${label} (stderr)`, text: result.stderr },
  );

let sandbox: SandboxProcess;
let echo: Server;
let echoUrl: string;
const dataDir = tempDir('sign-cli-secrets-sandbox-');
const stateDir = tempDir('sign-cli-secrets-state-');
const configDir = tempDir('sign-cli-secrets-config-');
const work = tempDir('sign-cli-secrets-work-');
const secrets: string[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess({ dataDir });
  // A badly behaved server: its errors echo the key it was sent, once without the prefix, once whole.
  echo = createServer((req, res) => {
    req.resume();
    const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const bare = key.replace(/^sk_(live|test)_/, '');
    if (req.url?.includes('api-keys'))
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`internal error for ${key}`);
    else
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: `unknown key ${bare}` }));
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await sandbox?.stop();
  echo.closeAllConnections();
  await new Promise((resolve) => echo.close(resolve));
});

/** Every file under a directory, recursively. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

describe('no secret outside credentials.env (and a config the user stored a key in)', () => {
  it('scans every output and file of a session for every key and secret, whole and without prefix; checks file modes', async () => {
    const readOnly = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'read-only',
      scopes: ['envelopes:read'],
    });
    const expired = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'old',
      expires: '2020-01-31',
    });
    const profileKey = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'profile',
      environment: 'live',
    });
    secrets.push(sandbox.apiKey, readOnly.key, expired.key, profileKey.key, sandbox.webhookSecret);
    const env = {
      SIGN_BASE_URL: sandbox.baseUrl,
      SIGN_API_KEY: sandbox.apiKey,
      SIGN_STATE_DIR: stateDir,
      SIGN_CONFIG_DIR: configDir,
      SIGN_WEBHOOK_SECRET: sandbox.webhookSecret,
    };
    const run = async (label: string, args: string[], extra: Record<string, string> = {}, input?: string) => {
      const result = await runCli(args, {
        env: { ...env, ...extra },
        ...(input === undefined ? {} : { input }),
      });
      record(label, result);
      return result;
    };

    const created = await run('create --verbose --json', [
      'envelopes',
      'create',
      '-f',
      EXAMPLE,
      '--verbose',
      '--json',
    ]);
    const id = JSON.parse(created.stdout).envelope.id as string;
    await run('create again (already created)', ['envelopes', 'create', '-f', EXAMPLE, '--verbose']);
    await run('create --new', ['envelopes', 'create', '-f', EXAMPLE, '--new', '--verbose']);
    await run(
      'create with a read-only key (403)',
      ['envelopes', 'create', '-f', EXAMPLE, '--new', '--verbose'],
      { SIGN_API_KEY: readOnly.key },
    );
    await run(
      'create with an expired key (401)',
      ['envelopes', 'create', '-f', EXAMPLE, '--new', '--verbose'],
      { SIGN_API_KEY: expired.key },
    );
    await run(
      'create against an echoing server',
      ['envelopes', 'create', '-f', EXAMPLE, '--verbose', '--retries', '0'],
      { SIGN_BASE_URL: echoUrl },
    );
    await run('keys list against an echoing server', ['keys', 'list', '--verbose', '--retries', '0'], {
      SIGN_BASE_URL: echoUrl,
    });
    await run('get --verbose', ['envelopes', 'get', id, '--verbose']);
    await run('audit --verify --json', ['envelopes', 'audit', id, '--verify', '--json', '--verbose']);
    await run('download (not completed yet)', [
      'envelopes',
      'download',
      id,
      '-o',
      join(work, 'x.pdf'),
      '--verbose',
    ]);
    await run(
      'keys add --stdin',
      ['keys', 'add', 'prod', '--stdin', '--base-url', sandbox.baseUrl],
      { SIGN_API_KEY: '' },
      `${profileKey.key}\n`,
    );
    await run('keys list --verbose', ['keys', 'list', '--verbose']);
    await run('keys list --json (profile key)', ['keys', 'list', '--json'], { SIGN_API_KEY: '' });
    await run('keys check', ['keys', 'check'], { SIGN_API_KEY: '' });
    await run('config list', ['config', 'list']);
    await run('doctor --verbose', ['doctor', '--verbose']);
    await run('doctor --json with the profile', ['doctor', '--json'], { SIGN_API_KEY: '' });
    await run('--api-key refused', ['envelopes', 'get', id, '--api-key', sandbox.apiKey]);
    // A key or secret pasted where a path or a value goes: the error line quotes the path, commander the word typed.
    await run('api with the key in the path and a field', [
      'api',
      '-X',
      'GET',
      `/api/v1/envelopes/${sandbox.apiKey}`,
      '-f',
      `x=${sandbox.apiKey}`,
      '--include',
      '--verbose',
    ]);
    await run('api with the webhook secret and the profile key in the path', [
      'api',
      `/api/v1/envelopes/${sandbox.webhookSecret}/${profileKey.key}`,
    ]);
    await run(
      'api with a stored key in a URL (usage error)',
      ['api', `https://elsewhere.example/${profileKey.key}`],
      { SIGN_API_KEY: '' },
    );
    await run('the key as an unknown command', [sandbox.apiKey]);

    // The rate store's password: in the URL of a store that cannot be reached, and of a real one that requires it.
    const storePassword = 'redis-store-password-7f3a9c';
    secrets.push(storePassword);
    const nowhere = `redis://:${storePassword}@127.0.0.1:1`;
    await run(
      'create with an unreachable rate store',
      ['envelopes', 'create', '-f', EXAMPLE, '--new', '--verbose'],
      { SIGN_RATE_STORE: nowhere },
    );
    await run('doctor with an unreachable rate store', ['doctor', '--verbose', '--rate-store', nowhere]);
    await run('config set rate_store', ['config', 'set', 'rate_store', nowhere]);
    await run('config get rate_store --json', ['config', 'get', 'rate_store', '--json']);
    await run('config unset rate_store', ['config', 'unset', 'rate_store']);
    if (!NO_REDIS) {
      const redis = await startRedis({ password: storePassword });
      try {
        const shared = await run(
          'create with a rate store that requires a password',
          ['envelopes', 'create', '-f', EXAMPLE, '--new', '--verbose'],
          { SIGN_RATE_STORE: redis.url },
        );
        expect(shared.stderr).toContain('rate budget shared through SIGN_RATE_STORE');
        await run('doctor with that store', ['doctor', '--verbose'], { SIGN_RATE_STORE: redis.url });
      } finally {
        await redis.stop();
      }
    }

    // Webhooks: a listener with the sandbox secret, a signed sample, a forged one, verify.
    const listener = await startListenerProcess(['--verbose', '--state', join(stateDir, 'seen.json')], {
      SIGN_WEBHOOK_SECRET: sandbox.webhookSecret,
    });
    await run('webhooks trigger', [
      'webhooks',
      'trigger',
      'signer.signed',
      '--to',
      listener.url,
      '--verbose',
    ]);
    await run(
      'webhooks trigger with a wrong secret',
      ['webhooks', 'trigger', 'signer.signed', '--to', listener.url],
      { SIGN_WEBHOOK_SECRET: `whsec_${Buffer.from('wrong secret, 24 bytes!!').toString('base64')}` },
    );
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'signer.signed',
      timestamp: new Date().toISOString(),
      data: {},
    });
    const headers = new Webhook(sandbox.webhookSecret).sign(
      'msg_secret_scan',
      new Date(),
      body,
    ) as unknown as Record<string, string>;
    const headerArgs = Object.entries({ 'webhook-id': 'msg_secret_scan', ...headers }).flatMap(
      ([name, value]) => ['--header', `${name}: ${value}`],
    );
    const bodyFile = join(work, 'body.json');
    writeFileSync(bodyFile, body);
    await run('webhooks verify', ['webhooks', 'verify', '--body-file', bodyFile, ...headerArgs]);
    await run('webhooks verify, tampered', [
      'webhooks',
      'verify',
      '--body-file',
      bodyFile,
      ...headerArgs.map((a) => a.replace(/v1,./, 'v1,A')),
    ]);
    expect(await listener.stop()).toBe(0);
    outputs.push(
      { label: 'listener (stdout)', text: listener.stdout.join('\n') },
      { label: 'listener (stderr)', text: listener.stderr.join('\n') },
    );

    // The sandbox's own output when started for a person (not --json), on the same data dir.
    await sandbox.stop();
    const human = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--data-dir', dataDir], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let humanErr = '';
    human.stderr.setEncoding('utf8').on('data', (c: string) => (humanErr += c));
    const humanOut: string[] = [];
    await new Promise<void>((resolve) =>
      createInterface({ input: human.stdout }).on('line', (line) => humanOut.push(line) >= 5 && resolve()),
    );
    human.kill('SIGINT');
    await new Promise((resolve) => human.once('exit', resolve));
    outputs.push(
      { label: 'sandbox (stdout)', text: humanOut.join('\n') },
      { label: 'sandbox (stderr)', text: humanErr },
    );

    // Scan outputs, then every file written.
    const needles = secrets.flatMap((secret) => [secret, secret.replace(/^(sk_(live|test)_|whsec_)/, '')]);
    const leaks: string[] = [];
    for (const { label, text } of outputs)
      for (const needle of needles)
        if (text.includes(needle)) leaks.push(`${label} holds ${needle.slice(0, 12)}…`);
    const allowed = new Set([join(dataDir, 'credentials.env'), join(configDir, 'config.json')]);
    const written = [...files(dataDir), ...files(stateDir), ...files(configDir), ...files(work)];
    for (const file of written) {
      if (allowed.has(file)) continue;
      const text = readFileSync(file).toString('latin1');
      for (const needle of needles)
        if (text.includes(needle)) leaks.push(`${file} holds ${needle.slice(0, 12)}…`);
    }

    const modes: [string, number][] = [
      [dataDir, 0o700],
      [join(dataDir, 'credentials.env'), 0o600],
      [join(dataDir, 'state.jsonl'), 0o600],
      [join(configDir, 'config.json'), 0o600],
      [join(stateDir, 'journals'), 0o700],
      ...files(join(stateDir, 'journals')).map((f): [string, number] => [f, 0o600]),
    ];
    const wrongModes = modes
      .filter(([path, mode]) => (statSync(path).mode & 0o777) !== mode)
      .map(
        ([path, mode]) => `${path}: ${(statSync(path).mode & 0o777).toString(8)}, not ${mode.toString(8)}`,
      );

    recordFigures('secrets', {
      'keys and secrets in use': secrets.length,
      'outputs scanned': outputs.length,
      'files scanned': written.length,
      leaks: leaks.length,
      'file modes checked': modes.length,
      'wrong file modes': wrongModes.length,
    });
    expect(leaks).toEqual([]);
    expect(wrongModes).toEqual([]);
    // The run did exercise the paths that could leak.
    expect(outputs.find((o) => o.label === 'create against an echoing server (stderr)')?.text).toMatch(
      /unknown key \*\*\*\*\w{4}/,
    );
    expect(outputs.find((o) => o.label === 'keys list against an echoing server (stderr)')?.text).toMatch(
      /internal error for sk_test_\*\*\*\*\w{4}/,
    );
    expect(outputs.some((o) => /authorization: Bearer sk_test_\*\*\*\*/.test(o.text))).toBe(true);
  });
});
