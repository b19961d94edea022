import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  hmacSignature,
  signStandard,
  signStripe,
  standardSignature,
  WebhookVerifier,
  strictBase64,
} from '../../src/core/webhooks/webhooks.js';
import { deliveryId } from '../../src/core/webhooks/webhook-parsing.js';
import { SeenIds } from '../../src/listener/seen-ids.js';

// The published test vectors of the Standard Webhooks project (libraries/javascript/src/webhook.test.ts).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const body = (text: string) => Buffer.from(text);

describe('Standard Webhooks', () => {
  const verifier = new WebhookVerifier({ secrets: [VECTOR.secret] });
  const now = Date.now();
  const fresh = () => {
    const timestamp = Math.floor(now / 1000);
    return {
      timestamp,
      headers: { ...signStandard(VECTOR.secret, VECTOR.id, timestamp, VECTOR.payload) } as Record<
        string,
        string
      >,
    };
  };

  it('signs the published test vector', () => {
    expect(`v1,${standardSignature(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)}`).toBe(
      VECTOR.signature,
    );
    // ...and verifies it at its own time, with and without the whsec_ prefix.
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    };
    expect(verifier.verify(headers, body(VECTOR.payload), VECTOR.timestamp * 1000)).toMatchObject({
      ok: true,
      id: VECTOR.id,
    });
    const unprefixed = new WebhookVerifier({ secrets: [VECTOR.secret.slice(6)] });
    expect(unprefixed.verify(headers, body(VECTOR.payload), VECTOR.timestamp * 1000).ok).toBe(true);
  });

  it('accepts what the standardwebhooks package signs, and the package accepts what we sign', () => {
    const wh = new Webhook(VECTOR.secret);
    const timestamp = new Date(now);
    const signature = wh.sign(VECTOR.id, timestamp, VECTOR.payload);
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(Math.floor(now / 1000)),
      'webhook-signature': signature,
    };
    expect(verifier.verify(headers, body(VECTOR.payload), now).ok).toBe(true);
    expect(() => wh.verify(VECTOR.payload, fresh().headers)).not.toThrow();
  });

  it.each([
    ['missing id', (h: Record<string, string>) => delete h['webhook-id'], 401, 'missing header webhook-id'],
    [
      'missing timestamp',
      (h: Record<string, string>) => delete h['webhook-timestamp'],
      401,
      'missing header webhook-timestamp',
    ],
    [
      'missing signature',
      (h: Record<string, string>) => delete h['webhook-signature'],
      401,
      'missing header webhook-signature',
    ],
    [
      'invalid timestamp',
      (h: Record<string, string>) => (h['webhook-timestamp'] = 'hello'),
      400,
      'not a Unix time',
    ],
    [
      'invalid signature',
      (h: Record<string, string>) => (h['webhook-signature'] = 'v1,dawfeoifkpqwoekfpqoekf'),
      401,
      'signature mismatch',
    ],
    [
      'partial signature',
      (h: Record<string, string>) => (h['webhook-signature'] = h['webhook-signature']!.slice(0, 8)),
      401,
      'signature mismatch',
    ],
    [
      'empty v1 signature',
      (h: Record<string, string>) => (h['webhook-signature'] = 'v1,'),
      401,
      'signature mismatch',
    ],
    [
      'only other versions',
      (h: Record<string, string>) => (h['webhook-signature'] = 'v2,abc v3,def'),
      401,
      'no v1 or v1a signature (found "v2", "v3")',
    ],
  ])('rejects %s', (_name, change, status, reason) => {
    const { headers } = fresh();
    change(headers);
    const result = verifier.verify(headers, body(VECTOR.payload), now);
    expect(result).toMatchObject({ ok: false, status });
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it('accepts a header with several signatures when one is valid', () => {
    const { headers } = fresh();
    headers['webhook-signature'] = [
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      headers['webhook-signature'],
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
    ].join(' ');
    expect(verifier.verify(headers, body(VECTOR.payload), now).ok).toBe(true);
  });

  it('rejects timestamps too old or too far ahead, saying by how much', () => {
    const old = Math.floor(now / 1000) - 301;
    const oldHeaders = signStandard(VECTOR.secret, VECTOR.id, old, VECTOR.payload) as unknown as Record<
      string,
      string
    >;
    expect(verifier.verify(oldHeaders, body(VECTOR.payload), now)).toMatchObject({
      ok: false,
      code: 'timestamp_too_old',
      reason: expect.stringContaining('301 s old'),
    });
    const ahead = Math.floor(now / 1000) + 400;
    const aheadHeaders = signStandard(VECTOR.secret, VECTOR.id, ahead, VECTOR.payload) as unknown as Record<
      string,
      string
    >;
    expect(verifier.verify(aheadHeaders, body(VECTOR.payload), now)).toMatchObject({
      ok: false,
      code: 'timestamp_in_future',
    });
    // Tolerance 0 turns the check off (for deliveries captured long ago).
    expect(
      new WebhookVerifier({ secrets: [VECTOR.secret], toleranceSeconds: 0 }).verify(
        oldHeaders,
        body(VECTOR.payload),
        now,
      ).ok,
    ).toBe(true);
  });

  it('rejects a changed body and a wrong secret', () => {
    const { headers } = fresh();
    expect(verifier.verify(headers, body('{"test": 2432232315}'), now).ok).toBe(false);
    const other = new WebhookVerifier({ secrets: ['whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'] });
    expect(other.verify(headers, body(VECTOR.payload), now)).toMatchObject({
      ok: false,
      code: 'signature_mismatch',
    });
  });

  it('accepts only canonical base64 of 32 bytes: junk appended or inserted, or padding removed, does not verify', () => {
    const { headers } = fresh();
    const valid = headers['webhook-signature']!.slice(3);
    expect(verifier.verify(headers, body(VECTOR.payload), now).ok).toBe(true);
    for (const lenient of [
      `${valid}XYZ`,
      `${valid.slice(0, 10)}!!${valid.slice(10)}`,
      valid.replace(/=+$/, ''),
      ` ${valid}`.trim() + '\n',
    ]) {
      const result = verifier.verify(
        { ...headers, 'webhook-signature': `v1,${lenient}` },
        body(VECTOR.payload),
        now,
      );
      expect(result).toMatchObject({ ok: false, code: 'signature_mismatch' });
    }
    expect(strictBase64(valid, 32)?.length).toBe(32);
    expect(strictBase64('AAA=', 2)).toHaveLength(2);
    expect(strictBase64('AAB=', 2)).toBeUndefined(); // non-zero padding bits: not canonical
  });

  it('accepts any of several secrets during a rotation, and says which', () => {
    const rotating = new WebhookVerifier({
      secrets: ['whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', VECTOR.secret],
    });
    expect(rotating.verify(fresh().headers, body(VECTOR.payload), now)).toMatchObject({
      ok: true,
      secretIndex: 1,
    });
  });

  it('understands the svix-* header names too', () => {
    const { headers } = fresh();
    const svix = {
      'svix-id': headers['webhook-id']!,
      'svix-timestamp': headers['webhook-timestamp']!,
      'svix-signature': headers['webhook-signature']!,
    };
    expect(verifier.verify(svix, body(VECTOR.payload), now).ok).toBe(true);
  });

  it('refuses a secret that is not whsec_ base64', () => {
    expect(() => new WebhookVerifier({ secrets: ['not base64!'] })).toThrow(/Standard Webhooks secret/);
    expect(() => new WebhookVerifier({ secrets: [] })).toThrow(/no webhook secret/);
  });
});

describe('Stripe scheme', () => {
  const secret = 'whsec_stripe_test_secret';
  const verifier = new WebhookVerifier({ scheme: 'stripe', secrets: [secret] });
  const payload = JSON.stringify({ id: 'evt_1', type: 'signer.signed' });

  it("accepts the stripe package's test header, and Stripe accepts ours", () => {
    const stripe = new Stripe('sk_test_unused');
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
    expect(verifier.verify({ 'stripe-signature': header }, body(payload))).toMatchObject({ ok: true });
    const ours = signStripe(secret, Math.floor(Date.now() / 1000), payload);
    expect(stripe.webhooks.constructEvent(payload, ours, secret)).toMatchObject({ id: 'evt_1' });
  });

  it('rejects a stale timestamp, a missing header and a wrong secret', () => {
    const stripe = new Stripe('sk_test_unused');
    const stale = stripe.webhooks.generateTestHeaderString({
      payload,
      secret,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect(verifier.verify({ 'stripe-signature': stale }, body(payload))).toMatchObject({
      ok: false,
      code: 'timestamp_too_old',
    });
    expect(verifier.verify({}, body(payload))).toMatchObject({
      ok: false,
      status: 401,
      reason: 'missing header stripe-signature',
    });
    const wrong = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' });
    expect(verifier.verify({ 'stripe-signature': wrong }, body(payload))).toMatchObject({
      ok: false,
      code: 'signature_mismatch',
    });
    expect(verifier.verify({ 'stripe-signature': 'v1=abc' }, body(payload))).toMatchObject({
      ok: false,
      status: 400,
    });
  });
});

describe('plain HMAC scheme', () => {
  const payload = '{"id":"evt_9","type":"envelope.completed"}';

  it.each([
    ['sha256', 'hex', (s: string) => s],
    ['sha256', 'base64', (s: string) => s],
    ['sha512', 'hex', (s: string) => s],
    ['sha256', 'hex', (s: string) => `sha256=${s}`],
  ] as const)('accepts %s %s signatures', (algorithm, encoding, wrap) => {
    const verifier = new WebhookVerifier({
      scheme: 'hmac',
      secrets: ['plain secret'],
      algorithm,
      signatureHeader: 'X-DocuSign-Signature-1',
    });
    const signature = wrap(hmacSignature('plain secret', payload, algorithm, encoding));
    expect(verifier.verify({ 'x-docusign-signature-1': signature }, body(payload)).ok).toBe(true);
    expect(verifier.verify({ 'x-docusign-signature-1': signature }, body(`${payload} `)).ok).toBe(false);
    expect(verifier.verify({}, body(payload))).toMatchObject({
      ok: false,
      reason: 'missing header x-docusign-signature-1',
    });
  });

  it('falls back to the payload id, then a body hash, for de-duplication', () => {
    expect(deliveryId(undefined, { id: 'evt_9' }, body(payload))).toBe('evt_9');
    expect(deliveryId(undefined, {}, body(payload))).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(deliveryId('msg_1', { id: 'evt_9' }, body(payload))).toBe('msg_1');
  });
});

describe('SeenIds', () => {
  it('counts redeliveries and forgets the oldest beyond its capacity', () => {
    const seen = new SeenIds(3);
    expect(seen.record('a')).toBe(1);
    expect(seen.record('a')).toBe(2);
    for (const id of ['b', 'c', 'd']) seen.record(id);
    expect(seen.size).toBe(3);
    expect(seen.record('a')).toBe(1); // forgotten: the bound holds
  });

  it('survives a restart through its state file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'seen-')), 'seen.json');
    const first = new SeenIds(10, file);
    first.record('evt_1');
    first.save();
    expect(new SeenIds(10, file).record('evt_1')).toBe(2);
  });
});
