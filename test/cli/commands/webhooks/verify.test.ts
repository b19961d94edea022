/** `webhooks verify`, in process: captures as headers and body, raw HTTP files, stdin, --tolerance. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, type TestListener } from '../../../helpers/in-process.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const env = { SIGN_WEBHOOK_SECRET: SECRET };
const wh = new Webhook(SECRET);

function event(id = `evt_${Math.random().toString(36).slice(2)}`) {
  return {
    id,
    body: JSON.stringify({ id, type: 'signer.signed', timestamp: new Date().toISOString(), data: { envelope_id: 'env_1', contract_id: 'C-1', envelope_status: 'sent', signer: { id: 'sgn_1', name: 'Layla Haddad', channel: 'email', order: 1, status: 'signed' } } }),
  };
}

function signed(id: string, body: string, at = new Date()): Record<string, string> {
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': wh.sign(id, at, body) };
}

let listener: TestListener | undefined;
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
});

describe('webhooks verify', () => {
  const { id, body } = event('evt_captured');
  const dir = tempDir();
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, body);

  it('exits 0 for a valid capture given as --header and --body-file', async () => {
    const headers = signed(id, body);
    const args = ['webhooks', 'verify', '--body-file', bodyFile, ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`])];
    const result = await runCommand(args, { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('valid standard signature for evt_captured');
  });

  it('reads a raw HTTP request file, and --tolerance 0 accepts an old capture', async () => {
    const old = new Date(Date.now() - 86_400_000);
    const headers = signed(id, body, old);
    const raw = `POST /webhooks HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body}`;
    const file = join(dir, 'captured.http');
    writeFileSync(file, raw);
    const stale = await runCommand(['webhooks', 'verify', '--request-file', file], { env });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/invalid: timestamp is 8640[01] s old/);
    const accepted = await runCommand(['webhooks', 'verify', '--request-file', file, '--tolerance', '0', '--json'], { env });
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ valid: true, id, secret: 1 });
  });

  it('exits 1 with the reason for a changed body, reading the body from stdin', async () => {
    const headers = signed(id, body);
    const args = ['webhooks', 'verify', ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`])];
    const result = await runCommand(args, { env, input: body.replace('signed', 'declined') });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('signature mismatch');
  });
});

