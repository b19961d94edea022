/**
 * `sign-cli api` with what a user may hand it by mistake or on purpose: a key
 * in the path, a field or a header (never shown beyond its mask, on any line),
 * a query in the path (sent as a query), a header value HTTP cannot carry, and
 * an input past the service's size limit (refused while read, nothing sent).
 * In process, against an in-process sandbox over real HTTP.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../../src/core/endpoints.js';
import { main } from '../../../../src/cli/main.js';
import { runCommand, startTestSandbox, testIo, type TestSandbox } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';
import { expectNoKey, withConfig } from '../../../helpers/profiles.js';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});
const api = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
  runCommand(['api', ...args], { ...options, env: { ...sandbox.env, ...options.env } });

describe('api: keys and secrets are masked on every line', () => {
  it('masks the key in the closing error line of a non-2xx, with -f fields, --include and --verbose', async () => {
    const key = sandbox.apiKey;
    const inPath = await api([`/api/v1/envelopes/${key}`]);
    expect(inPath.code).toBe(1);
    expect(inPath.stderr).toMatch(
      new RegExp(`^error: GET /api/v1/envelopes/sk_test_\\*{4}${key.slice(-4)}: HTTP 404`, 'm'),
    );
    const inField = await api([
      '-X',
      'GET',
      `/api/v1/envelopes/${key}`,
      '-f',
      `x=${key}`,
      '--include',
      '--verbose',
    ]);
    expect(inField.code).toBe(1);
    const posted = await api([`/api/v1/envelopes/${key}`, '-f', `x=${key}`, '--verbose']);
    expect(posted.code).not.toBe(0);
    expect(posted.stderr).toMatch(/^error: POST \/api\/v1\/envelopes\/sk_test_\*{4}/m);
    expectNoKey([inPath, inField, posted], key);
  });

  it('masks a key of the config file, a webhook secret and a key given in -H, also in a usage error before any request', async () => {
    const other = await sandbox.mintKey({ name: 'stored' });
    const config = withConfig();
    const added = await runCommand(['keys', 'add', 'stored', '--stdin', '--offline', '--insecure-storage'], {
      env: config.env,
      input: `${other}\n`,
    });
    expect(added.code, added.stderr).toBe(0);
    const env = { ...config.env, SIGN_WEBHOOK_SECRET: sandbox.webhookSecret };
    // The env's key is the one in use; the stored profile's key and the webhook secret are only known.
    const stored = await api([`/api/v1/envelopes/${other}`], { env });
    expect(stored.stderr).toMatch(/^error: GET \/api\/v1\/envelopes\/sk_test_\*{4}\w{4}: HTTP 404/m);
    const secret = await api([`/api/v1/envelopes/${sandbox.webhookSecret}`], { env });
    expect(secret.stderr).toMatch(/^error: GET \/api\/v1\/envelopes\/whsec_\*{4}/m);
    // Refused before the key is resolved or the config file opened.
    const usage = await api([`https://elsewhere.example/${sandbox.apiKey}/${other}`], { env });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(
      /^error: https:\/\/elsewhere\.example\/sk_test_\*{4}\w{4}\/sk_test_\*{4}\w{4}: give a path/m,
    );
    const header = await api(
      [`/api/v1/envelopes/${other}`, '-H', `Authorization: Bearer ${other}`, '--verbose'],
      { env: { SIGN_CONFIG_DIR: config.dir } },
    );
    expect(header.code).toBe(1);
    expectNoKey([stored, secret, usage, header], other);
    expectNoKey([stored, secret, usage, header], sandbox.apiKey);
    for (const run of [stored, secret, usage, header])
      expect(run.stdout + run.stderr).not.toContain(sandbox.webhookSecret);
  });

  it("masks the environment's key and secret in commander's own messages, which echo what was typed", async () => {
    const key = sandbox.apiKey;
    const command = await runCommand([key], {
      env: { ...sandbox.env, SIGN_WEBHOOK_SECRET: sandbox.webhookSecret },
    });
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(new RegExp(`^error: unknown command 'sk_test_\\*{4}${key.slice(-4)}'`));
    const option = await api(['/api/v1/envelopes', `--token=${sandbox.webhookSecret}`], {
      env: { SIGN_WEBHOOK_SECRET: sandbox.webhookSecret },
    });
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^error: unknown option '--token=whsec_\*{4}[A-Za-z0-9+/=]{4}'/);
    expectNoKey([command, option], key);
    expect(option.stderr).not.toContain(sandbox.webhookSecret);
  });
});

describe('api: what is sent', () => {
  it('sends a query written in the path as the query (?x=1, not %3F), before -f fields of a GET', async () => {
    const listed = await api(['/api/v1/envelopes?limit=1', '--verbose', '--query', 'length(data)']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim()).toMatch(/^[01]$/);
    expect(listed.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/envelopes\?limit=1 /m);
    const both = await api(['-X', 'GET', '/api/v1/envelopes?limit=1', '-f', 'status=completed', '--verbose']);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toMatch(/^> GET \S+\/api\/v1\/envelopes\?limit=1&status=completed /m);
  });

  it('refuses a header value with a control character or a letter HTTP cannot carry: exit 2, one line naming the header, nothing sent', async () => {
    const before = await sandbox.envelopeCount();
    const escaped = await api(['/api/v1/envelopes', '-f', 'title=x', '-H', 'X-Note: a\u001b[31mb']);
    expect(escaped.code).toBe(2);
    expect(escaped.stderr).toBe(
      'error: -H X-Note: the value holds U+001B, which an HTTP header cannot carry; give printable ASCII\n',
    );
    const arabic = await api(['/api/v1/envelopes', '-H', 'X-Note: عقد']);
    expect(arabic.code).toBe(2);
    expect(arabic.stderr).toMatch(/^error: -H X-Note: the value holds U\+0639/);
    expect(await sandbox.envelopeCount()).toBe(before);
  });
});

describe('api: inputs are bounded by the service limit while read', () => {
  it('refuses --input and -F @file one byte over the limit (exit 2, one line, nothing sent) and sends one of exactly the limit', async () => {
    const dir = tempDir('sign-cli-api-bound-');
    const over = join(dir, 'over.json');
    writeFileSync(over, Buffer.alloc(MAX_BODY_BYTES + 1, 0x20));
    const before = await sandbox.envelopeCount();
    const input = await api(['/api/v1/envelopes', '--input', over]);
    expect(input.code).toBe(2);
    expect(input.stderr).toBe(
      `error: --input ${over}: larger than 1 MiB (1,048,576 bytes), the most the service takes in one request; nothing was sent\n`,
    );
    const field = await api(['/api/v1/envelopes', '-F', `title=@${over}`]);
    expect(field.code).toBe(2);
    expect(field.stderr).toMatch(/^error: -F \S+over\.json: larger than 1 MiB/);
    const fields = await api(['/api/v1/envelopes', '-f', `title=${'x'.repeat(MAX_BODY_BYTES)}`]);
    expect(fields.code).toBe(2);
    expect(fields.stderr).toMatch(/^error: the body of -f\/-F fields: larger than 1 MiB/);
    expect(await sandbox.envelopeCount()).toBe(before);
    // Exactly the limit is sent: the sandbox answers it (400, not JSON), not the CLI.
    const exact = join(dir, 'exact.json');
    writeFileSync(exact, Buffer.alloc(MAX_BODY_BYTES, 0x20));
    const sent = await api(['/api/v1/envelopes', '--input', exact]);
    expect(sent.stderr).toMatch(/^error: POST \/api\/v1\/envelopes: HTTP 4(00|22)/m);
  });

  it('stops reading stdin past the limit: a stream of 4 MiB is read little past 1 MiB, refused, nothing sent', async () => {
    let pulled = 0;
    const total = 4 * MAX_BODY_BYTES;
    const stdin = new Readable({
      read() {
        if (pulled >= total) return void this.push(null);
        pulled += 65_536;
        this.push(Buffer.alloc(65_536, 0x20));
      },
    });
    const io = testIo({ env: sandbox.env });
    Object.assign(io, { stdin });
    const before = await sandbox.envelopeCount();
    const code = await main(
      ['node', 'sign-cli', 'api', '/api/v1/envelopes', '--input', '-'],
      io,
      new AbortController().signal,
    );
    expect(code).toBe(2);
    expect(io.stderr.text).toBe(
      'error: --input - (stdin): larger than 1 MiB (1,048,576 bytes), the most the service takes in one request; nothing was sent\n',
    );
    expect(pulled).toBeLessThan(2 * MAX_BODY_BYTES);
    expect(await sandbox.envelopeCount()).toBe(before);
  });
});
