/** `webhooks resend`, in process against an in-process sandbox whose webhooks go to real receivers. */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deliveryFixture,
  deliveryLines,
  until,
  type Delivery,
  type DeliveryFixture,
} from '../../../helpers/deliveries.js';

let f: DeliveryFixture;
beforeAll(async () => {
  f = await deliveryFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('webhooks resend', () => {
  let eventId: string;
  let original: { body: string; timestamp: number; signatures: string[] };

  beforeAll(() => {
    const attempts = f.flaky.deliveries.filter(
      (d) => d.headers['webhook-id'] === f.flaky.deliveries[0]!.headers['webhook-id'],
    );
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
    const result = await f.cli(['webhooks', 'resend', eventId, '--to', f.good.url]);
    expect(result.code, result.stderr).toBe(0);
    const match = new RegExp(
      `^✓ resent ${eventId} to ${f.good.url.replace(/[.]/g, '\\.')}: delivery (dlv_\\w+)\\n$`,
    ).exec(result.stdout);
    expect(match, result.stdout).not.toBeNull();
    const deliveryId = match![1]!;
    expect(result.stderr).toContain(`sign-cli webhooks deliveries --envelope ${f.envelopeA}`);

    await f.good.waitFor((all) => all.length === 1);
    const received = f.good.deliveries[0]!;
    expect(received.body).toBe(original.body);
    expect(received.headers['webhook-id']).toBe(eventId);
    expect(Number(received.headers['webhook-timestamp'])).toBeGreaterThan(original.timestamp);
    expect(original.signatures).not.toContain(received.headers['webhook-signature']);
    expect(() =>
      new Webhook(f.sandbox.webhookSecret).verify(received.body, received.headers as Record<string, string>),
    ).not.toThrow();

    // The resend is the newest delivery of A: delivered at its first attempt; the original stays failed.
    await until(
      async () =>
        deliveryLines(
          (await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--limit', '1', '--json']))
            .stdout,
        )[0]?.status === 'delivered',
    );
    const listed = deliveryLines(
      (await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--json'])).stdout,
    );
    expect(listed).toHaveLength(11);
    expect(listed[0]).toMatchObject({
      id: deliveryId,
      event_id: eventId,
      event_type: 'envelope.created',
      url: f.good.url,
      status: 'delivered',
      resend: true,
      attempt_count: 1,
    });
    expect(listed[0]!.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, error: null })]);
    expect(listed.find((d) => d.event_id === eventId && !d.resend)).toMatchObject({
      status: 'failed',
      attempt_count: 9,
    });
  });

  it("without --to, to the event's own URL; each run is a new resend (--json: the new delivery)", async () => {
    const before = f.flaky.deliveries.length;
    const runs = [
      await f.cli(['webhooks', 'resend', eventId, '--json']),
      await f.cli(['webhooks', 'resend', eventId, '--json']),
    ];
    const made = runs.map((run) => {
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as Delivery;
    });
    expect(made[0]!.id).not.toBe(made[1]!.id);
    for (const d of made)
      expect(d).toMatchObject({
        event_id: eventId,
        url: f.flaky.url,
        resend: true,
        envelope_id: f.envelopeA,
      });
    await f.flaky.waitFor((all) => all.length === before + 2);
    for (const d of f.flaky.deliveries.slice(before)) {
      expect(d.headers['webhook-id']).toBe(eventId);
      expect(d.body).toBe(original.body);
      expect(d.answered).toBe(200);
    }
  });

  it('a bad --to is exit 2 with nothing sent; an unknown event exit 1; a key without envelopes:write exit 3', async () => {
    const sent = await f.requests();
    for (const to of ['ftp://127.0.0.1/hooks', 'not a url', '/hooks']) {
      const bad = await f.cli(['webhooks', 'resend', eventId, '--to', to]);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(/^error: --to /);
    }
    expect(await f.requests()).toBe(sent + 1);

    const unknown = await f.cli(['webhooks', 'resend', 'evt_00000000000000000000000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/HTTP 404 event_not_found/);

    const readOnly = await f.sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'reader',
      scopes: ['envelopes:read'],
    });
    const listing = await f.cli(['webhooks', 'deliveries', '--limit', '1', '--json'], {
      env: { ...f.env, SIGN_API_KEY: readOnly.key },
    });
    expect(listing.code, listing.stderr).toBe(0);
    const refused = await f.cli(['webhooks', 'resend', eventId], {
      env: { ...f.env, SIGN_API_KEY: readOnly.key },
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/HTTP 403.*envelopes:write/);

    const limit = await f.cli(['webhooks', 'deliveries', '--limit', '0']);
    expect(limit.code).toBe(2);
  });
});
