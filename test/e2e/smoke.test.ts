/**
 * One run of every command on the built binary, spawned as a user runs it,
 * against a spawned sandbox: the bundle loads each command's code and each
 * exits 0. What each command does is tested in process, beside it
 * (test/cli/commands/<noun>/<verb>.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStandard } from '../../src/core/webhooks/webhooks.js';
import { ROOT, runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXAMPLE = join(ROOT, 'examples', 'envelope.json');
let sandbox: SandboxProcess;
let listener: ListenerProcess;
let env: Record<string, string>;
const work = tempDir('sign-cli-smoke-');

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
  env = {
    SIGN_BASE_URL: sandbox.baseUrl,
    SIGN_API_KEY: sandbox.apiKey,
    SIGN_WEBHOOK_SECRET: sandbox.webhookSecret,
    SIGN_CONFIG_DIR: join(work, 'config'),
  };
  listener = await startListenerProcess(['--json'], env);
});
afterAll(async () => {
  await listener?.stop();
  await sandbox?.stop();
});

const ok = (result: CliResult, what: string) => {
  expect(result.code, `${what}: ${result.stderr}`).toBe(0);
  return result.stdout;
};
const cli = (args: string[], input?: string) =>
  runCli(args, { env, ...(input === undefined ? {} : { input }) });

describe('every command, once, on the built binary', () => {
  it('envelopes: sample, validate, create, get, watch, download, verify, audit, list, void', async () => {
    ok(await cli(['envelopes', 'validate', EXAMPLE]), 'validate');
    const sample = ok(await cli(['envelopes', 'sample']), 'sample');
    const body = { ...(JSON.parse(sample) as Record<string, unknown>), webhook_url: `${listener.url}/hooks` };
    const id = ok(
      await cli(['envelopes', 'create', '-f', '-', '--query', 'envelope.id'], JSON.stringify(body)),
      'create',
    ).trim();
    expect(id).toMatch(/^env_\w+$/);
    expect(JSON.parse(ok(await cli(['envelopes', 'get', id, '--json']), 'get')).id).toBe(id);
    ok(await cli(['envelopes', 'watch', id, '--interval', '0.2']), 'watch');
    ok(await cli(['envelopes', 'download', id, '-o', join(work, 'signed.pdf')]), 'download');
    const ca = await fetch(`${sandbox.baseUrl}/_sandbox/ca.pem`);
    writeFileSync(join(work, 'sandbox-ca.pem'), await ca.text());
    ok(
      await cli([
        'envelopes',
        'verify',
        join(work, 'signed.pdf'),
        '--trust',
        join(work, 'sandbox-ca.pem'),
        '--envelope',
        id,
      ]),
      'verify',
    );
    ok(await cli(['envelopes', 'audit', id, '--verify']), 'audit');
    expect(ok(await cli(['envelopes', 'list', '--limit', '1', '--query', 'id']), 'list').trim()).toBe(id);
    const stuck = {
      ...(JSON.parse(sample) as Record<string, unknown>),
      signers: [{ name: 'Nadia Noview', email: 'nadia+noview@example.com', channel: 'email', order: 1 }],
    };
    const other = ok(
      await cli(['envelopes', 'create', '-f', '-', '--query', 'envelope.id'], JSON.stringify(stuck)),
      'create',
    ).trim();
    ok(await cli(['envelopes', 'void', other, '--reason', 'smoke test', '--yes']), 'void');
  });

  it('webhooks: listen (running since the start), trigger, verify, deliveries, resend', async () => {
    ok(await cli(['webhooks', 'trigger', 'signer.signed', '--to', `${listener.url}/hooks`]), 'trigger');
    const now = Math.floor(Date.now() / 1000);
    const payload = JSON.stringify({ id: 'evt_smoke', type: 'signer.signed' });
    writeFileSync(join(work, 'body.json'), payload);
    const headers = signStandard(sandbox.webhookSecret, 'evt_smoke', now, payload);
    ok(
      await cli([
        'webhooks',
        'verify',
        '--body-file',
        join(work, 'body.json'),
        ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
      ]),
      'verify',
    );
    const event = ok(
      await cli(['webhooks', 'deliveries', '--limit', '1', '--json', '--query', 'event_id']),
      'deliveries',
    ).trim();
    expect(event).toMatch(/^evt_/);
    ok(await cli(['webhooks', 'resend', event, '--to', `${listener.url}/hooks`]), 'resend');
    await listener.waitForStdout((lines) => lines.length > 0);
  });

  it('a server stopped with Ctrl-C ends normally: exit 0 and its summary, never "interrupting…"', async () => {
    const server = await startListenerProcess([], env);
    expect(await server.stop()).toBe(0);
    expect(server.stderr.join('\n')).toMatch(/received 0, verified 0/);
    expect(server.stderr.join('\n')).not.toMatch(/interrupting/);
  });

  it('keys, config, doctor, sandbox stop, completion', async () => {
    mkdirSync(join(work, 'config'), { recursive: true, mode: 0o700 });
    ok(
      await cli(['keys', 'add', 'smoke', '--stdin', '--base-url', sandbox.baseUrl], sandbox.apiKey),
      'keys add',
    );
    ok(await cli(['keys', 'use', 'smoke']), 'keys use');
    ok(await cli(['keys', 'list']), 'keys list');
    ok(await cli(['keys', 'check']), 'keys check');
    ok(await cli(['keys', 'remove', 'smoke']), 'keys remove');
    ok(await cli(['config', 'set', 'rate', '300']), 'config set');
    expect(ok(await cli(['config', 'get', 'rate']), 'config get')).toBe('300\n');
    ok(await cli(['config', 'unset', 'rate']), 'config unset');
    ok(await cli(['config', 'list']), 'config list');
    ok(await cli(['config', 'path']), 'config path');
    ok(await cli(['doctor']), 'doctor');
    ok(await cli(['sandbox', 'stop', '--data-dir', join(work, 'no-sandbox')]), 'sandbox stop');
    expect(ok(await cli(['completion', 'bash']), 'completion')).toContain('_sign_cli');
  });
});
