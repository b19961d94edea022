/** `webhooks verify`, in process: captures as headers and body, raw HTTP files, stdin, --tolerance. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, type TestListener } from '../../../helpers/in-process.js';
import { env, event, signed } from '../../../helpers/webhook-events.js';

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
    const args = [
      'webhooks',
      'verify',
      '--body-file',
      bodyFile,
      ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    ];
    const result = await runCommand(args, { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('valid standard signature for evt_captured');
  });

  it('reads a raw HTTP request file, and --tolerance 0 accepts an old capture', async () => {
    const old = new Date(Date.now() - 86_400_000);
    const headers = signed(id, body, old);
    const raw = `POST /webhooks HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n')}\r\n\r\n${body}`;
    const file = join(dir, 'captured.http');
    writeFileSync(file, raw);
    const stale = await runCommand(['webhooks', 'verify', '--request-file', file], { env });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/invalid: timestamp is 8640[01] s old/);
    const accepted = await runCommand(
      ['webhooks', 'verify', '--request-file', file, '--tolerance', '0', '--json'],
      { env },
    );
    expect(accepted.code).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ valid: true, id, secret: 1 });
  });

  it('exits 1 with the reason for a changed body, reading the body from stdin', async () => {
    const headers = signed(id, body);
    const args = [
      'webhooks',
      'verify',
      ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    ];
    const result = await runCommand(args, { env, input: body.replace('signed', 'declined') });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('signature mismatch');
  });
});
