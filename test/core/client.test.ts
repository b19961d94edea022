import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SignClient, type TraceEvent } from '../../src/core/client/client.js';
import {
  ApiError,
  AuthError,
  InterruptedError,
  NetworkError,
  UnexpectedResponseError,
  UsageError,
  ValidationError,
} from '../../src/core/errors.js';
import { WAIT_NOTICE_MS } from '../../src/core/client/exchange.js';
import { FakeClock, InstantClock, settle } from '../helpers/fake-clock.js';

const KEY = 'sk_test_Q2x4bHk3ZmJ5cGVyc2VjcmV0a2V5';

const ENVELOPE = {
  title: 'Lease',
  document: { template_id: 'tpl_1', version: 1 },
  signers: [{ name: 'Layla', channel: 'email', email: 'layla@example.com' }],
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Step = (res: ServerResponse, req: IncomingMessage) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const created = json(201, { id: 'env_1', status: 'sent', title: 'Lease', signers: [] });

let server: Server | undefined;

/** A real HTTP server on loopback that answers with the given steps in order (the last one repeats). */
async function scripted(steps: Step[]): Promise<{ baseUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const step = steps[Math.min(seen.length - 1, steps.length - 1)]!;
      step(res, req);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

function client(baseUrl: string, extra: Partial<ConstructorParameters<typeof SignClient>[0]> = {}) {
  const clock = new InstantClock();
  const traces: TraceEvent[] = [];
  const c = new SignClient({
    baseUrl,
    apiKey: KEY,
    clock,
    random: () => 0.5,
    onTrace: (e) => traces.push(e),
    ...extra,
  });
  return { c, clock, traces };
}

describe('SignClient.createEnvelope', () => {
  it('sends auth, content type, accept, user agent and an Idempotency-Key', async () => {
    const { baseUrl, seen } = await scripted([created]);
    const { c } = client(baseUrl);
    const result = await c.createEnvelope(ENVELOPE);
    await c.close();
    expect(result.envelope).toMatchObject({ id: 'env_1' });
    expect(result.status).toBe(201);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/api/v1/envelopes');
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers.accept).toBe('application/json');
    expect(request!.headers['user-agent']).toMatch(/^sign-cli\/\d+\.\d+\.\d+/);
    expect(request!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.idempotencyKey).toBe(request!.headers['idempotency-key']);
    expect(JSON.parse(request!.body)).toEqual(ENVELOPE);
  });

  it('takes the id from Location when the body is not an object, and never counts another 2xx as created', async () => {
    const empty: Step = (res) => {
      res.writeHead(201, { location: '/api/v1/envelopes/env_from_location' });
      res.end();
    };
    const html: Step = (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><title>Welcome to nginx!</title>\u001b]0;x\u0007</html>');
    };
    const { baseUrl } = await scripted([
      empty,
      json(202, ['not', 'an', 'object']),
      html,
      json(200, { ok: true }),
      json(201, { id: '' }),
    ]);
    const { c } = client(baseUrl);
    expect((await c.createEnvelope(ENVELOPE)).envelope).toEqual({ id: 'env_from_location' });
    const array = (await c
      .createEnvelope(ENVELOPE, { idempotencyKey: 'k-array' })
      .catch((e: unknown) => e)) as UnexpectedResponseError;
    expect(array).toBeInstanceOf(UnexpectedResponseError);
    expect(array.message).toBe(
      'create envelope: HTTP 202 (application/json) with a JSON array, not an envelope (a JSON object with an id, or a Location header)',
    );
    expect(array.hint).toContain('check the base URL');
    expect(array.reason).toBe('not_the_service');
    expect(array.hint).toContain('Idempotency-Key k-array');
    const page = (await c.createEnvelope(ENVELOPE).catch((e: unknown) => e)) as UnexpectedResponseError;
    expect(page.message).toMatch(/^create envelope: HTTP 200 \(text\/html\) with "<!doctype html>/);
    expect(page.message).not.toMatch(/[\u0000-\u001f]/);
    await expect(c.createEnvelope(ENVELOPE)).rejects.toThrow(/without the expected fields \(ok\)/);
    await expect(c.createEnvelope(ENVELOPE)).rejects.toBeInstanceOf(UnexpectedResponseError);
    await c.close();
  });

  it('needs an envelope from get, a PDF from download, a trail from audit and a list from the key listing', async () => {
    const html: Step = (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    };
    const { baseUrl } = await scripted([html]);
    const { c } = client(baseUrl);
    for (const call of [
      () => c.getEnvelope('env_1'),
      () => c.downloadSignedCopy('env_1'),
      () => c.getAuditTrail('env_1'),
      () => c.listApiKeys(),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as Error).message).toContain('HTTP 200 (text/html)');
    }
    await c.close();
  });

  it('sends nothing once stopped: a wait for a slot ends at once, and the request on the wire is awaited', async () => {
    let release: () => void = () => {};
    const slow: Step = (res) => {
      release = () => json(201, { id: 'env_slow' })(res, undefined as never);
    };
    const { baseUrl, seen } = await scripted([slow, created]);
    const stop = new AbortController();
    const c = new SignClient({ baseUrl, apiKey: KEY, ratePerMinute: 60 });
    const first = c.createEnvelope(ENVELOPE, { stop: stop.signal });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    // The second waits ~1 s for its pacer slot; the stop comes while it waits.
    const second = c
      .createEnvelope({ ...ENVELOPE, title: 'Second' }, { stop: stop.signal })
      .catch((e: unknown) => e);
    stop.abort();
    const interrupted = (await second) as InterruptedError;
    expect(interrupted).toBeInstanceOf(InterruptedError);
    expect(interrupted.sent).toBe(false);
    release();
    expect((await first).envelope.id).toBe('env_slow');
    await c.close();
    expect(seen).toHaveLength(1);
  });
  it("uses the caller's Idempotency-Key when given", async () => {
    const { baseUrl, seen } = await scripted([created]);
    const { c } = client(baseUrl);
    await c.createEnvelope(ENVELOPE, { idempotencyKey: 'order-42' });
    await c.close();
    expect(seen[0]!.headers['idempotency-key']).toBe('order-42');
  });

  it('sends nothing when the envelope breaks a rule', async () => {
    const { baseUrl, seen } = await scripted([created]);
    const { c } = client(baseUrl);
    await expect(c.createEnvelope({ ...ENVELOPE, signers: [] })).rejects.toBeInstanceOf(ValidationError);
    await c.close();
    expect(seen).toHaveLength(0);
  });

  it('retries 5xx, 409 and connection resets with the same Idempotency-Key', async () => {
    const reset: Step = (res) => res.socket!.destroy();
    const { baseUrl, seen } = await scripted([
      json(503, { message: 'busy' }),
      reset,
      json(409, { code: 'idempotency_key_in_flight' }),
      created,
    ]);
    const { c, clock } = client(baseUrl);
    const result = await c.createEnvelope(ENVELOPE);
    await c.close();
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((s) => s.headers['idempotency-key'])).size).toBe(1);
    expect(result.attempts).toBe(4);
    // Capped exponential backoff with jitter (random fixed at 0.5): 375, 750, 1500 ms.
    // (The 10 s timers of the waiting notice, called off by each answer, are not waits.)
    expect(clock.sleeps.filter((ms) => ms >= 300 && ms !== WAIT_NOTICE_MS)).toEqual([375, 750, 1500]);
  });

  it('retries a request whose response never comes (timeout), with the same key', async () => {
    const silent: Step = () => {};
    const { baseUrl, seen } = await scripted([silent, created]);
    const { c } = client(baseUrl, { timeoutMs: 300 });
    const result = await c.createEnvelope(ENVELOPE);
    await c.close();
    expect(result.attempts).toBe(2);
    expect(seen[0]!.headers['idempotency-key']).toBe(seen[1]!.headers['idempotency-key']);
  });

  it('waits as Retry-After says after a 429, holding back the pacer for everyone', async () => {
    const { baseUrl, seen } = await scripted([
      json(429, { code: 'rate_limited' }, { 'retry-after': '2' }),
      created,
    ]);
    const { c, clock, traces } = client(baseUrl);
    const before = clock.now();
    await c.createEnvelope(ENVELOPE);
    await c.close();
    expect(seen).toHaveLength(2);
    expect(clock.now() - before).toBeGreaterThanOrEqual(2000);
    expect(traces).toContainEqual(
      expect.objectContaining({ type: 'retry', source: 'retry-after', delayMs: 2000 }),
    );
  });

  it('uses the RateLimit fields when there is no Retry-After', async () => {
    const { baseUrl } = await scripted([json(503, {}, { ratelimit: '"default";r=0;t=4' }), created]);
    const { c, clock } = client(baseUrl);
    await c.createEnvelope(ENVELOPE);
    await c.close();
    expect(clock.sleeps).toContain(4000);
  });

  it('never retries a 422 for a key reused with another body', async () => {
    const { baseUrl, seen } = await scripted([
      json(422, { code: 'idempotency_key_reused', message: 'different body' }),
    ]);
    const { c } = client(baseUrl);
    const error = await c.createEnvelope(ENVELOPE, { idempotencyKey: 'k-1' }).catch((e: unknown) => e);
    await c.close();
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).code).toBe('idempotency_key_reused');
    expect((error as ApiError).hint).toMatch(/k-1/);
  });

  it('gives up after the configured retries with the last status', async () => {
    const { baseUrl, seen } = await scripted([json(500, { message: 'boom' })]);
    const { c } = client(baseUrl, { retry: { maxRetries: 2 } });
    const error = (await c.createEnvelope(ENVELOPE).catch((e: unknown) => e)) as ApiError;
    await c.close();
    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toMatch(/HTTP 500 boom after 3 attempts/);
  });

  it('does not stall when the server asks for a wait longer than allowed', async () => {
    const { baseUrl, seen } = await scripted([json(503, {}, { 'retry-after': '3600' })]);
    const { c } = client(baseUrl);
    await expect(c.createEnvelope(ENVELOPE)).rejects.toBeInstanceOf(ApiError);
    await c.close();
    expect(seen).toHaveLength(1);
  });

  it('maps 401 and 403 to AuthError with the key masked', async () => {
    const { baseUrl } = await scripted([
      json(401, { code: 'invalid_api_key', message: 'unknown key' }),
      json(403, { code: 'insufficient_scope', message: 'no' }),
    ]);
    const { c } = client(baseUrl);
    const unauthorized = (await c.createEnvelope(ENVELOPE).catch((e: unknown) => e)) as AuthError;
    const forbidden = (await c.createEnvelope(ENVELOPE).catch((e: unknown) => e)) as AuthError;
    await c.close();
    expect(unauthorized).toBeInstanceOf(AuthError);
    expect(unauthorized.reason).toBe('key_refused');
    expect(unauthorized.message).toContain('HTTP 401 invalid_api_key: unknown key');
    expect(unauthorized.message).toContain('sk_test_****');
    expect(unauthorized.message).not.toContain(KEY);
    expect(forbidden.status).toBe(403);
    expect(forbidden.hint).toContain('envelopes:write');
  });

  it('never carries the key in an error, even when the server echoes it without its prefix', async () => {
    const bare = KEY.replace('sk_test_', '');
    const { baseUrl } = await scripted([
      json(401, { message: `unknown key ${bare}` }),
      json(400, { error: `bad request from ${KEY}` }),
    ]);
    const { c } = client(baseUrl, { retry: { maxRetries: 0 } });
    const unauthorized = (await c.createEnvelope(ENVELOPE).catch((e: unknown) => e)) as AuthError;
    const bad = (await c.createEnvelope(ENVELOPE).catch((e: unknown) => e)) as ApiError;
    await c.close();
    for (const error of [unauthorized, bad]) {
      expect(error.message).not.toContain(bare);
      expect(JSON.stringify(error)).not.toContain(bare);
    }
    expect(unauthorized.message).toContain(`unknown key ****${KEY.slice(-4)}`);
    expect(bad.serverMessage).toBe(`bad request from sk_test_****${KEY.slice(-4)}`);
  });

  it('reports a refused connection as such: retried, then "nothing was sent"', async () => {
    const { baseUrl } = await scripted([created]);
    server!.close();
    const { c, traces } = client(baseUrl, { retry: { maxRetries: 1 } });
    const error = (await c
      .createEnvelope(ENVELOPE, { idempotencyKey: 'k-dead' })
      .catch((e: unknown) => e)) as NetworkError;
    await c.close();
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.nothingSent).toBe(true);
    expect(error.message).toMatch(/could not connect to .*; nothing was sent \(2 attempts\)/);
    expect(traces.filter((t) => t.type === 'retry')).toHaveLength(1);
  });

  it('gives up on a refused connection within about a second of waits, with the default policy', async () => {
    const { baseUrl } = await scripted([created]);
    server!.close();
    const { c, traces, clock } = client(baseUrl);
    const error = (await c.getEnvelope('env_1').catch((e: unknown) => e)) as NetworkError;
    await c.close();
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toMatch(/nothing was sent \(4 attempts\)/);
    const waits = traces.flatMap((t) => (t.type === 'retry' ? [t.delayMs] : []));
    expect(waits).toEqual([100, 200, 400]);
    expect(
      clock.sleeps.filter((ms) => ms !== WAIT_NOTICE_MS).reduce((sum, ms) => sum + ms, 0),
    ).toBeLessThanOrEqual(1_000);
  });

  it('says an attempt is unanswered only while it is on the wire, not in the wait before the next one', async () => {
    const reset: Step = (res) => res.socket!.destroy();
    const { baseUrl } = await scripted([reset, created]);
    const clock = new FakeClock();
    // A backoff longer than the notice's wait: the notice of the attempt that failed must be called off before it.
    const { c, traces } = client(baseUrl, { clock, retry: { baseDelayMs: 4 * WAIT_NOTICE_MS } });
    let done = false;
    const result = c.createEnvelope(ENVELOPE).finally(() => (done = true));
    // Time stands still until the first attempt has failed, so its notice cannot be due while it is on the wire.
    while (!traces.some((t) => t.type === 'retry')) await settle();
    while (!done) await clock.runAll(1);
    expect((await result).attempts).toBe(2);
    await c.close();
    expect(traces.filter((t) => t.type === 'waiting' && t.attempt === 1)).toEqual([]);
  });

  it('says the envelope may exist when a request was cut after it went out, naming the key for a safe re-run', async () => {
    const cut: Step = (res) => res.socket!.destroy();
    const { baseUrl, seen } = await scripted([cut]);
    const { c } = client(baseUrl, { retry: { maxRetries: 1 } });
    const error = (await c
      .createEnvelope(ENVELOPE, { idempotencyKey: 'k-cut' })
      .catch((e: unknown) => e)) as NetworkError;
    await c.close();
    expect(seen).toHaveLength(2);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.nothingSent).toBe(false);
    expect(error.message).toMatch(/after 2 attempts/);
    expect(error.hint).toContain('may or may not exist');
    expect(error.hint).toContain('k-cut');
  });

  it('traces requests with the key masked and notes a base URL ending in /api', async () => {
    const { baseUrl, seen } = await scripted([created]);
    const { c, traces } = client(`${baseUrl}/api`);
    await c.createEnvelope(ENVELOPE);
    await c.close();
    expect(seen[0]!.url).toBe('/api/api/v1/envelopes');
    const text = JSON.stringify(traces);
    expect(text).not.toContain(KEY);
    expect(text).toContain('Bearer sk_test_****');
    expect(traces[0]).toMatchObject({ type: 'note', message: expect.stringContaining('/api twice') });
  });
});

describe('SignClient.getEnvelope', () => {
  it('GETs the envelope by id, URL-encoded', async () => {
    const { baseUrl, seen } = await scripted([json(200, { id: 'env/1' })]);
    const { c } = client(baseUrl);
    expect(await c.getEnvelope('env/1')).toEqual({ id: 'env/1' });
    await c.close();
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/v1/envelopes/env%2F1' });
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });
});

describe('SignClient webhook deliveries', () => {
  const delivery = (id: string) => ({
    object: 'webhook_delivery',
    id,
    event_id: `evt_${id}`,
    status: 'failed',
    attempts: [
      { attempt: 1, started_at: '2026-11-21T10:00:00.000Z', status: 500, duration_ms: 3, error: 'HTTP 500' },
    ],
  });

  it('lists deliveries with the filter in the query string, following the cursor up to the limit', async () => {
    const { baseUrl, seen } = await scripted([
      json(200, {
        object: 'list',
        data: [delivery('dlv_1'), delivery('dlv_2')],
        has_more: true,
        next_cursor: 'c1',
      }),
      json(200, {
        object: 'list',
        data: [delivery('dlv_3'), delivery('dlv_4')],
        has_more: true,
        next_cursor: 'c2',
      }),
    ]);
    const { c } = client(baseUrl);
    const ids: string[] = [];
    for await (const d of c.deliveries(
      { envelopeId: 'env_1', status: ['failed', 'retrying'] },
      { limit: 3, pageSize: 2 },
    ))
      ids.push(d.id);
    await c.close();
    expect(ids).toEqual(['dlv_1', 'dlv_2', 'dlv_3']);
    expect(seen.map((r) => r.url)).toEqual([
      '/api/v1/webhook-deliveries?envelope_id=env_1&status=failed%2Cretrying&limit=2',
      '/api/v1/webhook-deliveries?envelope_id=env_1&status=failed%2Cretrying&limit=1&cursor=c1',
    ]);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('a 2xx that is not a list of deliveries is a failure, not an empty listing', async () => {
    const { baseUrl } = await scripted([
      json(200, { object: 'list', data: [{ id: 'dlv_1' }] }),
      json(200, { ok: true }),
      json(200, { data: [], has_more: true }),
    ]);
    const { c } = client(baseUrl);
    for (let i = 0; i < 3; i++) {
      const error = await c.listDeliveries().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as Error).message).toMatch(/^list webhook deliveries: HTTP 200/);
    }
    await c.close();
  });

  it('resends with {to} and a fresh random Idempotency-Key per call, the same across the retries of one call', async () => {
    const accepted = json(202, delivery('dlv_new'));
    const { baseUrl, seen } = await scripted([json(503, { message: 'busy' }), accepted, accepted]);
    const { c } = client(baseUrl);
    expect(await c.resendEvent('evt_1', { to: 'https://hooks.example.com/x' })).toMatchObject({
      id: 'dlv_new',
      event_id: 'evt_dlv_new',
    });
    await c.resendEvent('evt_1');
    await c.close();
    expect(seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/api/v1/events/evt_1/resend', '{"to":"https://hooks.example.com/x"}'],
      ['POST', '/api/v1/events/evt_1/resend', '{"to":"https://hooks.example.com/x"}'],
      ['POST', '/api/v1/events/evt_1/resend', '{}'],
    ]);
    const keys = seen.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('refuses a bad `to` before sending, and an answer that is not a delivery', async () => {
    const { baseUrl, seen } = await scripted([
      json(202, { id: 'dlv_1' }),
      json(404, { code: 'event_not_found', message: 'no webhook delivery of event evt_x' }),
    ]);
    const { c } = client(baseUrl);
    for (const to of ['ftp://h/x', 'hooks', 'http://'])
      await expect(c.resendEvent('evt_1', { to })).rejects.toBeInstanceOf(UsageError);
    expect(seen).toHaveLength(0);
    const unexpected = await c.resendEvent('evt_1').catch((e: unknown) => e);
    expect(unexpected).toBeInstanceOf(UnexpectedResponseError);
    expect((unexpected as Error).message).toMatch(/^resend event: HTTP 202 .*not the new delivery/);
    const missing = (await c.resendEvent('evt_x').catch((e: unknown) => e)) as ApiError;
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing.hint).toContain('only events sent to a webhook_url can be resent');
    expect(missing.reason).toBe('event_not_found');
    await c.close();
  });
});
