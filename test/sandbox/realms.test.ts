/**
 * The sandbox keeps accounts and environments apart, as the service does:
 * what a key makes belongs to its (account, environment); another's key is
 * told it does not exist (404), lists none of it, and has Idempotency-Keys of
 * its own. A rotated key of the same account and environment sees it all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const ENVELOPE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;

let sandbox: SandboxProcess;
let live: string;
let liveReader: string;
let otherAccount: string;
let rotated: string;
let testReader: string;

const api = (
  key: string,
  path: string,
  init: { method?: string; body?: unknown; idempotencyKey?: string } = {},
) =>
  fetch(`${sandbox.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(init.idempotencyKey ? { 'idempotency-key': init.idempotencyKey } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', '100'] });
  const mint = async (body: Record<string, unknown>) =>
    await sandbox.control<{ key: string; account: string; environment: string }>('/_sandbox/keys', body);
  const liveKey = await mint({ environment: 'live', name: 'live' });
  expect(liveKey).toMatchObject({ environment: 'live', account: 'acct_sandbox' });
  live = liveKey.key;
  expect(live).toMatch(/^sk_live_/);
  liveReader = (await mint({ environment: 'live', scopes: ['envelopes:read'] })).key;
  otherAccount = (await mint({ environment: 'test', account: 'acct_second' })).key;
  rotated = (await mint({ environment: 'test', name: 'rotated' })).key;
  testReader = (await mint({ environment: 'test', scopes: ['envelopes:read'] })).key;
});

afterAll(async () => {
  await sandbox?.stop();
});

describe('realms: every envelope belongs to the account and environment of the key that made it', () => {
  it("another environment's or account's key is told a test envelope does not exist: get, void, audit, signed copy (404)", async () => {
    const created = (await (
      await api(sandbox.apiKey, '/api/v1/envelopes', {
        method: 'POST',
        body: { ...ENVELOPE, contract_id: 'REALM-1' },
        idempotencyKey: 'realm-1',
      })
    ).json()) as { id: string; environment: string };
    expect(created.environment).toBe('test');
    for (const key of [live, otherAccount]) {
      for (const path of [
        `/api/v1/envelopes/${created.id}`,
        `/api/v1/envelopes/${created.id}/audit-trail`,
        `/api/v1/envelopes/${created.id}/signed-copy`,
      ]) {
        const response = await api(key, path);
        expect([path, response.status]).toEqual([path, 404]);
        expect(((await response.json()) as { code: string }).code).toBe('envelope_not_found');
      }
      const voided = await api(key, `/api/v1/envelopes/${created.id}/void`, {
        method: 'POST',
        body: { reason: 'not yours' },
        idempotencyKey: `void-${key.slice(-6)}`,
      });
      expect(voided.status).toBe(404);
    }
    // The same account and environment, with a rotated key: everything is there.
    expect((await api(rotated, `/api/v1/envelopes/${created.id}`)).status).toBe(200);
    expect((await api(testReader, `/api/v1/envelopes/${created.id}`)).status).toBe(200);
    const state = (await (await api(sandbox.apiKey, `/api/v1/envelopes/${created.id}`)).json()) as {
      status: string;
    };
    expect(state.status).not.toBe('voided');
  });

  it("a test key, even with envelopes:read, cannot read a live envelope; listings hold only the realm's own", async () => {
    const liveEnvelope = (await (
      await api(live, '/api/v1/envelopes', {
        method: 'POST',
        body: { ...ENVELOPE, contract_id: 'REALM-LIVE' },
        idempotencyKey: 'realm-live',
      })
    ).json()) as { id: string; environment: string };
    expect(liveEnvelope.environment).toBe('live');
    expect((await api(testReader, `/api/v1/envelopes/${liveEnvelope.id}`)).status).toBe(404);
    expect((await api(liveReader, `/api/v1/envelopes/${liveEnvelope.id}`)).status).toBe(200);
    const ids = async (key: string) =>
      (
        (await (await api(key, '/api/v1/envelopes?limit=100')).json()) as {
          data: { id: string; environment: string }[];
        }
      ).data;
    const liveList = await ids(live);
    expect(liveList.map((e) => e.id)).toContain(liveEnvelope.id);
    expect(liveList.every((e) => e.environment === 'live')).toBe(true);
    expect((await ids(sandbox.apiKey)).map((e) => e.id)).not.toContain(liveEnvelope.id);
    expect(await ids(otherAccount)).toEqual([]);
  });

  it('Idempotency-Keys are per account and environment: the same key and body create one envelope in each realm; a rotated key replays', async () => {
    const body = { ...ENVELOPE, contract_id: 'REALM-IDEM' };
    const first = await api(sandbox.apiKey, '/api/v1/envelopes', {
      method: 'POST',
      body,
      idempotencyKey: 'shared-key',
    });
    const inLive = await api(live, '/api/v1/envelopes', {
      method: 'POST',
      body,
      idempotencyKey: 'shared-key',
    });
    const inOther = await api(otherAccount, '/api/v1/envelopes', {
      method: 'POST',
      body,
      idempotencyKey: 'shared-key',
    });
    const again = await api(rotated, '/api/v1/envelopes', {
      method: 'POST',
      body,
      idempotencyKey: 'shared-key',
    });
    expect([first.status, inLive.status, inOther.status, again.status]).toEqual([201, 201, 201, 201]);
    expect([first, inLive, inOther, again].map((r) => r.headers.get('idempotent-replayed'))).toEqual([
      null,
      null,
      null,
      'true',
    ]);
    const [a, b, c, d] = await Promise.all(
      [first, inLive, inOther, again].map(async (r) => ((await r.json()) as { id: string }).id),
    );
    expect(new Set([a, b, c]).size).toBe(3);
    expect(d).toBe(a);
  });

  it("deliveries and resends belong to their envelope's realm; the key listing to the account", async () => {
    const hooks = 'http://127.0.0.1:9/hooks';
    const created = (await (
      await api(sandbox.apiKey, '/api/v1/envelopes', {
        method: 'POST',
        body: { ...ENVELOPE, contract_id: 'REALM-HOOK', webhook_url: hooks },
        idempotencyKey: 'realm-hook',
      })
    ).json()) as { id: string };
    const deadline = Date.now() + 60_000;
    let mine: { event_id: string; envelope_id: string }[] = [];
    while (mine.length === 0 && Date.now() < deadline) {
      mine = (
        (await (
          await api(sandbox.apiKey, `/api/v1/webhook-deliveries?envelope_id=${created.id}`)
        ).json()) as { data: typeof mine }
      ).data;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(mine.length).toBeGreaterThan(0);
    const theirs = (
      (await (await api(live, `/api/v1/webhook-deliveries?envelope_id=${created.id}`)).json()) as {
        data: unknown[];
      }
    ).data;
    expect(theirs).toEqual([]);
    const resend = await api(live, `/api/v1/events/${mine[0]!.event_id}/resend`, {
      method: 'POST',
      body: {},
      idempotencyKey: 'realm-resend',
    });
    expect(resend.status).toBe(404);
    const keysOf = async (key: string) =>
      (
        (await (await api(key, '/api/v1/api-keys')).json()) as {
          data: { name: string; environment: string }[];
        }
      ).data;
    expect((await keysOf(live)).map((k) => k.environment)).toEqual(expect.arrayContaining(['test', 'live']));
    expect(await keysOf(otherAccount)).toHaveLength(1);
  });

  it('POST /_sandbox/keys refuses a malformed account', async () => {
    const response = await fetch(`${sandbox.baseUrl}/_sandbox/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ account: 'not an account' }),
    });
    expect(response.status).toBe(400);
  });
});
