/**
 * A new user's first hour, each point as the built CLI shows it: a misspelt
 * field or state is refused before anything is sent, with the word meant; a
 * refused connection is said within a second; a sample to start from; a
 * delivery kept as received and verified later; doctor judging the service
 * by its answer; a sandbox that runs in the background and stops.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startListenerProcess } from '../helpers/listener.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

let sandbox: SandboxProcess;
let env: Record<string, string>;
/** Requests the sandbox has answered (each look counts itself). */
const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes sample', () => {
  it('prints the example envelope, valid as it is; --count n prints n distinct ones as NDJSON', async () => {
    const sample = await runCli(['envelopes', 'sample']);
    expect(sample.code).toBe(0);
    expect(JSON.parse(sample.stdout)).toEqual(JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')));
    expect((await runCli(['envelopes', 'validate', '-'], { input: sample.stdout })).code).toBe(0);
    const batch = await runCli(['envelopes', 'sample', '--count', '3']);
    const lines = batch.stdout.trim().split('\n').map((l) => JSON.parse(l) as { contract_id: string });
    expect(new Set(lines.map((l) => l.contract_id)).size).toBe(3);
    expect((await runCli(['envelopes', 'validate', '--ndjson', '-'], { input: batch.stdout })).code).toBe(0);
    expect((await runCli(['envelopes', 'sample', '--count', '0'])).code).toBe(2);
  });
});

describe('a misspelt field or choice is refused before anything is sent', () => {
  const misspelt = async () => {
    const sample = JSON.parse((await runCli(['envelopes', 'sample'])).stdout) as Record<string, unknown>;
    const { webhook_url: url, ...rest } = sample;
    return JSON.stringify({ ...rest, webhookUrl: url, contract_id: `UNKNOWN-${Date.now()}` });
  };

  it('webhookUrl: exit 2 naming webhook_url and --allow-unknown-fields; nothing sent', async () => {
    const before = await requests();
    const result = await runCli(['envelopes', 'create', '-f', '-'], { env, input: await misspelt() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('-: webhookUrl: is not a field of an envelope; did you mean webhook_url? (the fields are in docs/service.md; --allow-unknown-fields sends it as is)');
    expect(result.stdout).toBe('');
    const validate = await runCli(['envelopes', 'validate', '-'], { input: await misspelt() });
    expect(validate.code).toBe(2);
    // Only the look at the state itself: the command sent nothing.
    expect(await requests()).toBe(before + 1);
  });

  it('with --allow-unknown-fields (or the setting) it is sent, with a warning', async () => {
    const flag = await runCli(['envelopes', 'create', '-f', '-', '--allow-unknown-fields', '--json'], { env, input: await misspelt() });
    expect(flag.code).toBe(0);
    expect(flag.stderr).toMatch(/warning: -: webhookUrl: is not a field of an envelope; did you mean webhook_url\?; sent as is/);
    expect(JSON.parse(flag.stdout)).toMatchObject({ status: 'created' });
    const configDir = tempDir();
    await runCli(['config', 'set', 'allow_unknown_fields', 'true'], { env: { SIGN_CONFIG_DIR: configDir } });
    const setting = await runCli(['envelopes', 'create', '-f', '-'], { env: { ...env, SIGN_CONFIG_DIR: configDir }, input: await misspelt() });
    expect(setting.code).toBe(0);
    expect((await runCli(['config', 'set', 'allow_unknown_fields', 'maybe'], { env: { SIGN_CONFIG_DIR: configDir } })).code).toBe(2);
  });

  it('envelopes list --status complete: exit 2, did you mean completed; nothing sent', async () => {
    const before = await requests();
    const result = await runCli(['envelopes', 'list', '--status', 'complete'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--status "complete" is not one of sent, completed, declined, failed, expired, voided; did you mean completed?');
    // Only the look at the state itself: the command sent nothing.
    expect(await requests()).toBe(before + 1);
  });
});

describe('a refused connection', () => {
  it('is said within about a second of waits (4 attempts), by every command alike', async () => {
    const nowhere = { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_API_KEY: sandbox.apiKey };
    const get = await runCli(['envelopes', 'get', 'env_1', '--verbose'], { env: nowhere });
    expect(get.code).toBe(1);
    expect(get.stderr).toMatch(/could not connect to http:\/\/127\.0\.0\.1:9 \(.*refused.*\); nothing was sent \(4 attempts\)/i);
    expect(get.stderr.match(/retrying in (\d\.\d) s/g)).toEqual(['retrying in 0.1 s', 'retrying in 0.2 s', 'retrying in 0.4 s']);
    const keys = await runCli(['keys', 'list', '--verbose'], { env: nowhere });
    expect(keys.stderr.match(/retrying in \d\.\d s/g)).toHaveLength(3);
    expect(keys.stderr).toContain('showing local profiles only');
  });
});

describe('webhooks listen --save-dir', () => {
  it('keeps each delivery as received, in the form webhooks verify --request-file takes', async () => {
    const dir = join(tempDir(), 'deliveries');
    const secretFile = join(tempDir(), 'secret.txt');
    writeFileSync(secretFile, `${sandbox.webhookSecret}\n`);
    const listener = await startListenerProcess(['--secret-file', secretFile, '--save-dir', dir]);
    try {
      const trigger = await runCli(['webhooks', 'trigger', 'signer.signed', '--to', `${listener.url}/hooks`, '--secret-file', secretFile]);
      expect(trigger.code).toBe(0);
      await listener.waitForStdout((lines) => lines.some((l) => l.includes('signer.signed')));
    } finally {
      expect(await listener.stop()).toBe(0);
    }
    expect(listener.stderr.join('\n')).toContain(`saved in ${dir}`);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    const path = join(dir, files[0]!);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'latin1')).toMatch(/^POST \/hooks HTTP\/1\.1\r\n[\s\S]*webhook-signature: v1,/i);
    const verified = await runCli(['webhooks', 'verify', '--request-file', path, '--secret-file', secretFile, '--tolerance', '0']);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/✓ valid standard signature for evt_/);
    // One byte changed in the body: the signature no longer holds.
    const raw = readFileSync(path);
    raw[raw.length - 2] = raw[raw.length - 2] === 0x7d ? 0x5d : 0x7d;
    writeFileSync(path, raw);
    expect((await runCli(['webhooks', 'verify', '--request-file', path, '--secret-file', secretFile, '--tolerance', '0'])).code).toBe(1);
  });
});

describe('doctor', () => {
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

  it('marks the service by what it answered, not by any HTTP status', async () => {
    const result = await runCli(['doctor'], { env: { SIGN_BASE_URL: otherUrl, SIGN_API_KEY: sandbox.apiKey } });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(/^✓ (reachable|service)/m);
    expect(result.stdout).toMatch(/^✗ service\s+http:\/\/127\.0\.0\.1:\d+ answers, but not like the signing service: .* HTTP 404 \(text\/html\)/m);
    const good = await runCli(['doctor'], { env });
    expect(good.stdout).toMatch(/^✓ service\s+http:\/\/127\.0\.0\.1:\d+ answers like the signing service in \d+ ms/m);
  });
});

describe('sandbox --detach and sandbox stop', () => {
  it('returns once the sandbox listens and its credentials are written; stop ends it, and says so when none runs', async () => {
    const dataDir = tempDir('sign-cli-detached-');
    const started = await runCli(['sandbox', '--detach', '--port', '0', '--data-dir', dataDir]);
    try {
      expect(started.code).toBe(0);
      expect(started.stdout).toMatch(/^sandbox listening on http:\/\/127\.0\.0\.1:\d+ in the background \(pid \d+\)$/m);
      // Right away, as a pasted block would: the credentials are there.
      const credentials = readFileSync(join(dataDir, 'credentials.env'), 'utf8');
      const baseUrl = /SIGN_BASE_URL='([^']+)'/.exec(credentials)![1]!;
      const apiKey = /SIGN_API_KEY='([^']+)'/.exec(credentials)![1]!;
      expect(started.stdout + started.stderr).not.toContain(apiKey);
      const listed = await runCli(['keys', 'list', '--json'], { env: { SIGN_BASE_URL: baseUrl, SIGN_API_KEY: apiKey } });
      expect(listed.code).toBe(0);
      // A second start on the same data dir (a block pasted twice) finds it running: exit 0, saying so.
      const again = await runCli(['sandbox', '--detach', '--port', '0', '--data-dir', dataDir]);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(new RegExp(`a sandbox is already running on .* \\(pid \\d+, ${baseUrl}\\)`));
      expect(again.stdout + again.stderr).not.toContain(apiKey);
      expect(readFileSync(join(dataDir, 'sandbox.log'), 'utf8')).not.toContain(apiKey);
    } finally {
      const stopped = await runCli(['sandbox', 'stop', '--data-dir', dataDir]);
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toMatch(/^sandbox \(pid \d+\) stopped; its state is kept in /m);
    }
    expect(existsSync(join(dataDir, 'sandbox.lock'))).toBe(false);
    const none = await runCli(['sandbox', 'stop', '--data-dir', dataDir]);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('no sandbox is running');
  });

  it('a start that fails says why, from the sandbox itself', async () => {
    const dataDir = tempDir('sign-cli-detached-');
    const port = new URL(sandbox.baseUrl).port;
    const taken = await runCli(['sandbox', '--detach', '--port', port, '--data-dir', dataDir]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`the sandbox stopped at start (exit 1): port ${port} on 127.0.0.1 is already in use`);
  });
});
