/** `webhooks listen`, in process: verification, answers, duplicates, forwarding, the sandbox journey end to end. */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import {
  runCommand,
  startListener,
  startTestSandbox,
  type TestListener,
} from '../../../helpers/in-process.js';
import { startReceiver } from '../../../helpers/receiver.js';
import { SECRET, env, wh, event, signed, post } from '../../../helpers/webhook-events.js';

let listener: TestListener | undefined;
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
});

describe('webhooks listen', () => {
  it('accepts a delivery signed by the standardwebhooks package and prints it as JSON', async () => {
    listener = await startListener(['--json'], env);
    const { id, body } = event();
    const response = await post(`${listener.url}/any/path`, body, signed(id, body));
    expect(response.status).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(JSON.parse(listener.stdout[0]!)).toEqual({
      id,
      type: 'signer.signed',
      timestamp: expect.any(String),
      duplicate: false,
      payload: JSON.parse(body),
    });
  });

  it('accepts Stripe-signed deliveries under --scheme stripe', async () => {
    const secretFile = join(tempDir(), 'stripe.txt');
    writeFileSync(secretFile, 'whsec_stripe_local_secret\n');
    listener = await startListener(['--scheme', 'stripe', '--secret-file', secretFile, '--json']);
    const { id, body } = event();
    const header = new Stripe('sk_test_unused').webhooks.generateTestHeaderString({
      payload: body,
      secret: 'whsec_stripe_local_secret',
    });
    expect(
      (await post(listener.url, body, { 'stripe-signature': header, 'content-type': 'application/json' }))
        .status,
    ).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(JSON.parse(listener.stdout[0]!).id).toBe(id);
  });

  it("takes the secret from the sandbox's credentials.env, and says to start the sandbox when there is none", async () => {
    const dataDir = tempDir('sign-cli-sandbox-');
    const credentials = join(dataDir, 'credentials.env');
    // Before the sandbox ever ran: one line saying what to run first, not a shell's error.
    const missing = await runCommand(['webhooks', 'listen', '--port', '0', '--secret-file', credentials]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: --secret-file ${credentials}: no such file: the sandbox writes it when it starts (hint: start it first: sign-cli sandbox --detach (the README's by-hand block does), then run this again)\n`,
    );
    // The file as the sandbox writes it: only its SIGN_WEBHOOK_SECRET is a secret.
    writeFileSync(
      credentials,
      `export SIGN_BASE_URL='http://127.0.0.1:4010'\nexport SIGN_API_KEY='sk_test_notthesecret0000'\nexport SIGN_WEBHOOK_SECRET='${SECRET}'\n`,
    );
    listener = await startListener(['--json', '--secret-file', credentials]);
    const { id, body } = event();
    expect((await post(listener.url, body, signed(id, body))).status).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(JSON.parse(listener.stdout[0]!).id).toBe(id);
  });

  it('answers each bad delivery with the right status and says exactly why on stderr', async () => {
    listener = await startListener(['--max-body', '2048'], env);
    const { id, body } = event();
    const good = signed(id, body);
    const cases: [string, () => Promise<Response>, number, RegExp][] = [
      [
        'changed body',
        () => post(listener!.url, body.replace('Layla', 'Mallory'), good),
        401,
        /401 POST \/: signature mismatch/,
      ],
      [
        'wrong secret',
        () =>
          post(listener!.url, body, {
            ...good,
            'webhook-signature': new Webhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').sign(
              id,
              new Date(),
              body,
            ),
          }),
        401,
        /signature mismatch/,
      ],
      [
        'stale timestamp',
        () => post(listener!.url, body, signed(id, body, new Date(Date.now() - 3600_000))),
        401,
        /timestamp is 360[01] s old, beyond the 300 s tolerance/,
      ],
      [
        'missing header',
        () =>
          post(listener!.url, body, { 'webhook-id': id, 'webhook-timestamp': good['webhook-timestamp']! }),
        401,
        /missing header webhook-signature/,
      ],
      [
        'malformed timestamp',
        () => post(listener!.url, body, { ...good, 'webhook-timestamp': 'yesterday' }),
        400,
        /400 POST \/: webhook-timestamp is not a Unix time/,
      ],
      [
        'oversized body',
        () => post(listener!.url, 'x'.repeat(5000), good),
        413,
        /413 POST \/: body of 5000 bytes is over the 2048-byte limit/,
      ],
      [
        'not POST',
        () => post(`${listener!.url}/hooks`, '', {}, 'GET'),
        405,
        /405 GET \/hooks: method GET not allowed/,
      ],
    ];
    for (const [name, send, status, line] of cases) {
      const before = listener.stderr.length;
      const response = await send();
      expect(response.status, name).toBe(status);
      await listener.waitForStderr((lines) => lines.length > before);
      expect(listener.stderr.at(-1), name).toMatch(line);
    }
    expect(listener.stdout).toEqual([]);
  });

  it('prints an event delivered three times once, then two duplicates', async () => {
    listener = await startListener(['--json'], env);
    const { id, body } = event();
    for (let i = 0; i < 3; i++) expect((await post(listener.url, body, signed(id, body))).status).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 3);
    expect(listener.stdout.map((l) => JSON.parse(l).duplicate)).toEqual([false, true, true]);
    expect(new Set(listener.stdout.map((l) => JSON.parse(l).id))).toEqual(new Set([id]));
    const code = await listener.stop();
    expect(code).toBe(0);
    expect(listener.stderr.join('\n')).toContain('received 3, verified 3, rejected 0, duplicates 2');
    listener = undefined;
  });

  it('gives each delivery of a concurrent burst its own answer: new, duplicate or refused', async () => {
    // Answers to verified deliveries are written in batches (one per event-loop turn); every
    // sender must still get the answer for its own delivery.
    listener = await startListener(['--json'], env);
    const url = listener.url;
    const fresh = Array.from({ length: 60 }, () => event());
    const sends = [
      ...fresh.map(({ id, body }) => ({ send: () => post(url, body, signed(id, body)), status: 200, id })),
      ...fresh
        .slice(0, 20)
        .map(({ id, body }) => ({ send: () => post(url, body, signed(id, body)), status: 200, id })),
      ...fresh.slice(20, 40).map(({ id, body }) => ({
        send: () => post(url, body.replace('Layla', 'Mallory'), signed(id, body)),
        status: 401,
        id,
      })),
    ];
    const answers = await Promise.all(
      sends.map(async ({ send, status, id }) => {
        const response = await send();
        return { id, status, got: response.status, body: (await response.json()) as { duplicate?: boolean } };
      }),
    );
    for (const answer of answers) expect(answer.got, answer.id).toBe(answer.status);
    // Of the two deliveries of each of the first 20 ids, exactly one was answered as the duplicate.
    for (const { id } of fresh.slice(0, 20)) {
      expect(
        answers
          .filter((a) => a.id === id && a.got === 200)
          .map((a) => a.body.duplicate)
          .sort(),
      ).toEqual([false, true]);
    }
    await listener.waitForStdout((lines) => lines.length === 80);
    const printed = listener.stdout.map((line) => JSON.parse(line) as { id: string; duplicate: boolean });
    expect(
      printed
        .filter((e) => !e.duplicate)
        .map((e) => e.id)
        .sort(),
    ).toEqual(fresh.map((e) => e.id).sort());
    expect(printed.filter((e) => e.duplicate)).toHaveLength(20);
    await listener.waitForStderr(
      (lines) => lines.filter((l) => l.includes('signature mismatch')).length === 20,
    );
  });

  it('marks duplicates in human output and remembers ids across restarts with --state', async () => {
    const state = join(tempDir(), 'seen.json');
    listener = await startListener(['--state', state], env);
    const { id, body } = event();
    await post(listener.url, body, signed(id, body));
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(listener.stdout[0]).toMatch(/signer\.signed\s+env_1\s+Layla Haddad\s+signed/);
    await listener.stop();
    listener = await startListener(['--state', state], env);
    await post(listener.url, body, signed(id, body));
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(listener.stdout[0]).toContain(`duplicate #2 of ${id}`);
  });

  it('--forward-to delivers body and signature headers to a real local app and answers with its status', async () => {
    const app = await startReceiver(() => 202);
    try {
      listener = await startListener(['--forward-to', app.url], env);
      const { id, body } = event();
      const response = await post(listener.url, body, signed(id, body));
      expect(response.status).toBe(202);
      expect(app.deliveries).toHaveLength(1);
      expect(app.deliveries[0]!.body).toBe(body);
      // The app can verify the original signature itself.
      expect(() =>
        wh.verify(app.deliveries[0]!.body, app.deliveries[0]!.headers as Record<string, string>),
      ).not.toThrow();
      await listener.waitForStdout((lines) => lines.length === 1);
      expect(listener.stdout[0]).toMatch(/→ 202/);
    } finally {
      await app.close();
    }
    // With the app gone the sender gets a 502, so the service will retry later.
    const { id, body } = event();
    expect((await post(listener.url, body, signed(id, body))).status).toBe(502);
    await listener.waitForStdout((lines) => lines.length === 2);
    expect(listener.stdout[1]).toMatch(/forward failed/);
  });

  it("--forward-to with --json keeps the JSON line as is and reports the app's answer on stderr", async () => {
    const app = await startReceiver(() => 503);
    try {
      listener = await startListener(['--json', '--forward-to', app.url], env);
      const { id, body } = event();
      expect((await post(listener.url, body, signed(id, body))).status).toBe(503);
      await listener.waitForStdout((lines) => lines.length === 1);
      expect(Object.keys(JSON.parse(listener.stdout[0]!))).toEqual([
        'id',
        'type',
        'timestamp',
        'duplicate',
        'payload',
      ]);
      await listener.waitForStderr((lines) => lines.some((line) => line.startsWith(`${id} → 503`)));
    } finally {
      await app.close();
    }
    const { id, body } = event();
    expect((await post(listener.url, body, signed(id, body))).status).toBe(502);
    await listener.waitForStderr((lines) => lines.some((line) => line.startsWith(`${id} → forward failed:`)));
  });

  it('never prints the secret, only its masked form', async () => {
    listener = await startListener([], env);
    const { id, body } = event();
    await post(listener.url, body, signed(id, body));
    await listener.waitForStdout((lines) => lines.length === 1);
    await listener.stop();
    const all = [...listener.stdout, ...listener.stderr].join('\n');
    expect(all).toContain('whsec_****LaSw');
    expect(all).not.toContain(SECRET.slice(6, -4));
    listener = undefined;
  });

  it('exits 2 for a bad --forward-to or a --state file it did not write', async () => {
    expect(
      (await runCommand(['webhooks', 'listen', '--port', '0', '--forward-to', 'ftp://x'], { env })).code,
    ).toBe(2);
    const state = join(tempDir(), 'state.json');
    writeFileSync(state, '');
    const bad = await runCommand(['webhooks', 'listen', '--port', '0', '--state', state], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`--state ${state}: not a state file`);
  });

  it('exits 2 without a secret', async () => {
    const result = await runCommand(['webhooks', 'listen', '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SIGN_WEBHOOK_SECRET');
  });

  it('receives the sandbox journey end to end with the sandbox secret', async () => {
    const sandbox = await startTestSandbox({ speed: 40 });
    try {
      listener = await startListener(['--json'], { SIGN_WEBHOOK_SECRET: sandbox.webhookSecret });
      const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const input = join(tempDir(), 'envelope.json');
      writeFileSync(input, JSON.stringify({ ...example, webhook_url: `${listener.url}/webhooks` }));
      const created = await runCommand(['envelopes', 'create', '-f', input], {
        env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
      });
      expect(created.code).toBe(0);
      await listener.waitForStdout((lines) => lines.some((l) => JSON.parse(l).type === 'envelope.completed'));
      const types = listener.stdout
        .map((l) => JSON.parse(l))
        .filter((e) => !e.duplicate)
        .map((e) => e.type);
      expect(types).toEqual([
        'envelope.created',
        'envelope.sent',
        'signer.notified',
        'signer.viewed',
        'signer.verified',
        'signer.signed',
        'signer.notified',
        'signer.viewed',
        'signer.signed',
        'envelope.completed',
      ]);
      expect(listener.stderr.filter((l) => l.startsWith('✗'))).toEqual([]);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('webhooks listen --save-dir', () => {
  const sandbox = { webhookSecret: SECRET };

  it('keeps each delivery as received, in the form webhooks verify --request-file takes', async () => {
    const dir = join(tempDir(), 'deliveries');
    const secretFile = join(tempDir(), 'secret.txt');
    writeFileSync(secretFile, `${sandbox.webhookSecret}\n`);
    const listener = await startListener(['--secret-file', secretFile, '--save-dir', dir]);
    try {
      const trigger = await runCommand([
        'webhooks',
        'trigger',
        'signer.signed',
        '--to',
        `${listener.url}/hooks`,
        '--secret-file',
        secretFile,
      ]);
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
    expect(readFileSync(path, 'latin1')).toMatch(
      /^POST \/hooks HTTP\/1\.1\r\n[\s\S]*webhook-signature: v1,/i,
    );
    const verified = await runCommand([
      'webhooks',
      'verify',
      '--request-file',
      path,
      '--secret-file',
      secretFile,
      '--tolerance',
      '0',
    ]);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/✓ valid standard signature for evt_/);
    // One byte changed in the body: the signature no longer holds.
    const raw = readFileSync(path);
    raw[raw.length - 2] = raw[raw.length - 2] === 0x7d ? 0x5d : 0x7d;
    writeFileSync(path, raw);
    expect(
      (
        await runCommand([
          'webhooks',
          'verify',
          '--request-file',
          path,
          '--secret-file',
          secretFile,
          '--tolerance',
          '0',
        ])
      ).code,
    ).toBe(1);
  });
});
