/** `webhooks verify`, in process: captures as headers and body, raw HTTP files, stdin, --tolerance. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/paths.js';
import { runCommand, type TestListener } from '../../../helpers/in-process.js';
import { env, event, signed } from '../../../helpers/webhook-events.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

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

describe("webhooks verify, on the command's clock", () => {
  it('judges the timestamp, and says its age, against io.clock: a capture of yesterday is fresh at yesterday', async () => {
    const { id, body } = event('evt_clocked');
    const at = new Date('2026-01-05T10:00:00Z');
    const headers = signed(id, body, at);
    const args = [
      'webhooks',
      'verify',
      ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    ];
    const fresh = await runCommand(args, { env, input: body, clock: new FakeClock(at.getTime() + 42_000) });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain('valid standard signature for evt_clocked, signed 42 s ago');
    const late = await runCommand(args, { env, input: body, clock: new FakeClock(at.getTime() + 3_600_000) });
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/invalid: timestamp is 3600 s old/);
  });
});
