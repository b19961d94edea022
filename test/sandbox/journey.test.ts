/**
 * The whole life of an envelope in the sandbox, over real HTTP: journey,
 * signed webhook deliveries (checked with the `standardwebhooks` package),
 * retries, the signed copy and the audit trail, and restarts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { readPdf } from '../helpers/pdf.js';
import { eventTypes, startReceiver, type Delivery, type Receiver } from '../helpers/receiver.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
type Signer = Record<string, unknown>;
const signers = () => (EXAMPLE.signers as Signer[]).map((s) => ({ ...s }));

async function create(sandbox: SandboxProcess, body: unknown): Promise<{ id: string; status: string }> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sandbox.apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; status: string };
}

async function getEnvelope(sandbox: SandboxProcess, id: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}` },
  });
  return (await response.json()) as Record<string, unknown>;
}

async function waitForStatus(
  sandbox: SandboxProcess,
  id: string,
  status: string,
  timeoutMs = 60_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const envelope = await getEnvelope(sandbox, id);
    if (envelope.status === status) return envelope;
    if (Date.now() > deadline) throw new Error(`envelope ${id} is ${String(envelope.status)}, not ${status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const payload = (d: Delivery) =>
  JSON.parse(d.body) as {
    id: string;
    type: string;
    timestamp: string;
    data: Record<string, unknown> & { signer?: { name: string } };
  };
const forEnvelope = (deliveries: Delivery[], id: string) =>
  deliveries.filter((d) => payload(d).data.envelope_id === id);

describe('signing journey and webhooks (speed 40)', () => {
  let sandbox: SandboxProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await sandbox?.stop();
    await receiver?.close();
  });

  it("delivers a sequential envelope's events in order, each verifiable with the standardwebhooks package", async () => {
    const { id } = await create(sandbox, { ...EXAMPLE, webhook_url: receiver.url });
    await receiver.waitFor((all) => eventTypes(forEnvelope(all, id)).includes('envelope.completed'));
    const mine = forEnvelope(receiver.deliveries, id);
    const events = mine.map(payload);
    expect(events.map((e) => `${e.type}${e.data.signer ? `:${e.data.signer.name}` : ''}`)).toEqual([
      'envelope.created',
      'envelope.sent',
      'signer.notified:Layla Haddad',
      'signer.viewed:Layla Haddad',
      'signer.verified:Layla Haddad',
      'signer.signed:Layla Haddad',
      'signer.notified:Omar Khalil',
      'signer.viewed:Omar Khalil',
      'signer.signed:Omar Khalil',
      'envelope.completed',
    ]);
    const webhook = new Webhook(sandbox.webhookSecret);
    for (const delivery of mine) {
      const verified = webhook.verify(delivery.body, delivery.headers as Record<string, string>) as {
        id: string;
      };
      expect(verified.id).toBe(delivery.headers['webhook-id']);
    }
    // A wrong secret does not verify: the check above means something.
    expect(() =>
      new Webhook(`whsec_${Buffer.from('not the secret at all!!').toString('base64')}`).verify(
        mine[0]!.body,
        mine[0]!.headers as Record<string, string>,
      ),
    ).toThrow();
    for (const event of events) {
      expect(event.id).toMatch(/^evt_/);
      expect(event.data.envelope_id).toBe(id);
      expect(event.data.contract_id).toBe(EXAMPLE.contract_id);
      expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);
    }
    const timestamps = events.map((e) => Date.parse(e.timestamp));
    expect([...timestamps].sort((a, b) => a - b)).toEqual(timestamps);
    expect((await getEnvelope(sandbox, id)).status).toBe('completed');
  });

  it('notifies every signer at once when not sequential', async () => {
    const { id } = await create(sandbox, { ...EXAMPLE, sequential: false, webhook_url: receiver.url });
    await receiver.waitFor((all) => eventTypes(forEnvelope(all, id)).includes('envelope.completed'));
    const types = eventTypes(forEnvelope(receiver.deliveries, id));
    const notified = types.map((t, i) => (t === 'signer.notified' ? i : -1)).filter((i) => i >= 0);
    expect(notified).toHaveLength(2);
    expect(notified[1]!).toBeLessThan(types.indexOf('signer.signed'));
  });

  it('ends the envelope declined when a signer declines (magic e-mail +decline)', async () => {
    const list = signers();
    list[1] = { name: 'Omar Khalil', email: 'omar+decline@example.com', channel: 'email', order: 2 };
    const { id } = await create(sandbox, { ...EXAMPLE, signers: list, webhook_url: receiver.url });
    const envelope = await waitForStatus(sandbox, id, 'declined');
    expect((envelope.signers as Signer[]).map((s) => s.status)).toEqual(['signed', 'declined']);
    await receiver.waitFor((all) => eventTypes(forEnvelope(all, id)).includes('envelope.declined'));
    const types = eventTypes(forEnvelope(receiver.deliveries, id));
    expect(types.slice(-2)).toEqual(['signer.declined', 'envelope.declined']);
    expect(types).not.toContain('envelope.completed');
  });

  it('fails the envelope when identity verification fails (magic phone +12025550102)', async () => {
    const list = [
      { name: 'Omar Khalil', phone: '+12025550102', channel: 'whatsapp', order: 1, verification: 'uae_pass' },
    ];
    const { id } = await create(sandbox, { ...EXAMPLE, signers: list, webhook_url: receiver.url });
    await waitForStatus(sandbox, id, 'failed');
    await receiver.waitFor((all) => eventTypes(forEnvelope(all, id)).includes('envelope.failed'));
    const last = payload(forEnvelope(receiver.deliveries, id).at(-1)!);
    expect(last.data.reason).toBe('verification_failed');
  });

  it('has no signed copy before completion (409, exit 1), and a real PDF after', async () => {
    const list = signers();
    list[0]!.email = 'layla+noview@example.com';
    const { id: stuck } = await create(sandbox, { ...EXAMPLE, signers: list });
    const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
    const early = await runCli(['envelopes', 'download', stuck, '-o', join(tempDir(), 'x.pdf')], { env });
    expect(early.code).toBe(1);
    expect(early.stderr).toContain('envelope_not_completed');

    const { id } = await create(sandbox, EXAMPLE);
    const file = join(tempDir(), 'signed.pdf');
    const result = await runCli(['envelopes', 'download', id, '--wait', '-o', file, '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id, file });
    const pdf = readFileSync(file);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.subarray(-6).toString()).toContain('%%EOF');
    // Read back by pdf.js, as a viewer would: every page opens, and the names and ids are there.
    const read = await readPdf(pdf);
    expect(read.pages).toBeGreaterThanOrEqual(1);
    const text = read.lines.flat().join(' ').replace(/\s+/g, ' ');
    for (const expected of [
      String(EXAMPLE.title),
      String(EXAMPLE.contract_id),
      'Layla Haddad',
      'Omar Khalil',
      // The certificate, in the envelope's language (Arabic), its values in words.
      'الهوية الرقمية الإماراتية (UAE PASS)',
      'واتساب',
      // Each signer's place, with their signature (typed: the automatic journey's signers type their name).
      'التوقيع: توقيع مكتوب: «Layla Haddad»',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('keeps a hash-chained audit trail that `envelopes audit --verify` checks', async () => {
    const { id } = await create(sandbox, EXAMPLE);
    await waitForStatus(sandbox, id, 'completed');
    const env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
    const result = await runCli(['envelopes', 'audit', id, '--verify', '--json'], { env });
    expect(result.code).toBe(0);
    const trail = JSON.parse(result.stdout);
    expect(trail.verification).toMatchObject({ valid: true, entries: 11, problem: null });
    expect(trail.entries.map((e: { type: string }) => e.type)).toEqual([
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
      'document.sealed',
    ]);
    // The closing entry names the signed copy's hash: the copy downloaded now is that document.
    const pdf = Buffer.from(
      await (
        await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}/signed-copy`, {
          headers: { authorization: `Bearer ${sandbox.apiKey}` },
        })
      ).arrayBuffer(),
    );
    expect(trail.entries.at(-1).detail).toBe(
      `signed copy sha256 ${createHash('sha256').update(pdf).digest('hex')}`,
    );
    expect(trail.entries[0].actor).toMatch(/^api_key:key_\w+ \(sandbox\)$/);
    expect(trail.entries[3].actor).toMatch(/^signer:sgn_\w+ \(Layla Haddad\)$/);
    const table = await runCli(['envelopes', 'audit', id], { env });
    expect(table.stdout).toContain('signer.verified');
  });

  it('lists API keys masked as the published interface shows them', async () => {
    const response = await fetch(`${sandbox.baseUrl}/api/v1/api-keys`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    const body = (await response.json()) as { data: Record<string, unknown>[] };
    expect(JSON.stringify(body)).not.toContain(sandbox.apiKey);
    expect(body.data[0]).toMatchObject({
      name: 'sandbox',
      environment: 'test',
      key: `sk_test_****${sandbox.apiKey.slice(-4)}`,
      scopes: ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'],
    });
    expect(body.data[0]!.expires).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(typeof body.data[0]!.last_used).toBe('string');
  });

  it('keeps creating envelopes at full speed while a receiver hangs', async () => {
    const hanging = await startReceiver(() => 'hang');
    try {
      const ids = [];
      for (let i = 0; i < 5; i++)
        ids.push((await create(sandbox, { ...EXAMPLE, webhook_url: hanging.url })).id);
      expect(ids).toHaveLength(5);
      // The journeys go on without waiting for the receiver.
      await waitForStatus(sandbox, ids[4]!, 'completed');
    } finally {
      await hanging.close();
    }
  });
});

describe('webhook retries (speed 100)', () => {
  let sandbox: SandboxProcess;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ args: ['--speed', '100'] });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('redelivers a failed delivery with the same webhook-id until it succeeds, and the journey completes', async () => {
    const receiver = await startReceiver((n) => (n < 3 ? 500 : 200));
    try {
      const { id } = await create(sandbox, { ...EXAMPLE, webhook_url: receiver.url });
      await receiver.waitFor((all) => eventTypes(all).includes('envelope.completed'), 60_000);
      const first = receiver.deliveries.slice(0, 4);
      expect(first.map((d) => d.answered)).toEqual([500, 500, 500, 200]);
      expect(new Set(first.map((d) => d.headers['webhook-id'])).size).toBe(1);
      expect(new Set(first.map((d) => d.body)).size).toBe(1);
      // Each attempt is signed afresh, and every one verifies.
      const webhook = new Webhook(sandbox.webhookSecret);
      for (const d of first) webhook.verify(d.body, d.headers as Record<string, string>);
      // After the retries, the rest arrive once each, in order.
      const types = eventTypes(receiver.deliveries);
      expect(types).toHaveLength(10);
      expect(types[0]).toBe('envelope.created');
      expect(types.at(-1)).toBe('envelope.completed');
      expect((await getEnvelope(sandbox, id)).status).toBe('completed');
    } finally {
      await receiver.close();
    }
  });
});

describe('final delivery failure and expiry (speed 200000)', () => {
  let sandbox: SandboxProcess;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ args: ['--speed', '200000'] });
  });
  afterAll(async () => {
    await sandbox?.stop();
  });

  it('gives up after 8 retries (9 attempts), marks the delivery failed, and moves on to the next event', async () => {
    const receiver = await startReceiver((n) => (n < 9 ? 503 : 200));
    try {
      const { id } = await create(sandbox, { ...EXAMPLE, webhook_url: receiver.url });
      await receiver.waitFor((all) => eventTypes(all).includes('envelope.completed'), 60_000);
      const firstId = receiver.deliveries[0]!.headers['webhook-id'];
      expect(receiver.deliveries.filter((d) => d.headers['webhook-id'] === firstId)).toHaveLength(9);
      const { data } = await sandbox.control<{
        data: { event_type: string; status: string; attempts: number }[];
      }>(`/_sandbox/deliveries?envelope_id=${id}`);
      expect(data[0]).toMatchObject({ event_type: 'envelope.created', status: 'failed', attempts: 9 });
      expect(data.slice(1).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('expires an envelope whose signer never opens it (magic +noview) after expires_in_days', async () => {
    const list = signers();
    list[0]!.email = 'layla+noview@example.com';
    const { id } = await create(sandbox, { ...EXAMPLE, signers: list, expires_in_days: 1 });
    const envelope = await waitForStatus(sandbox, id, 'expired');
    expect((envelope.signers as Signer[]).map((s) => s.status)).toEqual(['notified', 'pending']);
  });
});

describe('restarts', () => {
  it('resumes journeys and pending deliveries after kill -9', async () => {
    const receiver = await startReceiver();
    const first = await startSandboxProcess({ args: ['--speed', '2'] });
    let second: SandboxProcess | undefined;
    try {
      const { id } = await create(first, { ...EXAMPLE, webhook_url: receiver.url });
      await receiver.waitFor((all) => eventTypes(all).includes('signer.notified'));
      await first.stop('SIGKILL');
      second = await startSandboxProcess({ dataDir: first.dataDir, args: ['--speed', '40'] });
      await receiver.waitFor((all) => eventTypes(all).includes('envelope.completed'));
      // Delivery is at least once: an event acknowledged just before the kill may come again with
      // the same webhook-id (receivers dedupe on it), so compare the distinct events.
      const seen = new Set<unknown>();
      const distinct = receiver.deliveries.filter(
        (d) => d.answered === 200 && !seen.has(d.headers['webhook-id']) && seen.add(d.headers['webhook-id']),
      );
      expect(eventTypes(distinct)).toEqual([
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
      expect((await getEnvelope(second, id)).status).toBe('completed');
    } finally {
      await second?.stop();
      await first.stop();
      await receiver.close();
    }
  });

  it('detects a tampered audit entry in the stored state', async () => {
    const sandbox = await startSandboxProcess({ args: ['--speed', '40'] });
    const { id } = await create(sandbox, EXAMPLE);
    await waitForStatus(sandbox, id, 'completed');
    await sandbox.stop();
    const state = join(sandbox.dataDir, 'state.jsonl');
    const original = readFileSync(state, 'utf8');
    const tampered = original.replace(
      '"detail":"identity verified with uae_pass"',
      '"detail":"identity verified with passport"',
    );
    expect(tampered).not.toBe(original);
    writeFileSync(state, tampered);
    const again = await startSandboxProcess({ dataDir: sandbox.dataDir });
    try {
      const result = await runCli(['envelopes', 'audit', id, '--verify'], {
        env: { SIGN_BASE_URL: again.baseUrl, SIGN_API_KEY: again.apiKey },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/does not verify: at entry 5: the entry does not match its hash/);
    } finally {
      await again.stop();
    }
  });
});
