/**
 * The webhook debugging loop, in process: `listen --events` with routed
 * `--forward-to` targets to real local apps (one failing, one over HTTPS with
 * a self-signed certificate), `trigger --set`, Ed25519 (`v1a`) from the
 * sandbox and from trigger, and `verify` explaining a failure.
 */
import { createServer } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newEd25519KeyPair, signStandard } from '../../../../src/core/webhooks/webhooks.js';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { runCommand, startCommand, startListener, type TestListener } from '../../../helpers/in-process.js';
import { startReceiver, type Receiver } from '../../../helpers/receiver.js';
import { SECRET, env, wh } from '../../../helpers/webhook-events.js';

function delivery(type: string, id = `evt_${Math.random().toString(36).slice(2)}`) {
  const body = JSON.stringify({
    id,
    type,
    timestamp: new Date().toISOString(),
    data: { envelope_id: 'env_1', contract_id: 'C-1', envelope_status: 'sent' },
  });
  const at = new Date();
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': wh.sign(id, at, body),
  };
  return { id, body, headers };
}

const post = (url: string, d: { body: string; headers: Record<string, string> }) =>
  fetch(url, { method: 'POST', headers: d.headers, body: d.body });

let listener: TestListener | undefined;
const apps: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await listener?.stop();
  listener = undefined;
  for (const app of apps.splice(0)) await app.close();
});

async function app(answer: (n: number) => number): Promise<Receiver> {
  const receiver = await startReceiver(answer);
  apps.push(receiver);
  return receiver;
}

describe('webhooks listen: filter and route', () => {
  it('--events filters; each event goes to every matching --forward-to with its body, signature and --forward-header', async () => {
    const signers = await app(() => 200);
    const everything = await app(() => 202);
    listener = await startListener(
      [
        '--events',
        'signer.*,envelope.completed',
        '--forward-to',
        `signer.*=${signers.url}`,
        '--forward-to',
        everything.url,
        '--forward-header',
        'x-env: local-test',
      ],
      env,
    );
    const signed = delivery('signer.signed');
    expect((await post(listener.url, signed)).status).toBe(200); // both took it
    const completed = delivery('envelope.completed');
    expect((await post(listener.url, completed)).status).toBe(202); // one target: its answer, as is
    const sent = delivery('envelope.sent');
    const filtered = await post(listener.url, sent);
    expect(filtered.status).toBe(200); // verified and answered, so the sender does not retry…
    await listener.waitForStdout((lines) => lines.length === 2);

    expect(signers.deliveries.map((d) => JSON.parse(d.body).type)).toEqual(['signer.signed']);
    expect(everything.deliveries.map((d) => JSON.parse(d.body).type)).toEqual([
      'signer.signed',
      'envelope.completed',
    ]);
    for (const received of [...signers.deliveries, ...everything.deliveries]) {
      expect(received.headers['x-env']).toBe('local-test');
      // The original body and signature: the app verifies it itself.
      expect(() => wh.verify(received.body, received.headers as Record<string, string>)).not.toThrow();
    }
    // …but neither printed nor forwarded.
    expect(listener.stdout.join('\n')).not.toContain('envelope.sent');
    expect(listener.stdout[0]).toMatch(
      new RegExp(`signer\\.signed .*→ ${signers.url} 200 \\d+ ms  → ${everything.url} 202 \\d+ ms$`),
    );
    expect(listener.stdout[1]).toMatch(/envelope\.completed .*→ 202 \d+ ms$/);
    await listener.stop();
    expect(listener.stderr.at(-1)).toBe(
      'received 3, verified 3, rejected 0, duplicates 0, not shown (outside --events) 1',
    );
  });

  it('a failing app is marked and the sender gets its status; --verbose shows what the app said', async () => {
    const failing = await app(() => 500);
    listener = await startListener(['--verbose', '--forward-to', failing.url], env);
    const d = delivery('signer.viewed');
    expect((await post(listener.url, d)).status).toBe(500);
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(listener.stdout[0]).toMatch(/signer\.viewed .*→ 500 ✗ \d+ ms$/);
    await listener.waitForStderr((lines) => lines.some((l) => l.startsWith(`  ← ${failing.url}: `)));
  });

  it('--forward-insecure reaches a local HTTPS app with a self-signed certificate; without it, the forward fails', async () => {
    const received: string[] = [];
    const server = createServer(
      {
        key: readFileSync(join(ROOT, 'test/fixtures/self-signed-key.pem')),
        cert: readFileSync(join(ROOT, 'test/fixtures/self-signed-cert.pem')),
      },
      (req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          received.push(body);
          res.end('ok');
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apps.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

    listener = await startListener(['--forward-to', url], env);
    expect((await post(listener.url, delivery('signer.signed'))).status).toBe(502);
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(listener.stdout[0]).toMatch(/forward failed: .*(certificate|CERT)/i);
    await listener.stop();

    listener = await startListener(['--forward-to', url, '--forward-insecure'], env);
    expect((await post(listener.url, delivery('signer.signed'))).status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('--query applies to each event line; one that fails on an event is reported and the listener stays up', async () => {
    listener = await startListener(['--query', 'type'], env);
    expect((await post(listener.url, delivery('signer.signed'))).status).toBe(200);
    await listener.waitForStdout((lines) => lines.length === 1);
    expect(listener.stdout[0]).toBe('signer.signed');
    await listener.stop();
    listener = await startListener(['--query', 'abs(type)'], env);
    expect((await post(listener.url, delivery('signer.signed'))).status).toBe(200);
    await listener.waitForStderr((lines) =>
      lines.some((l) => l.startsWith('error: --query "abs(type)" could not be applied')),
    );
    expect((await post(listener.url, delivery('signer.viewed'))).status).toBe(200);
  });

  it.each([
    [['--events', ' , '], '--events needs at least one event type'],
    [['--events', 'signer.(x)'], 'is not an event type or glob'],
    [['--forward-to', 'signer.*=ftp://x'], '--forward-to must be [<glob>=]<http(s) URL>'],
    [
      ['--forward-to', 'http://127.0.0.1:1/', '--forward-header', 'webhook-signature: v1,forged'],
      'cannot set webhook-signature',
    ],
    [['--forward-to', 'http://127.0.0.1:1/', '--forward-header', 'no colon'], "write it as 'name: value'"],
    [['--forward-header', 'x-a: b'], '--forward-header needs --forward-to'],
  ])('%j is exit 2 before anything listens', async (args, message) => {
    const result = await runCommand(['webhooks', 'listen', '--port', '0', ...args], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('listening on');
  });
});

describe('Ed25519 (v1a) end to end', () => {
  it('trigger signs with whsk_ and --set overrides; listen verifies with the whpk_ key (beside a whsec_ one)', async () => {
    const pair = newEd25519KeyPair();
    listener = await startListener(['--json'], { SIGN_WEBHOOK_SECRET: `${SECRET},${pair.publicKey}` });
    const result = await runCommand(
      [
        'webhooks',
        'trigger',
        'signer.declined',
        '--to',
        listener.url,
        '--set',
        'data.signer.name=Omar Khalil',
        '--set',
        'data.reason="wrong_document"',
        '--set',
        'data.extra.n=3',
      ],
      {
        env: { SIGN_WEBHOOK_SECRET: pair.secretKey },
      },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    await listener.waitForStdout((lines) => lines.length === 1);
    const event = JSON.parse(listener.stdout[0]!) as {
      type: string;
      payload: { data: { signer: { name: string }; reason: string; extra: { n: number } } };
    };
    expect(event.type).toBe('signer.declined');
    expect(event.payload.data.signer.name).toBe('Omar Khalil');
    expect(event.payload.data.reason).toBe('wrong_document');
    expect(event.payload.data.extra.n).toBe(3);
    // A listener with the HMAC secret alone says what is missing.
    await listener.stop();
    listener = await startListener([], env);
    await runCommand(['webhooks', 'trigger', 'signer.signed', '--to', listener.url], {
      env: { SIGN_WEBHOOK_SECRET: pair.secretKey },
    });
    await listener.waitForStderr((lines) =>
      lines.some((l) =>
        l.includes(
          "signed with Ed25519 (v1a) only, but no public key (whpk_) was given; add the sender's whpk_ key",
        ),
      ),
    );
    // And a public key cannot sign.
    const refused = await runCommand(['webhooks', 'trigger', 'signer.signed', '--to', listener.url], {
      env: { SIGN_WEBHOOK_SECRET: pair.publicKey },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('a whpk_ public key verifies but cannot sign');
  });

  it('sandbox --signing ed25519 signs every delivery v1a and prints webhook_public_key; listen verifies with it', async () => {
    const dataDir = tempDir('sign-cli-sandbox-');
    const run = startCommand([
      'sandbox',
      '--port',
      '0',
      '--json',
      '--data-dir',
      dataDir,
      '--signing',
      'ed25519',
      '--speed',
      '20',
    ]);
    try {
      await run.waitFor('\n');
      const first = JSON.parse(run.io.stdout.text.split('\n')[0]!) as {
        base_url: string;
        api_key: string;
        webhook_secret: string;
        webhook_public_key: string;
      };
      const sandbox = { baseUrl: first.base_url, apiKey: first.api_key, webhookSecret: first.webhook_secret };
      const info = readFileSync(join(dataDir, 'credentials.env'), 'utf8');
      const publicKey = /SIGN_WEBHOOK_PUBLIC_KEY='(whpk_[^']+)'/.exec(info)?.[1];
      expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
      expect(first.webhook_public_key).toBe(publicKey);
      expect(info).toContain(`SIGN_WEBHOOK_SECRET='${sandbox.webhookSecret},${publicKey}'`);
      listener = await startListener(['--json'], { SIGN_WEBHOOK_SECRET: publicKey });
      const example = JSON.parse(readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const created = await runCommand(['envelopes', 'create', '-f', '-', '--query', 'envelope.id'], {
        env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
        input: JSON.stringify({ ...example, webhook_url: `${listener.url}/hooks` }),
      });
      expect(created.code).toBe(0);
      await listener.waitForStdout((lines) => lines.some((l) => l.includes('envelope.completed')), 60_000);
      expect(listener.stderr.filter((l) => l.startsWith('✗'))).toEqual([]);
    } finally {
      run.interrupt();
      expect((await run.done).code).toBe(0);
    }
  });
});

describe('webhooks verify explains a failure', () => {
  it('a body changed in transit is named as such, not as a wrong secret', async () => {
    const dir = tempDir();
    const now = Math.floor(Date.now() / 1000);
    const sent = JSON.stringify({ id: 'evt_v', type: 'signer.signed' }, null, 2);
    const headers = signStandard(SECRET, 'evt_v', now, sent);
    writeFileSync(join(dir, 'body.json'), JSON.stringify(JSON.parse(sent)));
    const args = [
      'webhooks',
      'verify',
      '--body-file',
      join(dir, 'body.json'),
      ...Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`]),
    ];
    const altered = await runCommand(args, { env });
    expect(altered.code).toBe(1);
    expect(altered.stderr).toMatch(/^✗ invalid: body altered in transit \(the JSON re-serialised\)/);
    const wrong = await runCommand(args, {
      env: { SIGN_WEBHOOK_SECRET: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(wrong.stderr).toContain('wrong secret');
  });
});
