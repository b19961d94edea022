/**
 * Standard Webhooks' asymmetric scheme (`v1a`, Ed25519), and failures that
 * explain themselves: another scheme, another kind of key, a body altered in
 * transit, a wrong secret, a stale timestamp with its skew.
 */
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  ed25519PublicKeyOf,
  newEd25519KeyPair,
  newStandardSecret,
  signStandard,
  signStripe,
  WebhookVerifier,
} from '../../src/core/webhooks/webhooks.js';

/** The Standard Webhooks libraries' published v1a vector (libraries/go/webhook_asymmetric_test.go, TestAsymmetricWebhookSign). */
const V1A = {
  signingKey: 'whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag==',
};
const body = (text: string) => Buffer.from(text);

describe('Ed25519 (v1a)', () => {
  it('signs the published vector byte for byte, and verifies it with the whpk_ key', () => {
    const headers = signStandard(V1A.signingKey, V1A.id, V1A.timestamp, V1A.payload);
    expect(headers['webhook-signature']).toBe(V1A.signature);
    const verifier = new WebhookVerifier({
      secrets: [ed25519PublicKeyOf(V1A.signingKey)],
      toleranceSeconds: 0,
    });
    expect(verifier.verify(headers, body(V1A.payload))).toMatchObject({
      ok: true,
      id: V1A.id,
      secretIndex: 0,
    });
    // The signing key verifies too (its public half), as in the Standard Webhooks libraries.
    expect(
      new WebhookVerifier({ secrets: [V1A.signingKey], toleranceSeconds: 0 }).verify(
        headers,
        body(V1A.payload),
      ).ok,
    ).toBe(true);
  });

  it('a delivery verifies when any listed signature matches any listed key (rotation, mixed kinds)', () => {
    const old = newEd25519KeyPair();
    const current = newEd25519KeyPair();
    const hmac = newStandardSecret();
    const now = 1_800_000_000;
    const v1a = signStandard(current.secretKey, 'evt_1', now, '{"a":1}')['webhook-signature'];
    const v1 = signStandard(hmac, 'evt_1', now, '{"a":1}')['webhook-signature'];
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(now),
      'webhook-signature': `v1a,${Buffer.alloc(64).toString('base64')} ${v1a}`,
    };
    const verifier = new WebhookVerifier({
      secrets: [old.publicKey, hmac, current.publicKey],
      toleranceSeconds: 0,
    });
    expect(verifier.verify(headers, body('{"a":1}'))).toMatchObject({ ok: true, secretIndex: 2 });
    expect(
      verifier.verify({ ...headers, 'webhook-signature': `${v1} v1a,${'A'.repeat(86)}==` }, body('{"a":1}')),
    ).toMatchObject({ ok: true, secretIndex: 1 });
    // Only the old pair: no match.
    expect(
      new WebhookVerifier({ secrets: [old.publicKey], toleranceSeconds: 0 }).verify(headers, body('{"a":1}')),
    ).toMatchObject({ ok: false, code: 'signature_mismatch' });
  });

  it('a v1a signature that is not canonical base64 of 64 bytes never verifies', () => {
    const headers = signStandard(V1A.signingKey, V1A.id, V1A.timestamp, V1A.payload);
    const verifier = new WebhookVerifier({
      secrets: [ed25519PublicKeyOf(V1A.signingKey)],
      toleranceSeconds: 0,
    });
    const sig = V1A.signature.slice(4);
    for (const bad of [sig.replace(/==$/, ''), `${sig.slice(0, 10)}!${sig.slice(10)}`, `${sig}AAAA`]) {
      expect(verifier.verify({ ...headers, 'webhook-signature': `v1a,${bad}` }, body(V1A.payload)).ok).toBe(
        false,
      );
    }
  });

  it('keys are checked when given: a whpk_ that is not 32 bytes is an error naming it', () => {
    expect(() => new WebhookVerifier({ secrets: [newStandardSecret(), 'whpk_c2hvcnQ='] })).toThrow(
      /secret #2: an Ed25519 public key is "whpk_" followed by the base64 of 32 bytes/,
    );
    expect(() => new WebhookVerifier({ scheme: 'stripe', secrets: [newEd25519KeyPair().publicKey] })).toThrow(
      /only the standard scheme uses/,
    );
  });

  it('the standardwebhooks package (HMAC only) and sign-cli agree on v1 beside v1a', () => {
    const secret = newStandardSecret();
    const pair = newEd25519KeyPair();
    const now = Math.floor(Date.now() / 1000);
    const v1 = signStandard(secret, 'evt_2', now, '{"b":2}');
    const both = {
      ...v1,
      'webhook-signature': `${signStandard(pair.secretKey, 'evt_2', now, '{"b":2}')['webhook-signature']} ${v1['webhook-signature']}`,
    };
    expect(() => new Webhook(secret).verify('{"b":2}', both)).not.toThrow();
    expect(new WebhookVerifier({ secrets: [pair.publicKey] }).verify(both, body('{"b":2}')).ok).toBe(true);
  });
});

describe('failures explain themselves', () => {
  const secret = newStandardSecret();
  const now = 1_800_000_000;
  const verifier = new WebhookVerifier({ secrets: [secret] });
  const signed = (text: string, at = now) => signStandard(secret, 'evt_3', at, text);

  it.each([
    ['a trailing newline added', '{"a":1}', '{"a":1}\n'],
    ['a trailing newline removed', '{"a":1}\n', '{"a":1}'],
    ['line ends converted to CRLF', '{\n"a":1\n}', '{\r\n"a":1\r\n}'],
    ['the JSON re-serialised', JSON.stringify({ a: 1, b: [1, 2] }, null, 2), '{"a":1,"b":[1,2]}'],
    ['the JSON re-serialised', '{"a":1,"b":[1,2]}', '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}'],
    ['a byte-order mark added', '{"a":1}', '\ufeff{"a":1}'],
  ])('body altered in transit: %s', (how, sent, received) => {
    const result = verifier.verify(signed(sent), body(received), now * 1000);
    expect(result).toMatchObject({ ok: false, code: 'body_altered' });
    if (!result.ok) expect(result.reason).toMatch(new RegExp(`^body altered in transit \\(${how}\\)`));
  });

  it('wrong secret: no variant of the body matches', () => {
    const result = new WebhookVerifier({ secrets: [newStandardSecret()] }).verify(
      signed('{"a":1}'),
      body('{"a":1}'),
      now * 1000,
    );
    expect(result).toMatchObject({ ok: false, code: 'signature_mismatch' });
    if (!result.ok) expect(result.reason).toContain('wrong secret');
  });

  it('stale timestamp, with the skew in seconds; and one from the future', () => {
    const old = verifier.verify(signed('{}', now - 412), body('{}'), now * 1000);
    expect(old).toMatchObject({ ok: false, code: 'timestamp_too_old' });
    if (!old.ok) expect(old.reason).toContain('timestamp is 412 s old, beyond the 300 s tolerance');
    const ahead = verifier.verify(signed('{}', now + 900), body('{}'), now * 1000);
    if (!ahead.ok) expect(ahead.reason).toContain('900 s in the future');
  });

  it('another scheme is named with the option that verifies it', () => {
    const stripe = verifier.verify(
      { 'stripe-signature': signStripe('whsec_x', now, '{}') },
      body('{}'),
      now * 1000,
    );
    expect(stripe).toMatchObject({ ok: false, code: 'other_scheme' });
    if (!stripe.ok)
      expect([stripe.reason, stripe.suggestion]).toEqual([
        'signed the Stripe way (stripe-signature), not standard',
        { scheme: 'stripe' },
      ]);
    const standardUnderStripe = new WebhookVerifier({ scheme: 'stripe', secrets: ['whsec_x'] }).verify(
      signed('{}'),
      body('{}'),
      now * 1000,
    );
    if (!standardUnderStripe.ok) expect(standardUnderStripe.suggestion).toEqual({ scheme: 'standard' });
    const github = verifier.verify({ 'x-hub-signature-256': 'sha256=00' }, body('{}'), now * 1000);
    if (!github.ok)
      expect(github.suggestion).toEqual({ scheme: 'hmac', signatureHeader: 'x-hub-signature-256' });
  });

  it('a signature of a kind no given key can check is named, with the key to add', () => {
    const pair = newEd25519KeyPair();
    const edSigned = signStandard(pair.secretKey, 'evt_4', now, '{}');
    const onlyHmac = verifier.verify(edSigned, body('{}'), now * 1000);
    expect(onlyHmac).toMatchObject({ ok: false, code: 'key_kind_mismatch' });
    if (!onlyHmac.ok) expect(onlyHmac.reason).toContain("add the sender's whpk_ key");
    const onlyPublic = new WebhookVerifier({ secrets: [pair.publicKey] }).verify(
      signed('{}'),
      body('{}'),
      now * 1000,
    );
    if (!onlyPublic.ok) expect(onlyPublic.reason).toContain("add the sender's whsec_ secret");
  });
});
