/**
 * The checks a receiver passes by answering 2xx: deliveries the service does
 * send, in the ways it sends them (every event type, again after a lost
 * answer, signed twice during a rotation, types and fields added later, out
 * of order, many at once, large). Any other answer makes the service retry
 * the delivery, and in the end mark it failed.
 */
import { EVENT_TYPES } from '../webhooks/events.js';
import { is2xx, quantile, seconds, summarize, tally } from './answers.js';
import { newEnvelopeId, sampleDelivery } from './sample-events.js';
import type { Attempt, CheckSpec, Kit, Outcome } from './types.js';

function accepted(kit: Kit, attempts: Attempt[]): Outcome {
  return { pass: attempts.every(is2xx), got: summarize(attempts, is2xx, kit.timeoutMs), attempts };
}

/**
 * Sends each event of `types`, one after the other: for one envelope, or
 * (`envelopes: 'each'`) each for an envelope of its own, as the service sends
 * no envelope every end state.
 */
async function sendInTurn(kit: Kit, types: readonly string[], envelopes: 'one' | 'each'): Promise<Attempt[]> {
  const shared = newEnvelopeId();
  const attempts: Attempt[] = [];
  for (const type of types) {
    const event = sampleDelivery(type, envelopes === 'one' ? shared : newEnvelopeId());
    attempts.push(
      await kit.send(type, event.body, kit.signer.headers(event.id, kit.nowSeconds(), event.body)),
    );
  }
  return attempts;
}

export const everyEvent: CheckSpec = {
  id: 'accepts-events',
  name: 'accepts each event',
  sent: () => `a valid delivery of each of the ${EVENT_TYPES.length} event types`,
  expected: (kit) => `2xx within ${seconds(kit.timeoutMs)}`,
  why: 'any other answer is retried, then marked failed: the event is lost to the receiver',
  run: async (kit) => accepted(kit, await sendInTurn(kit, EVENT_TYPES, 'each')),
};

export const redelivery: CheckSpec = {
  id: 'tolerates-redelivery',
  name: 'tolerates a redelivery',
  sent: () => 'the same event id again, freshly signed',
  expected: () => '2xx both times',
  why: 'delivery is at least once: a retry after a lost answer repeats an event already handled',
  async run(kit) {
    const event = sampleDelivery('signer.signed', newEnvelopeId());
    const now = kit.nowSeconds();
    // The first as if its answer had been lost a little while ago; the redelivery signed now.
    const earlier = kit.signer.timestamped ? now - Math.min(30, Math.floor(kit.toleranceSeconds / 2)) : now;
    const first = await kit.send(
      'first delivery',
      event.body,
      kit.signer.headers(event.id, earlier, event.body),
    );
    const again = await kit.send('redelivery', event.body, kit.signer.headers(event.id, now, event.body));
    return accepted(kit, [first, again]);
  },
};

export const rotation: CheckSpec = {
  id: 'survives-rotation',
  name: 'survives secret rotation',
  sent: () => "two signatures in the header, another secret's and its own, in both orders",
  expected: () => '2xx when either matches',
  why: 'while a secret is rotated the service signs with both; a receiver reading only the first rejects every event',
  skip: (kit) => (kit.signer.carriesSeveral ? undefined : 'the hmac scheme carries one signature'),
  async run(kit) {
    const attempts: Attempt[] = [];
    const other = kit.signer.otherSecret();
    for (const [label, first] of [
      ['another secret first', true],
      ['its own secret first', false],
    ] as const) {
      const event = sampleDelivery('signer.signed', newEnvelopeId());
      const headers = kit.signer.rotation(event.id, kit.nowSeconds(), event.body, other, first);
      attempts.push(await kit.send(label, event.body, headers));
    }
    return accepted(kit, attempts);
  },
};

export const unknownThings: CheckSpec = {
  id: 'ignores-unknown',
  name: 'ignores what it does not know',
  sent: () => 'an event type the service may add later, and fields it may add later',
  expected: () => '2xx, not 5xx',
  why: 'the service adds event types and fields without notice; a 5xx makes every such event fail',
  async run(kit) {
    const envelopeId = newEnvelopeId();
    const attempts: Attempt[] = [];
    const unknownType = sampleDelivery('signer.reassigned', envelopeId);
    const unknownFields = sampleDelivery('signer.signed', envelopeId, {
      top: { api_version: '2027-01-01', livemode: false },
      data: { signer_locale: 'ar', attachments: [] },
    });
    for (const [label, event] of [
      ['unknown type signer.reassigned', unknownType],
      ['unknown fields', unknownFields],
    ] as const)
      attempts.push(
        await kit.send(label, event.body, kit.signer.headers(event.id, kit.nowSeconds(), event.body)),
      );
    return accepted(kit, attempts);
  },
};

/** One envelope's journey, last event first. */
const REVERSED = [
  'envelope.completed',
  'signer.signed',
  'signer.verified',
  'signer.viewed',
  'signer.notified',
  'envelope.sent',
  'envelope.created',
] as const;

export const order: CheckSpec = {
  id: 'tolerates-order',
  name: 'tolerates order',
  sent: () => `one envelope's ${REVERSED.length} events, last first`,
  expected: () => '2xx, not 5xx',
  why: 'retries and resends reorder events; a receiver that fails on a late event never catches up',
  run: async (kit) => accepted(kit, await sendInTurn(kit, REVERSED, 'one')),
};

export const burst: CheckSpec = {
  id: 'answers-burst',
  name: 'answers a burst in time',
  sent: (kit) => `${kit.burst} valid deliveries at once`,
  expected: (kit) => `2xx, p95 under ${seconds(kit.timeoutMs)}`,
  why: 'a bulk send delivers many events at once; answers past the timeout are retried, adding to the load',
  async run(kit) {
    const events = Array.from({ length: kit.burst }, () => sampleDelivery('signer.viewed', newEnvelopeId()));
    const now = kit.nowSeconds();
    const attempts = await Promise.all(
      events.map((event, i) =>
        kit.send(
          `delivery ${i + 1} of ${kit.burst}`,
          event.body,
          kit.signer.headers(event.id, now, event.body),
        ),
      ),
    );
    const times = attempts.map((a) => (a.timedOut ? kit.timeoutMs : a.ms));
    const p95 = quantile(times, 0.95);
    const wrong = attempts.filter((a) => !a.timedOut && !is2xx(a));
    const pass = p95 < kit.timeoutMs && wrong.length === 0;
    const got = `${tally(attempts, kit.timeoutMs)}; p50 ${Math.round(quantile(times, 0.5))} ms, p95 ${Math.round(p95)} ms`;
    return { pass, got, attempts };
  },
};

export const boundedBody: CheckSpec = {
  id: 'bounded-body',
  name: 'bounded body',
  sent: (kit) =>
    `a valid delivery of ${Math.round((kit.maxBodyBytes + 65_536) / 1024)} KiB, over the service's largest`,
  expected: (kit) => `413 or 2xx within ${seconds(kit.timeoutMs)}`,
  why: 'a receiver that reads without a bound can be held, or run out of memory, by one large body',
  async run(kit) {
    const base = sampleDelivery('envelope.completed', newEnvelopeId(), { data: { padding: '' } });
    const body = base.body.replace('"padding":""', `"padding":"${'x'.repeat(kit.maxBodyBytes + 65_536)}"`);
    const attempt = await kit.send('large body', body, kit.signer.headers(base.id, kit.nowSeconds(), body));
    const good = (a: Attempt) => is2xx(a) || a.status === 413;
    return { pass: good(attempt), got: summarize([attempt], good, kit.timeoutMs), attempts: [attempt] };
  },
};
