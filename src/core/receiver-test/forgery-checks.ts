/**
 * The checks a receiver passes by refusing: deliveries the service never
 * sends (altered, signed with another secret, unsigned, out of time). Each
 * is signed or broken on purpose; a correct receiver answers 4xx, which the
 * service does not retry. A 5xx is a failure too: the service would retry a
 * forgery eight times.
 */
import { answerText, is2xx, is4xx, summarize } from './answers.js';
import { newEnvelopeId, sampleDelivery } from './sample-events.js';
import type { Attempt, CheckSpec, Kit, Outcome } from './types.js';

const REFUSED = '4xx, never 2xx';

/**
 * Forgeries pass only against a receiver that takes a valid delivery of the
 * same kind, sent first (`control`): a receiver refusing everything (a wrong
 * path, a wrong secret configured) is not one refusing forgeries.
 */
function refusals(kit: Kit, control: Attempt, forged: Attempt[]): Outcome {
  const attempts = [control, ...forged];
  if (!is2xx(control))
    return {
      pass: false,
      got: `the valid delivery → ${answerText(control, kit.timeoutMs)} too: a refusal proves nothing`,
      attempts,
    };
  return { pass: forged.every(is4xx), got: summarize(forged, is4xx, kit.timeoutMs), attempts };
}

/** A valid delivery of the kind the forgeries imitate. */
async function sendControl(kit: Kit): Promise<Attempt> {
  const event = sampleDelivery('envelope.completed', newEnvelopeId());
  return kit.send(
    'the valid delivery',
    event.body,
    kit.signer.headers(event.id, kit.nowSeconds(), event.body),
  );
}

export const alteredBody: CheckSpec = {
  id: 'rejects-altered-body',
  name: 'rejects an altered body',
  sent: () => 'a valid delivery, then its headers again with one byte of the body changed',
  expected: () => REFUSED,
  why: "a captured delivery with a changed body would otherwise be taken as the service's",
  async run(kit) {
    const envelopeId = newEnvelopeId();
    const event = sampleDelivery('envelope.completed', envelopeId);
    const headers = kit.signer.headers(event.id, kit.nowSeconds(), event.body);
    const original = await kit.send('the valid delivery', event.body, headers);
    // One byte: the envelope id's last digit, so the body is still an event a receiver would act on.
    const altered = event.body.replace(
      envelopeId,
      `${envelopeId.slice(0, -1)}${envelopeId.endsWith('0') ? '1' : '0'}`,
    );
    const forged = await kit.send('one byte changed', altered, headers);
    return refusals(kit, original, [forged]);
  },
};

export const wrongSecret: CheckSpec = {
  id: 'rejects-wrong-secret',
  name: 'rejects a wrong secret',
  sent: () => 'a delivery signed with another secret',
  expected: () => REFUSED,
  why: 'anyone could send events the receiver acts on',
  async run(kit) {
    const control = await sendControl(kit);
    const event = sampleDelivery('envelope.completed', newEnvelopeId());
    const headers = kit.signer.headers(event.id, kit.nowSeconds(), event.body, [kit.signer.otherSecret()]);
    return refusals(kit, control, [await kit.send('another secret', event.body, headers)]);
  },
};

export const badSignature: CheckSpec = {
  id: 'rejects-bad-signature',
  name: 'rejects a missing or malformed signature',
  sent: () => 'signature headers absent, empty, garbled, cut short',
  expected: () => REFUSED,
  why: 'a receiver that verifies only when a signature is present verifies nothing',
  async run(kit) {
    const { signer } = kit;
    const control = await sendControl(kit);
    const attempts = [];
    const now = kit.nowSeconds();
    const cases: [string, (id: string, body: string) => Record<string, string>][] = [
      ['no signature headers', () => ({})],
      ['signature header absent', (id) => signer.withSignature(id, now, undefined)],
      ['signature header empty', (id) => signer.withSignature(id, now, '')],
      ['signature garbled', (id) => signer.withSignature(id, now, garbled(kit))],
      [
        'signature cut short',
        (id, body) => {
          const headers = signer.headers(id, now, body);
          const name = signer.signatureHeaderName;
          headers[name] = headers[name]!.slice(0, -6);
          return headers;
        },
      ],
    ];
    // Outside the standard scheme the signature is the only header, so "absent" says it all.
    if (signer.scheme !== 'standard') cases.shift();
    for (const [label, headersOf] of cases) {
      const event = sampleDelivery('envelope.completed', newEnvelopeId());
      attempts.push(await kit.send(label, event.body, headersOf(event.id, event.body)));
    }
    return refusals(kit, control, attempts);
  },
};

/** A value of the signature header's shape with nothing verifiable in it. */
function garbled(kit: Kit): string {
  switch (kit.signer.scheme) {
    case 'standard':
      return 'v1,not*base64! v1a,%%%%';
    case 'stripe':
      return `t=${kit.nowSeconds()},v1=zz-not-hex`;
    case 'hmac':
      return 'sha256=not-hex-at-all';
  }
}

export const staleTimestamp: CheckSpec = {
  id: 'rejects-stale-timestamp',
  name: 'rejects a stale or future timestamp',
  sent: (kit) =>
    kit.signer.scheme === 'stripe'
      ? `a valid signature over a timestamp ${kit.toleranceSeconds + 60} s old`
      : `valid signatures over a timestamp ${kit.toleranceSeconds + 60} s old, and one as far ahead`,
  expected: () => REFUSED,
  why: 'without it a captured delivery can be replayed forever',
  skip: (kit) =>
    !kit.signer.timestamped
      ? 'the hmac scheme signs no timestamp'
      : kit.toleranceSeconds === 0
        ? 'with a tolerance of 0 the timestamp is not checked'
        : undefined,
  async run(kit) {
    const control = await sendControl(kit);
    const attempts = [];
    const off = kit.toleranceSeconds + 60;
    // Stripe's libraries check only a timestamp's age, not one ahead: its receivers are not asked to.
    const shifts: [string, number][] = [[`${off} s old`, -off]];
    if (kit.signer.scheme !== 'stripe') shifts.push([`${off} s ahead`, off]);
    for (const [label, shift] of shifts) {
      const event = sampleDelivery('envelope.completed', newEnvelopeId());
      const headers = kit.signer.headers(event.id, kit.nowSeconds() + shift, event.body);
      attempts.push(await kit.send(label, event.body, headers));
    }
    return refusals(kit, control, attempts);
  },
};
