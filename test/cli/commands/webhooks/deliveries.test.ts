/** `webhooks deliveries`, in process against an in-process sandbox whose webhooks go to real receivers. */
import { RETRY_SCHEDULE_MS } from '../../../../src/sandbox/delivery/deliveries.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deliveryFixture,
  deliveryLines,
  until,
  SPEED,
  type DeliveryFixture,
} from '../../../helpers/deliveries.js';
import { example } from '../../../helpers/envelopes.js';
import { startTestSandbox } from '../../../helpers/in-process.js';
import { eventTypes, startReceiver } from '../../../helpers/receiver.js';

let f: DeliveryFixture;
beforeAll(async () => {
  f = await deliveryFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('webhooks deliveries', () => {
  it('--failed --json: the deliveries that failed, newest first, each with every attempt', async () => {
    const result = await f.cli(['webhooks', 'deliveries', '--failed', '--json', '--limit', '100']);
    expect(result.code, result.stderr).toBe(0);
    const failed = deliveryLines(result.stdout);
    expect(failed.every((d) => d.status === 'failed' || d.status === 'retrying')).toBe(true);

    // A: only its first event failed: 9 attempts (8 retries), each a 500, at times that keep the schedule.
    const ofA = failed.filter((d) => d.envelope_id === f.envelopeA);
    expect(ofA).toHaveLength(1);
    const first = ofA[0]!;
    expect(first).toMatchObject({
      event_type: 'envelope.created',
      status: 'failed',
      url: f.flaky.url,
      resend: false,
      attempt_count: 9,
    });
    expect(first.id).toMatch(/^dlv_\w+$/);
    expect(first.event_id).toBe(f.flaky.deliveries[0]!.headers['webhook-id']);
    expect(first.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(
      first.attempts.every((a) => a.status === 500 && a.error === 'HTTP 500' && a.duration_ms >= 0),
    ).toBe(true);
    const times = first.attempts.map((a) => Date.parse(a.started_at));
    // A timer may fire up to a millisecond or so early: 2 ms of real time in sandbox time.
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[i - 1]! - 2 * SPEED);

    // B: its webhook_url is a closed port: no status, the connection error.
    const ofB = failed.filter((d) => d.envelope_id === f.envelopeB);
    expect(ofB.length).toBeGreaterThanOrEqual(1);
    const createdB = ofB.find((d) => d.event_type === 'envelope.created')!;
    expect(createdB).toMatchObject({ status: 'failed', url: f.closedUrl, attempt_count: 9 });
    expect(createdB.attempts.every((a) => a.status === null && /ECONNREFUSED/.test(a.error ?? ''))).toBe(
      true,
    );

    // Newest first: B was created after A, so its deliveries come before A's.
    expect(failed.findIndex((d) => d.envelope_id === f.envelopeB)).toBeLessThan(
      failed.findIndex((d) => d.envelope_id === f.envelopeA),
    );
  });

  it('--envelope filters; --query applies per line; the table shows the same', async () => {
    const json = await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const ofA = deliveryLines(json.stdout);
    expect(ofA).toHaveLength(10);
    expect(ofA.every((d) => d.envelope_id === f.envelopeA)).toBe(true);
    // The first event never got a 2xx from the receiver; the other nine did, in order.
    expect(ofA.map((d) => d.event_type).reverse()).toEqual([
      'envelope.created',
      ...eventTypes(f.flaky.deliveries),
    ]);
    for (const d of ofA.slice(0, -1)) {
      expect(d.status).toBe('delivered');
      expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, error: null })]);
    }

    const ids = await f.cli([
      'webhooks',
      'deliveries',
      '--envelope',
      f.envelopeA,
      '--limit',
      '3',
      '--query',
      'event_type',
    ]);
    expect(ids.stdout).toBe(
      `${ofA
        .slice(0, 3)
        .map((d) => d.event_type)
        .join('\n')}\n`,
    );

    const table = await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--failed']);
    expect(table.code).toBe(0);
    const rows = table.stdout
      .trimEnd()
      .split('\n')
      .filter((line) => /\w/.test(line));
    expect(rows[0]).toMatch(
      /^EVENT\s+TYPE\s+ENVELOPE\s+STATE\s+ATTEMPTS\s+LAST RESULT\s+LAST ATTEMPT\s+URL$/,
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(ofA.at(-1)!.event_id);
    expect(rows[1]).toContain(f.envelopeA);
    expect(rows[1]).toMatch(/failed\s+9\s+HTTP 500\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s/);
  });
});

describe('webhooks deliveries --all', () => {
  it('follows the cursor past one page (100): every delivery once; a limit says "more" only when there is more', async () => {
    // Twelve more journeys of about ten events each, to a receiver of their own: more deliveries than one page holds.
    const own = await startReceiver();
    const batch = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ ...example(), contract_id: `CTR-ALL-${i}`, webhook_url: own.url }),
    ).join('\n');
    const created = await f.cli(['envelopes', 'create', '--ndjson', '-f', '-', '--new', '--json'], {
      input: `${batch}\n`,
    });
    expect(created.code, created.stderr).toBe(0);
    const recorded = async () =>
      (await f.sandbox.control<{ data: { id: string; status: string }[] }>('/_sandbox/deliveries')).data;
    await until(async () => {
      const all = await recorded();
      return (
        all.length > 100 &&
        all.filter((d) => d.status === 'pending').length === 0 &&
        own.deliveries.length >= 12 * 10
      );
    });
    await own.close();
    const expected = await recorded();

    const result = await f.cli(['webhooks', 'deliveries', '--all', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const listed = deliveryLines(result.stdout);
    expect(listed.length).toBe(expected.length);
    expect(new Set(listed.map((d) => d.id)).size).toBe(listed.length);
    expect(new Set(listed.map((d) => d.id))).toEqual(new Set(expected.map((d) => d.id)));

    const exactly = await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--limit', '10']);
    expect(exactly.code).toBe(0);
    expect(exactly.stderr).not.toContain('more with --limit');
    const fewer = await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--limit', '9']);
    expect(fewer.stderr).toContain('showing the newest 9; more with --limit <n>, or every one with --all');

    const both = await f.cli(['webhooks', 'deliveries', '--all', '--limit', '3']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--all and --limit do not go together');
  });
});

describe('after a restart', () => {
  it('every delivery and attempt is still there', async () => {
    const before = (await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--json'])).stdout;
    await f.sandbox.stop();
    const restarted = await startTestSandbox({ dataDir: f.sandbox.dataDir, speed: SPEED });
    try {
      const after = await f.cli(['webhooks', 'deliveries', '--envelope', f.envelopeA, '--json'], {
        env: { ...f.env, SIGN_BASE_URL: restarted.baseUrl },
      });
      expect(after.code, after.stderr).toBe(0);
      expect(deliveryLines(after.stdout)).toEqual(deliveryLines(before));
      expect(deliveryLines(after.stdout)).toHaveLength(10);
    } finally {
      await restarted.stop();
    }
  });
});
