/** The sandbox as a client sees it: a spawned process, real HTTP on loopback. */
import { appendFileSync, chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { eventually } from '../helpers/ceremony.js';

const ENVELOPE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;

let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
});

afterAll(async () => {
  await sandbox?.stop();
});

let counter = 0;
function create(
  body: unknown,
  options: { key?: string; idempotencyKey?: string | null; apiKey?: string } = {},
) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.apiKey ?? sandbox.apiKey}`,
    'content-type': 'application/json',
  };
  if (options.idempotencyKey !== null)
    headers['idempotency-key'] = options.idempotencyKey ?? `test-${process.pid}-${++counter}`;
  return fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function errorBody(response: Response): Promise<{ code: string; message: string }> {
  const body = (await response.json()) as { code: string; message: string };
  expect(typeof body.code).toBe('string');
  expect(body.message.length).toBeGreaterThan(5);
  return body;
}

describe('sandbox', () => {
  it('creates a test key with every scope and writes credentials only its owner can read', async () => {
    expect(sandbox.apiKey).toMatch(/^sk_test_[0-9A-Za-z]{32}$/);
    expect(sandbox.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const file = join(sandbox.dataDir, 'credentials.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(sandbox.dataDir, 'state.jsonl')).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(`SIGN_BASE_URL='${sandbox.baseUrl}'`);
  });

  it('creates (201, Location) and reads back an envelope', async () => {
    const response = await create(ENVELOPE);
    expect(response.status).toBe(201);
    const envelope = (await response.json()) as { id: string; signers: { id: string; status: string }[] };
    expect(response.headers.get('location')).toBe(`/api/v1/envelopes/${envelope.id}`);
    expect(envelope.signers.every((s) => s.id.startsWith('sgn_') && s.status === 'pending')).toBe(true);
    const read = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${envelope.id}`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(envelope);
  });

  it('rejects with the core rules: 422 validation_failed, each error with its path', async () => {
    const response = await create({
      ...ENVELOPE,
      signers: [{ name: 'A', channel: 'whatsapp', phone: '050', order: 1 }],
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { code: string; errors: { path: string }[] };
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((e) => e.path)).toEqual(['signers[0].phone']);
  });

  it('has the last word on open values: an unsupported signature level is rejected', async () => {
    const response = await create({ ...ENVELOPE, signature_level: 'platinum' });
    expect(response.status).toBe(422);
    expect((await errorBody(response)).message).toContain('signature_level');
  });

  it('answers 400 without an Idempotency-Key, 415 for non-JSON, 405 and 404 elsewhere', async () => {
    expect((await errorBody(await create(ENVELOPE, { idempotencyKey: null }))).code).toBe(
      'idempotency_key_required',
    );
    const text = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbox.apiKey}`,
        'content-type': 'text/plain',
        'idempotency-key': 'x',
      },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    const del = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(del.status).toBe(405);
    const doubled = await fetch(`${sandbox.baseUrl}/api/api/v1/envelopes`, { method: 'POST' });
    expect(doubled.status).toBe(404);
    expect((await errorBody(doubled)).message).toContain('/api twice');
  });

  describe('API keys', () => {
    it('401 for a missing, unknown or expired key', async () => {
      const missing = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/env_x`);
      expect(missing.status).toBe(401);
      expect((await errorBody(missing)).code).toBe('missing_api_key');
      expect((await errorBody(await create(ENVELOPE, { apiKey: 'sk_test_nope' }))).code).toBe(
        'invalid_api_key',
      );
      const expired = await sandbox.control<{ key: string }>('/_sandbox/keys', { expires: '2021-06-30' });
      const response = await create(ENVELOPE, { apiKey: expired.key });
      expect(response.status).toBe(401);
      expect((await errorBody(response)).code).toBe('expired_api_key');
    });

    it('403 when the key lacks the scope: envelopes:write to create, envelopes:read to read', async () => {
      const writer = await sandbox.control<{ key: string }>('/_sandbox/keys', {
        scopes: ['envelopes:write'],
      });
      const reader = await sandbox.control<{ key: string }>('/_sandbox/keys', { scopes: ['envelopes:read'] });
      const created = await create(ENVELOPE, { apiKey: writer.key });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const denied = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
        headers: { authorization: `Bearer ${writer.key}` },
      });
      expect(denied.status).toBe(403);
      expect((await errorBody(denied)).code).toBe('insufficient_scope');
      expect((await create(ENVELOPE, { apiKey: reader.key })).status).toBe(403);
      const allowed = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
        headers: { authorization: `Bearer ${reader.key}` },
      });
      expect(allowed.status).toBe(200);
    });
  });

  describe('idempotency (IETF Idempotency-Key draft)', () => {
    it('same key and same body: the first response again, marked as replayed', async () => {
      const first = await create(ENVELOPE, { idempotencyKey: 'idem-same' });
      const second = await create(ENVELOPE, { idempotencyKey: 'idem-same' });
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await second.json()).toEqual(await first.json());
    });

    it('same key and another body: 422', async () => {
      await create(ENVELOPE, { idempotencyKey: 'idem-other' });
      const response = await create({ ...ENVELOPE, title: 'changed' }, { idempotencyKey: 'idem-other' });
      expect(response.status).toBe(422);
      expect((await errorBody(response)).code).toBe('idempotency_key_reused');
    });

    it('same key while the first is in flight: 409', async () => {
      // The hold keeps the first create inside its handling (its key in flight) until lifted: the
      // second is sent once the sandbox says the first is held, whatever the machine's speed.
      await sandbox.control('/_sandbox/faults', { hold: true });
      const first = create(ENVELOPE, { idempotencyKey: 'idem-flight' });
      try {
        await eventually(async () => {
          const { faults } = await sandbox.control<{ faults: { held: number } }>('/_sandbox/state');
          return faults.held === 1 ? true : undefined;
        });
        const second = await create(ENVELOPE, { idempotencyKey: 'idem-flight' });
        expect(second.status).toBe(409);
        expect(second.headers.get('retry-after')).toBe('1');
        expect((await errorBody(second)).code).toBe('idempotency_key_in_flight');
      } finally {
        await sandbox.control('/_sandbox/faults', { hold: false });
      }
      const done = await first;
      expect(done.status).toBe(201);
      // Once the first has been answered, the same key replays it.
      const again = await create(ENVELOPE, { idempotencyKey: 'idem-flight' });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await done.json());
    });

    it('keys are scoped per account and environment: a rotated key replays, a live key or another account creates its own', async () => {
      const rotated = await sandbox.control<{ key: string }>('/_sandbox/keys', {});
      const live = await sandbox.control<{ key: string }>('/_sandbox/keys', { environment: 'live' });
      const second = await sandbox.control<{ key: string }>('/_sandbox/keys', { account: 'acct_scope' });
      const a = (await (await create(ENVELOPE, { idempotencyKey: 'idem-scope' })).json()) as { id: string };
      const b = (await (
        await create(ENVELOPE, { idempotencyKey: 'idem-scope', apiKey: rotated.key })
      ).json()) as { id: string };
      const c = (await (
        await create(ENVELOPE, { idempotencyKey: 'idem-scope', apiKey: live.key })
      ).json()) as { id: string };
      const d = (await (
        await create(ENVELOPE, { idempotencyKey: 'idem-scope', apiKey: second.key })
      ).json()) as { id: string };
      expect(b.id).toBe(a.id);
      expect(new Set([a.id, c.id, d.id]).size).toBe(3);
    });
  });

  it('holds a request while the hold fault is on (off by default) and answers it once the hold is lifted', async () => {
    const before = await sandbox.control<{ faults: { hold: boolean; held: number } }>('/_sandbox/state');
    expect(before.faults).toMatchObject({ hold: false, held: 0 });
    const { id } = (await (await create(ENVELOPE)).json()) as { id: string };
    await sandbox.control('/_sandbox/faults', { hold: true });
    let answered = false;
    const held = fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    }).then((response) => {
      answered = true;
      return response;
    });
    try {
      await eventually(async () => {
        const { faults } = await sandbox.control<{ faults: { held: number } }>('/_sandbox/state');
        return faults.held === 1 ? true : undefined;
      });
      // Held in the sandbox, not merely slow: counted there, and not answered.
      expect(answered).toBe(false);
    } finally {
      const lifted = await sandbox.control<{ hold: boolean; held: number }>('/_sandbox/faults', {
        hold: false,
      });
      expect(lifted).toMatchObject({ hold: false, held: 0 });
    }
    expect((await held).status).toBe(200);
  });

  it('limits each key to the configured requests per minute with 429, Retry-After and RateLimit fields', async () => {
    const key = (await sandbox.control<{ key: string }>('/_sandbox/keys', {})).key;
    await sandbox.control('/_sandbox/faults', { rate_limit: 3 });
    try {
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/env_none`, {
          headers: { authorization: `Bearer ${key}` },
        });
        statuses.push(response.status);
        if (response.status === 429) limited = response;
      }
      expect(statuses).toEqual([404, 404, 404, 429]);
      const retryAfter = Number(limited!.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited!.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
      expect(limited!.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
      expect((await errorBody(limited!)).code).toBe('rate_limited');
    } finally {
      await sandbox.control('/_sandbox/faults', { rate_limit: 600 });
    }
  });

  it('keeps everything acknowledged across a kill -9 and restart', async () => {
    const own = await startSandboxProcess();
    const created = (await (
      await fetch(`${own.baseUrl}/api/v1/envelopes`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${own.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'persist-1',
        },
        body: JSON.stringify(ENVELOPE),
      })
    ).json()) as { id: string };
    await own.stop('SIGKILL');
    const again = await startSandboxProcess({ dataDir: own.dataDir });
    try {
      expect(again.apiKey).toBe(own.apiKey);
      expect(again.webhookSecret).toBe(own.webhookSecret);
      const read = await fetch(`${again.baseUrl}/api/v1/envelopes/${created.id}`, {
        headers: { authorization: `Bearer ${again.apiKey}` },
      });
      expect(read.status).toBe(200);
      // The idempotency record survived too: a retry after the crash gets the same envelope.
      const replay = await fetch(`${again.baseUrl}/api/v1/envelopes`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${again.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'persist-1',
        },
        body: JSON.stringify(ENVELOPE),
      });
      expect(((await replay.json()) as { id: string }).id).toBe(created.id);
    } finally {
      await again.stop();
    }
  });

  it('applies its own bounds where the published interface leaves them open, and refuses malformed paths', async () => {
    const response = await create({ ...ENVELOPE, expires_in_days: 1_000_000_000 });
    expect(response.status).toBe(422);
    expect((await errorBody(response)).message).toContain('expires_in_days');
    const bad = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/%E0`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(bad.status).toBe(400);
  });

  it('refuses a second sandbox on the same data dir', async () => {
    const result = await runCli(['sandbox', '--port', '0', '--data-dir', sandbox.dataDir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`another sandbox (pid ${sandbox.child.pid})`);
  });

  it('cuts a log line torn by a crash, so later records are not glued to it', async () => {
    const own = await startSandboxProcess();
    await own.stop('SIGKILL');
    const { appendFileSync } = await import('node:fs');
    appendFileSync(join(own.dataDir, 'state.jsonl'), '{"t":"created","envelope":{"id":"env_tor');
    const again = await startSandboxProcess({ dataDir: own.dataDir });
    const made = (await (
      await fetch(`${again.baseUrl}/api/v1/envelopes`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${again.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'after-tear',
        },
        body: JSON.stringify(ENVELOPE),
      })
    ).json()) as { id: string };
    await again.stop('SIGKILL');
    const third = await startSandboxProcess({ dataDir: own.dataDir });
    try {
      const read = await fetch(`${third.baseUrl}/api/v1/envelopes/${made.id}`, {
        headers: { authorization: `Bearer ${third.apiKey}` },
      });
      expect(read.status).toBe(200);
    } finally {
      await third.stop();
    }
  });

  it('control endpoints need the sandbox key', async () => {
    const response = await fetch(`${sandbox.baseUrl}/_sandbox/state`);
    expect(response.status).toBe(401);
  });

  it('reports a busy port clearly', async () => {
    const port = new URL(sandbox.baseUrl).port;
    const result = await runCli(['sandbox', '--port', port, '--data-dir', tempDir()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`port ${port}`);
    expect(result.stderr).toContain('--port 0');
  });

  it('checks control bodies: not an object, or a date that does not exist, is a 400, never a 500 or a key', async () => {
    const post = (path: string, body: string) =>
      fetch(`${sandbox.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
        body,
      });
    for (const [path, body] of [
      ['/_sandbox/keys', 'null'],
      ['/_sandbox/keys', '[]'],
      ['/_sandbox/keys', '"key"'],
      ['/_sandbox/keys', '{"expires":"9999-99-99"}'],
      ['/_sandbox/keys', '{"expires":"2027-02-30"}'],
      ['/_sandbox/keys', '{"environment":"LIVE!"}'],
      ['/_sandbox/keys', '{"name":42}'],
      ['/_sandbox/faults', 'null'],
      ['/_sandbox/faults', '[1]'],
      ['/_sandbox/faults', '{"hold":"yes"}'],
    ] as const) {
      const response = await post(path, body);
      expect([path, body, response.status]).toEqual([path, body, 400]);
    }
    const created = await post('/_sandbox/keys', '{"name":"ok","expires":"2027-02-28","environment":"live"}');
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      name: 'ok',
      expires: '2027-02-28',
      environment: 'live',
      key: expect.stringMatching(/^sk_live_\w{32}$/),
    });
  });

  it('answers a body nested 3,000 levels deep with a 4xx naming the depth, not a 500', async () => {
    // Written as text: the files of a worker share its globals (isolate: false), and pdf.js's
    // legacy build (test/helpers/pdf.ts) replaces JSON.stringify with one that overflows the
    // stack at this depth, in the test, long before the sandbox sees the body.
    const nested = JSON.stringify({ ...ENVELOPE, title: 'NESTED' }).replace(
      '"NESTED"',
      `${'['.repeat(3000)}${']'.repeat(3000)}`,
    );
    const response = await create(nested);
    expect(response.status).toBe(422);
    expect((await errorBody(response)).message).toContain('nested deeper than 32 levels');
  });

  it('keeps API keys and the webhook secret only in credentials.env; modes are enforced on every start', async () => {
    const dir = tempDir('sign-cli-modes-');
    const first = await startSandboxProcess({ dataDir: dir });
    const extra = await first.control<{ key: string }>('/_sandbox/keys', { name: 'extra' });
    await first.stop();
    const state = readFileSync(join(dir, 'state.jsonl'), 'utf8');
    for (const secret of [first.apiKey, extra.key, first.webhookSecret]) {
      expect(state).not.toContain(secret);
      expect(state).not.toContain(secret.replace(/^(sk_test_|whsec_)/, ''));
    }
    // Loosened by hand (or by an older version): made private again on the next start.
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'credentials.env'), 0o644);
    const second = await startSandboxProcess({ dataDir: dir });
    try {
      expect(second.apiKey).toBe(first.apiKey);
      expect(second.webhookSecret).toBe(first.webhookSecret);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'credentials.env')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'state.jsonl')).mode & 0o777).toBe(0o600);
      // The extra key still works: it is found by its hash.
      const listed = await fetch(`${second.baseUrl}/api/v1/api-keys`, {
        headers: { authorization: `Bearer ${extra.key}` },
      });
      expect(listed.status).toBe(200);
      expect(JSON.stringify(await listed.json())).toContain(`sk_test_****${extra.key.slice(-4)}`);
    } finally {
      await second.stop();
    }
  });

  it('skips a well-formed state line it did not write, naming the file and line, and starts', async () => {
    const dir = tempDir('sign-cli-badline-');
    const first = await startSandboxProcess({ dataDir: dir });
    await first.stop();
    appendFileSync(
      join(dir, 'state.jsonl'),
      '{"t":"created","envelope":{"id":"env_x","status":"sent","signers":[]}}\n',
    );
    // Started (its --json line out), then read: the warning is written while the log is replayed,
    // before it listens, so it is there by the time the start is seen (on stderr's own pipe: waited for).
    const second = await startSandboxProcess({ dataDir: dir });
    try {
      expect(second.first.base_url).toMatch(/^http:/);
      const warning =
        /warning: state\.jsonl:\d+: idempotency record without scope, key, fingerprint or response; line skipped/;
      await eventually(async () => (warning.test(second.stderr()) ? true : undefined), 60_000).catch(() => {
        throw new Error(`no warning; stderr: ${second.stderr()}`);
      });
    } finally {
      await second.stop();
    }
  });
});
