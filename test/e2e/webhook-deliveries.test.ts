/**
 * `webhooks deliveries` and `webhooks resend`, run as a user would (the built
 * binary) against a real sandbox process whose webhooks go to real receivers
 * on loopback: one that fails its first requests, and a closed port. The
 * sandbox runs at speed 200,000, so the 8 retries (17 h 42 min of sandbox
 * time) take about a third of a second and a delivery fails for good at once.
 */
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_SCHEDULE_MS } from '../../src/sandbox/deliveries.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { eventTypes, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const SPEED = 200_000;
const example = JSON.parse(readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8')) as Record<string, unknown>;

interface Attempt {
  attempt: number;
  started_at: string;
  status: number | null;
  duration_ms: number;
  error: string | null;
}
interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  envelope_id: string;
  url: string;
  status: string;
  resend: boolean;
  attempt_count: number;
  attempts: Attempt[];
}

let sandbox: SandboxProcess;
let env: Record<string, string>;
/** Answers 500 to its first 9 requests (every attempt of the first event), then 200. */
let flaky: Receiver;
let good: Receiver;
let closedUrl: string;
/** An envelope whose first event fails for good at `flaky`; one whose webhook_url is a closed port. */
let envelopeA: string;
let envelopeB: string;

const cli = (args: string[], options: { input?: string } = {}) => runCli(args, { env, ...options });
const lines = (stdout: string): Delivery[] => stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Delivery);
const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

async function createOne(webhookUrl: string): Promise<string> {
  const result = await cli(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], { input: JSON.stringify({ ...example, webhook_url: webhookUrl }) });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--speed', String(SPEED)] });
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey, SIGN_STATE_DIR: tempDir() };
  flaky = await startReceiver((n) => (n < 9 ? 500 : 200));
  good = await startReceiver();
  closedUrl = `http://127.0.0.1:${await closedPort()}/hooks`;
  envelopeA = await createOne(flaky.url);
  envelopeB = await createOne(closedUrl);
  await flaky.waitFor((all) => eventTypes(all).includes('envelope.completed'));
  // B's first event has failed for good once its 9 attempts are recorded.
  await until(async () => {
    const { data } = await sandbox.control<{ data: { envelope_id: string; status: string }[] }>(`/_sandbox/deliveries?envelope_id=${envelopeB}`);
    return data[0]?.status === 'failed';
  });
}, 30_000);
afterAll(async () => {
  await sandbox?.stop();
  await flaky?.close();
  await good?.close();
});

describe('webhooks deliveries', () => {
  it('--failed --json: the deliveries that failed, newest first, each with every attempt', async () => {
    const result = await cli(['webhooks', 'deliveries', '--failed', '--json', '--limit', '100']);
    expect(result.code, result.stderr).toBe(0);
    const failed = lines(result.stdout);
    expect(failed.every((d) => d.status === 'failed' || d.status === 'retrying')).toBe(true);

    // A: only its first event failed: 9 attempts (8 retries), each a 500, at times that keep the schedule.
    const ofA = failed.filter((d) => d.envelope_id === envelopeA);
    expect(ofA).toHaveLength(1);
    const first = ofA[0]!;
    expect(first).toMatchObject({ event_type: 'envelope.created', status: 'failed', url: flaky.url, resend: false, attempt_count: 9 });
    expect(first.id).toMatch(/^dlv_\w+$/);
    expect(first.event_id).toBe(flaky.deliveries[0]!.headers['webhook-id']);
    expect(first.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(first.attempts.every((a) => a.status === 500 && a.error === 'HTTP 500' && a.duration_ms >= 0)).toBe(true);
    const times = first.attempts.map((a) => Date.parse(a.started_at));
    // A timer may fire up to a millisecond or so early: 2 ms of real time in sandbox time.
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[i - 1]! - 2 * SPEED);

    // B: its webhook_url is a closed port: no status, the connection error.
    const ofB = failed.filter((d) => d.envelope_id === envelopeB);
    expect(ofB.length).toBeGreaterThanOrEqual(1);
    const createdB = ofB.find((d) => d.event_type === 'envelope.created')!;
    expect(createdB).toMatchObject({ status: 'failed', url: closedUrl, attempt_count: 9 });
    expect(createdB.attempts.every((a) => a.status === null && /ECONNREFUSED/.test(a.error ?? ''))).toBe(true);

    // Newest first: B was created after A, so its deliveries come before A's.
    expect(failed.findIndex((d) => d.envelope_id === envelopeB)).toBeLessThan(failed.findIndex((d) => d.envelope_id === envelopeA));
  });

  it('--envelope filters; --query applies per line; the table shows the same', async () => {
    const json = await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const ofA = lines(json.stdout);
    expect(ofA).toHaveLength(10);
    expect(ofA.every((d) => d.envelope_id === envelopeA)).toBe(true);
    // The first event never got a 2xx from the receiver; the other nine did, in order.
    expect(ofA.map((d) => d.event_type).reverse()).toEqual(['envelope.created', ...eventTypes(flaky.deliveries)]);
    for (const d of ofA.slice(0, -1)) {
      expect(d.status).toBe('delivered');
      expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, error: null })]);
    }

    const ids = await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--limit', '3', '--query', 'event_type']);
    expect(ids.stdout).toBe(`${ofA.slice(0, 3).map((d) => d.event_type).join('\n')}\n`);

    const table = await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--failed']);
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n').filter((line) => /\w/.test(line));
    expect(rows[0]).toMatch(/^EVENT\s+TYPE\s+ENVELOPE\s+STATE\s+ATTEMPTS\s+LAST RESULT\s+LAST ATTEMPT\s+URL$/);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(ofA.at(-1)!.event_id);
    expect(rows[1]).toContain(envelopeA);
    expect(rows[1]).toMatch(/failed\s+9\s+HTTP 500\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s/);
  });
});

describe('webhooks deliveries --all', () => {
  it('follows the cursor past one page (100): every delivery once; a limit says "more" only when there is more', async () => {
    // Twelve more journeys of about ten events each, to a receiver of their own: more deliveries than one page holds.
    const own = await startReceiver();
    const batch = Array.from({ length: 12 }, (_, i) => JSON.stringify({ ...example, contract_id: `CTR-ALL-${i}`, webhook_url: own.url })).join('\n');
    const created = await cli(['envelopes', 'create', '--ndjson', '-f', '-', '--new', '--json'], { input: `${batch}\n` });
    expect(created.code, created.stderr).toBe(0);
    const recorded = async () => (await sandbox.control<{ data: { id: string; status: string }[] }>('/_sandbox/deliveries')).data;
    await until(async () => {
      const all = await recorded();
      return all.length > 100 && all.filter((d) => d.status === 'pending').length === 0 && own.deliveries.length >= 12 * 10;
    });
    await own.close();
    const expected = await recorded();

    const result = await cli(['webhooks', 'deliveries', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const listed = lines(result.stdout);
    expect(listed.length).toBe(expected.length);
    expect(new Set(listed.map((d) => d.id)).size).toBe(listed.length);
    expect(new Set(listed.map((d) => d.id))).toEqual(new Set(expected.map((d) => d.id)));

    const exactly = await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--limit', '10']);
    expect(exactly.code).toBe(0);
    expect(exactly.stderr).not.toContain('there are more');
    const fewer = await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--limit', '9']);
    expect(fewer.stderr).toContain('showing the newest 9; there are more: --limit <n> shows more, --all shows every one');

    const both = await cli(['webhooks', 'deliveries', '--all', '--limit', '3']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--all and --limit do not go together');
  }, 30_000);
});

describe('webhooks resend', () => {
  let eventId: string;
  let original: { body: string; timestamp: number; signatures: string[] };

  beforeAll(() => {
    const attempts = flaky.deliveries.filter((d) => d.headers['webhook-id'] === flaky.deliveries[0]!.headers['webhook-id']);
    expect(attempts).toHaveLength(9);
    eventId = String(attempts[0]!.headers['webhook-id']);
    original = {
      body: attempts[0]!.body,
      timestamp: Math.max(...attempts.map((d) => Number(d.headers['webhook-timestamp']))),
      signatures: attempts.map((d) => String(d.headers['webhook-signature'])),
    };
  });

  it('--to: the same body under the same webhook-id, with a fresh timestamp and a signature that verifies; a new delivery is recorded', async () => {
    // A fresh timestamp is a later second than every attempt of the original.
    while (Math.floor(Date.now() / 1000) <= original.timestamp) await new Promise((r) => setTimeout(r, 50));
    const result = await cli(['webhooks', 'resend', eventId, '--to', good.url]);
    expect(result.code, result.stderr).toBe(0);
    const match = new RegExp(`^✓ resent ${eventId} to ${good.url.replace(/[.]/g, '\\.')}: delivery (dlv_\\w+)\\n$`).exec(result.stdout);
    expect(match, result.stdout).not.toBeNull();
    const deliveryId = match![1]!;
    expect(result.stderr).toContain(`sign-cli webhooks deliveries --envelope ${envelopeA}`);

    await good.waitFor((all) => all.length === 1);
    const received = good.deliveries[0]!;
    expect(received.body).toBe(original.body);
    expect(received.headers['webhook-id']).toBe(eventId);
    expect(Number(received.headers['webhook-timestamp'])).toBeGreaterThan(original.timestamp);
    expect(original.signatures).not.toContain(received.headers['webhook-signature']);
    expect(() => new Webhook(sandbox.webhookSecret).verify(received.body, received.headers as Record<string, string>)).not.toThrow();

    // The resend is the newest delivery of A: delivered at its first attempt; the original stays failed.
    await until(async () => lines((await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--limit', '1', '--json'])).stdout)[0]?.status === 'delivered');
    const listed = lines((await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--json'])).stdout);
    expect(listed).toHaveLength(11);
    expect(listed[0]).toMatchObject({ id: deliveryId, event_id: eventId, event_type: 'envelope.created', url: good.url, status: 'delivered', resend: true, attempt_count: 1 });
    expect(listed[0]!.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, error: null })]);
    expect(listed.find((d) => d.event_id === eventId && !d.resend)).toMatchObject({ status: 'failed', attempt_count: 9 });
  });

  it('without --to, to the event\'s own URL; each run is a new resend (--json: the new delivery)', async () => {
    const before = flaky.deliveries.length;
    const runs = [await cli(['webhooks', 'resend', eventId, '--json']), await cli(['webhooks', 'resend', eventId, '--json'])];
    const made = runs.map((run) => {
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as Delivery;
    });
    expect(made[0]!.id).not.toBe(made[1]!.id);
    for (const d of made) expect(d).toMatchObject({ event_id: eventId, url: flaky.url, resend: true, envelope_id: envelopeA });
    await flaky.waitFor((all) => all.length === before + 2);
    for (const d of flaky.deliveries.slice(before)) {
      expect(d.headers['webhook-id']).toBe(eventId);
      expect(d.body).toBe(original.body);
      expect(d.answered).toBe(200);
    }
  });

  it('a bad --to is exit 2 with nothing sent; an unknown event exit 1; a key without envelopes:write exit 3', async () => {
    const sent = await requests();
    for (const to of ['ftp://127.0.0.1/hooks', 'not a url', '/hooks']) {
      const bad = await cli(['webhooks', 'resend', eventId, '--to', to]);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(/^error: --to /);
    }
    expect(await requests()).toBe(sent + 1);

    const unknown = await cli(['webhooks', 'resend', 'evt_00000000000000000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/HTTP 404 event_not_found/);

    const readOnly = await sandbox.control<{ key: string }>('/_sandbox/keys', { name: 'reader', scopes: ['envelopes:read'] });
    const listing = await runCli(['webhooks', 'deliveries', '--limit', '1', '--json'], { env: { ...env, SIGN_API_KEY: readOnly.key } });
    expect(listing.code, listing.stderr).toBe(0);
    const refused = await runCli(['webhooks', 'resend', eventId], { env: { ...env, SIGN_API_KEY: readOnly.key } });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/HTTP 403.*envelopes:write/);

    const limit = await cli(['webhooks', 'deliveries', '--limit', '0']);
    expect(limit.code).toBe(2);
  });
});

describe('after a restart', () => {
  it('every delivery and attempt is still there', async () => {
    const before = (await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--json'])).stdout;
    await sandbox.stop();
    sandbox = await startSandboxProcess({ dataDir: sandbox.dataDir, args: ['--speed', String(SPEED)] });
    env = { ...env, SIGN_BASE_URL: sandbox.baseUrl };
    const after = await cli(['webhooks', 'deliveries', '--envelope', envelopeA, '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect(lines(after.stdout)).toEqual(lines(before));
    expect(lines(after.stdout)).toHaveLength(13);
  });
});
