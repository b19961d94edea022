/**
 * `webhooks listen --inspect`, in process, over real HTTP on 127.0.0.1: the JSON API (a forged
 * delivery with its reason, the detail with the secret masked), replay as received and edited
 * (signed again) to a receiver built on the standardwebhooks package and to the listener
 * itself, kept across a restart (where Node has node:sqlite), the Host check and the refusal of
 * cross-site POSTs, and the flags' mistakes.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ED25519_PUBLIC_PREFIX, newEd25519KeyPair } from '../../../../src/core/webhooks/webhook-signing.js';
import { loadSqlite } from '../../../../src/listener/inspector/sqlite.js';
import { runCommand, startListener, testEnv, type TestListener } from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';
import { startTestReceiver, type TestReceiver } from '../../../helpers/webhook-receivers.js';
import { SECRET, env, event, post, signed } from '../../../helpers/webhook-events.js';

const sqlite = loadSqlite() !== undefined;
/** What the API answered, read as JSON (the assertions say what it holds). */
type Json = ReturnType<typeof JSON.parse>;
let listeners: TestListener[] = [];
const receivers: TestReceiver[] = [];

afterEach(async () => {
  for (const listener of listeners.splice(0)) await listener.stop();
  for (const receiver of receivers.splice(0)) await receiver.close();
});

async function listen(
  args: string[],
  extraEnv: Record<string, string | undefined> = {},
): Promise<TestListener & { inspector: string }> {
  const listener = await startListener(['--inspect', '0', ...args], { ...env, ...extraEnv });
  listeners.push(listener);
  expect(listener.inspector).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  return listener as TestListener & { inspector: string };
}

async function receiver(): Promise<TestReceiver> {
  const started = await startTestReceiver({ library: 'standardwebhooks', secret: SECRET });
  receivers.push(started);
  return started;
}

const api = async (base: string, path: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, base), init);
  return { status: response.status, json: (await response.json()) as Json };
};

const replay = (base: string, id: number, request: unknown, headers: Record<string, string> = {}) =>
  api(base, `api/deliveries/${id}/replay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(request),
  });

/** Waits until the deliveries the API lists (newest first) pass `done`; returns them. */
async function kept(base: string, done: (list: Json[]) => boolean, query = ''): Promise<Json[]> {
  for (let tries = 0; ; tries++) {
    const { json } = await api(base, `api/deliveries${query}`);
    if (done(json.deliveries) || tries > 400) return json.deliveries;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Waits until the API lists at least `count` deliveries. */
const deliveries = (base: string, count: number, query = '') =>
  kept(base, (list) => list.length >= count, query);

describe('webhooks listen --inspect: the API', () => {
  it('lists verified and forged deliveries, newest first, each refused one with its reason', async () => {
    const listener = await listen([]);
    const { id, body } = event('evt_good');
    expect((await post(`${listener.url}/hooks`, body, signed(id, body))).status).toBe(200);
    const forged = event('evt_forged');
    const headers = {
      ...signed(forged.id, forged.body),
      'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    };
    expect((await post(`${listener.url}/hooks`, forged.body, headers)).status).toBe(401);
    const [newest, oldest] = await deliveries(listener.inspector, 2);
    expect(oldest).toMatchObject({
      id: 1,
      type: 'signer.signed',
      event_id: 'evt_good',
      envelope_id: 'env_1',
      verified: true,
      reason: null,
      duplicate: false,
      answered: 200,
      forwards: [],
    });
    expect(newest).toMatchObject({
      id: 2,
      verified: false,
      code: 'signature_mismatch',
      answered: 401,
      event_id: 'evt_forged',
      type: 'signer.signed',
    });
    expect(newest.reason).toMatch(/^signature mismatch: 1 signature checked against the secret/);
    // Filters, as the page's form sends them.
    expect((await deliveries(listener.inspector, 1, '?status=refused')).map((d) => d.id)).toEqual([2]);
    expect((await deliveries(listener.inspector, 1, '?q=evt_good')).map((d) => d.id)).toEqual([1]);
    expect((await api(listener.inspector, 'api/deliveries?status=lost')).json).toEqual({
      error: 'status must be one of verified, refused, duplicate, forward-failed, got "lost"',
    });
  });

  it('tells the page’s stream of deliveries while they keep coming, and lists every one when asked', async () => {
    const listener = await listen([]);
    const stream = await new Promise<IncomingMessage>((resolve, reject) =>
      get(new URL('api/stream', listener.inspector), { agent: false }, resolve).on('error', reject),
    );
    let heard = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (heard += chunk));
    try {
      expect(stream.headers['content-type']).toBe('text/event-stream');
      // Deliveries 10 ms apart, never the pause the store waits for to write them (a tenth of a
      // second; it writes every 5 s while they keep coming), until the stream (at most one event
      // every 250 ms) says they came.
      const ids: string[] = [];
      for (let n = 0; n < 500 && !/event: kept/.test(heard); n++) {
        const { id, body } = event(`evt_stream_${n}`);
        expect((await post(`${listener.url}/hooks`, body, signed(id, body))).status).toBe(200);
        ids.push(id);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(heard).toMatch(/event: kept\ndata: \{"newest":\d+\}/);
      const { json } = await api(listener.inspector, `api/deliveries?limit=${ids.length}`);
      expect(json.deliveries.map((d: Json) => d.event_id)).toEqual(ids.reverse());
    } finally {
      stream.destroy();
    }
  });

  it("shows a delivery's headers, body and signature verdict, every secret masked", async () => {
    const listener = await listen([], { SIGN_API_KEY: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    // A body that holds the secret and the API key (a sender's mistake): never shown whole.
    const { id } = event('evt_leaky');
    const body = JSON.stringify({
      id,
      type: 'envelope.completed',
      data: { envelope_id: 'env_9', note: `${SECRET} sk_test_4eC39HqLyjWDarjtT1zdp7dc` },
    });
    expect((await post(`${listener.url}/a`, body, signed(id, body))).status).toBe(200);
    await deliveries(listener.inspector, 1);
    const detail = await fetch(new URL('api/deliveries/1', listener.inspector));
    const text = await detail.text();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice('whsec_'.length));
    expect(text).not.toContain('sk_test_4eC39HqLyjWDarjtT1zdp7dc');
    const json = JSON.parse(text);
    expect(json.signature).toMatchObject({
      scheme: 'standard',
      verified: true,
      secret: 'whsec_****LaSw',
      tolerance_seconds: 300,
    });
    expect(json.signature.age_seconds).toBeGreaterThanOrEqual(0);
    expect(json.headers).toEqual(expect.arrayContaining([{ name: 'webhook-id', value: id }]));
    expect(json.body).toContain('whsec_****LaSw');
    expect(json.body_bytes).toBe(Buffer.byteLength(body));
    expect(detail.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await api(listener.inspector, 'api/deliveries/99')).status).toBe(404);
  });

  it('replays as received to the forward targets, and edited and signed again to a standardwebhooks receiver and to the listener itself', async () => {
    const app = await receiver();
    const listener = await listen(['--forward-to', app.url]);
    const { id, body } = event('evt_replayed');
    expect((await post(`${listener.url}/hooks`, body, signed(id, body))).status).toBe(200);
    const [first] = await deliveries(listener.inspector, 1);
    expect(first.forwards).toEqual([
      expect.objectContaining({ kind: 'forward', url: app.url, status: 200, error: null }),
    ]);
    expect(app.handled).toEqual(['signer.signed']);

    // As received: the same id and signature, so the app's de-duplication answers it as a repeat.
    const asReceived = await replay(listener.inspector, 1, {});
    expect(asReceived.status).toBe(200);
    expect(asReceived.json.replay).toMatchObject({
      delivery: 1,
      edited: false,
      signed: null,
      attempts: [{ kind: 'replay', url: app.url, status: 200, answer: 'duplicate' }],
    });

    // Edited: a new body, signed again with a fresh timestamp and a new id; the package's verifier takes it.
    const edited = JSON.stringify({
      id: 'evt_edited',
      type: 'envelope.completed',
      data: { envelope_id: 'env_2' },
    });
    const again = await replay(listener.inspector, 1, { body: edited, headers: { 'x-test': 'edited' } });
    expect(again.status).toBe(200);
    expect(again.json.replay).toMatchObject({
      edited: true,
      signed: { scheme: 'standard', secret: 'whsec_****LaSw', id: expect.stringMatching(/^msg_/) },
      attempts: [{ kind: 'edited', status: 200 }],
    });
    expect(app.handled).toEqual(['signer.signed', 'envelope.completed']);

    // To the listener itself: it verifies the new signature as it would any delivery.
    const self = await replay(listener.inspector, 1, { body: edited, to: `${listener.url}/self` });
    expect(self.json.replay.attempts).toEqual([
      expect.objectContaining({ url: `${listener.url}/self`, status: 200 }),
    ]);
    const [selfDelivery] = await deliveries(listener.inspector, 2);
    expect(selfDelivery).toMatchObject({
      id: 2,
      path: '/self',
      verified: true,
      type: 'envelope.completed',
      envelope_id: 'env_2',
    });
    // The replays are kept beside the delivery, after its forward.
    const detail = (await api(listener.inspector, 'api/deliveries/1')).json;
    expect(detail.replays.map((r: Json) => [r.kind, r.status])).toEqual([
      ['replay', 200],
      ['edited', 200],
      ['edited', 200],
    ]);
  });

  it('refuses replays it cannot make as asked, and sends nothing', async () => {
    const app = await receiver();
    const listener = await listen(['--max-body', '2048']);
    const { id, body } = event('evt_x');
    await post(`${listener.url}/hooks`, body, signed(id, body));
    await deliveries(listener.inspector, 1);
    expect((await replay(listener.inspector, 1, {})).json).toEqual({
      error: 'nothing to replay to: no --forward-to target takes signer.signed; give a URL in "to"',
    });
    // TEST-NET-3, a documentation address: refused before any connection is made.
    expect((await replay(listener.inspector, 1, { to: 'http://203.0.113.9/hooks' })).json).toEqual({
      error:
        'to: 203.0.113.9 is not this machine or a private network; start the listener with --allow-remote to replay there',
    });
    expect(
      (
        await replay(listener.inspector, 1, {
          body: '{}',
          to: app.url,
          headers: { 'webhook-signature': 'v1,x' },
        })
      ).json,
    ).toEqual({
      error: 'headers: webhook-signature is set by the signing, with a fresh timestamp',
    });
    expect((await replay(listener.inspector, 1, { bodyy: '{}' })).json).toEqual({
      error: '"bodyy" is not a field: use body, headers or to',
    });
    expect((await replay(listener.inspector, 1, { to: 'ftp://127.0.0.1/' })).status).toBe(400);
    // A request past room for a body of the listener's limit (2048), escaped in JSON: 6 × 2048 + 64 KiB.
    expect(await replay(listener.inspector, 1, { body: 'x'.repeat(80_000), to: app.url })).toEqual({
      status: 413,
      json: { error: 'the request is over 77824 bytes' },
    });
    expect(app.requests).toBe(0);
  });

  it('cannot sign an edit again with only a public key, and says what it needs', async () => {
    const { secretKey, publicKey } = newEd25519KeyPair();
    expect(publicKey.startsWith(ED25519_PUBLIC_PREFIX)).toBe(true);
    const app = await receiver();
    const listener = await listen([], { SIGN_WEBHOOK_SECRET: publicKey });
    const { id, body } = event('evt_ed');
    const { signStandard } = await import('../../../../src/core/webhooks/webhook-signing.js');
    const headers = {
      'content-type': 'application/json',
      ...signStandard(secretKey, id, Math.floor(Date.now() / 1000), body),
    };
    expect((await post(listener.url, body, headers)).status).toBe(200);
    await deliveries(listener.inspector, 1);
    const refused = await replay(listener.inspector, 1, { body, to: app.url });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatch(/only public keys \(whpk_\), which verify but cannot sign/);
    expect(app.requests).toBe(0);
  });
});

describe('webhooks listen --inspect: other sites', () => {
  it('answers only requests that name it in Host (DNS rebinding)', async () => {
    const listener = await listen([]);
    const port = new URL(listener.inspector).port;
    const { request } = await import('node:http');
    const get = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/api/deliveries', headers: { host } },
          (res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect((await get(`attacker.example:${port}`)).status).toBe(403);
    expect((await get(`attacker.example:${port}`)).body).toContain('is not this inspector');
    expect((await get(`127.0.0.1:${Number(port) + 1}`)).status).toBe(403);
    expect((await get(`localhost:${port}`)).status).toBe(200);
    expect((await get(`127.0.0.1:${port}`)).status).toBe(200);
  });

  it("refuses a browser's cross-site POST and takes a script's", async () => {
    const app = await receiver();
    const listener = await listen(['--forward-to', app.url]);
    const { id, body } = event('evt_csrf');
    await post(listener.url, body, signed(id, body));
    await deliveries(listener.inspector, 1);
    const origin = new URL(listener.inspector).origin;
    const refusals = [
      [{ origin: 'http://attacker.example' }, 403],
      [{ 'sec-fetch-site': 'cross-site' }, 403],
      [{ 'sec-fetch-site': 'same-site' }, 403],
      [{ 'content-type': 'text/plain' }, 415],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 415],
    ] as const;
    for (const [headers, status] of refusals)
      expect((await replay(listener.inspector, 1, {}, headers)).status).toBe(status);
    expect(app.requests).toBe(1);
    // The inspector's own page: same origin.
    expect(
      (await replay(listener.inspector, 1, {}, { origin, 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
    // A script: neither header.
    expect((await replay(listener.inspector, 1, {})).status).toBe(200);
    expect(app.requests).toBe(3);
  });
});

describe.runIf(sqlite)('webhooks listen --inspect: kept in SQLite', () => {
  it('shows after a restart what came before, in the state directory or --inspect-db', async () => {
    const stateEnv = { SIGN_STATE_DIR: tempDir('sign-cli-state-') };
    let listener = await listen([], stateEnv);
    for (const n of [1, 2]) {
      const { id, body } = event(`evt_before_${n}`);
      await post(listener.url, body, signed(id, body));
    }
    await deliveries(listener.inspector, 2);
    expect(await listener.stop()).toBe(0);
    listeners = listeners.filter((l) => l !== listener);
    expect(existsSync(join(stateEnv.SIGN_STATE_DIR, 'inspector', 'deliveries.sqlite'))).toBe(true);

    listener = await listen([], stateEnv);
    const { id, body } = event('evt_after');
    await post(listener.url, body, signed(id, body));
    expect((await deliveries(listener.inspector, 3)).map((d) => [d.id, d.event_id])).toEqual([
      [3, 'evt_after'],
      [2, 'evt_before_2'],
      [1, 'evt_before_1'],
    ]);
    await listener.stop();
    listeners = [];
    // --inspect-keep 1 on the next start: the oldest go first.
    const db = join(tempDir(), 'mine.sqlite');
    listener = await listen(['--inspect-db', db, '--inspect-keep', '2']);
    for (const n of [1, 2, 3]) {
      const delivery = event(`evt_kept_${n}`);
      await post(listener.url, delivery.body, signed(delivery.id, delivery.body));
    }
    const newest = await kept(listener.inspector, (list) => list[0]?.event_id === 'evt_kept_3');
    expect(newest.map((d) => d.event_id)).toEqual(['evt_kept_3', 'evt_kept_2']);
  });

  it('refuses a --inspect-db that is not its own, and one another listener is using', async () => {
    const file = join(tempDir(), 'notes.sqlite');
    writeFileSync(file, 'meeting notes, not a database\n'.repeat(40));
    const other = await runCommand(
      ['webhooks', 'listen', '--port', '0', '--inspect', '0', '--inspect-db', file],
      { env },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^error: --inspect-db .*notes\.sqlite is not a SQLite database/);

    const db = join(tempDir(), 'shared.sqlite');
    await listen(['--inspect-db', db]);
    const second = await runCommand(
      ['webhooks', 'listen', '--port', '0', '--inspect', '0', '--inspect-db', db],
      { env },
    );
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/shared\.sqlite is in use by another webhook listener \(pid \d+\)/);
  });
});

describe.runIf(!sqlite)('webhooks listen --inspect on a Node without node:sqlite', () => {
  it('keeps deliveries in memory and says so, and refuses --inspect-db', async () => {
    const listener = await listen([]);
    expect(listener.stderr.join('\n')).toContain(
      `Node ${process.version} has no node:sqlite: the inspector keeps deliveries in memory`,
    );
    const { id, body } = event();
    await post(listener.url, body, signed(id, body));
    expect(await deliveries(listener.inspector, 1)).toHaveLength(1);
    const refused = await runCommand(
      ['webhooks', 'listen', '--port', '0', '--inspect', '0', '--inspect-db', join(tempDir(), 'x.sqlite')],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^error: --inspect-db needs node:sqlite, which Node ${process.version.replace(/\./g, '\\.')} does not have`,
      ),
    );
  });
});

describe('webhooks listen --inspect: flags', () => {
  it.each([
    [['--inspect-db', 'x.sqlite'], 'error: --inspect-db needs --inspect'],
    [['--allow-remote'], 'error: --allow-remote needs --inspect'],
    [['--inspect', 'a b'], 'error: --inspect "a b" is not [host:]port, such as 127.0.0.1:4040, 4041 or 0'],
    [
      ['--inspect', '127.0.0.1:99999'],
      'error: --inspect port must be a whole number from 0 to 65535, got "99999"',
    ],
    [
      ['--inspect', '0', '--inspect-keep', '0'],
      'error: --inspect-keep must be a whole number from 1 to 1000000, got "0"',
    ],
  ])('%j is refused, nothing listening', async (args, message) => {
    const result = await runCommand(['webhooks', 'listen', '--port', '0', ...args], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(message);
  });

  it('says when the inspector port is taken, and the listener does not start', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const result = await runCommand(
        ['webhooks', 'listen', '--port', '0', '--inspect', `127.0.0.1:${port}`],
        { env: { ...env, ...testEnv() } },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use (--inspect)`);
      expect(result.stderr).not.toContain('listening on');
    } finally {
      blocker.close();
    }
  });
});
