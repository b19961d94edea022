/** The receiver-test core without HTTP: addresses, signatures, the grading of answers, the JUnit text. */
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isLocalAddress } from '../../src/core/receiver-test/address.js';
import { quantile, summarize } from '../../src/core/receiver-test/answers.js';
import { ReceiverUnreachableError, testReceiver, type Attempt } from '../../src/core/receiver-test/run.js';
import { DeliverySigner } from '../../src/core/receiver-test/signer.js';
import { xmlText } from '../../src/cli/render/junit.js';
import { SECRET } from '../helpers/webhook-events.js';

const signer = (scheme: 'standard' | 'stripe' | 'hmac' = 'standard', secret = SECRET) =>
  new DeliverySigner({ scheme, secret, signatureHeader: 'X-Signature', algorithm: 'sha256' });

describe('isLocalAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.10', true],
    ['169.254.169.254', false],
    ['fd12:3456::1', true],
    ['fe80::1', false],
    ['0.0.0.0', true],
    ['172.32.0.1', false],
    ['8.8.8.8', false],
    ['203.0.113.7', false],
    ['2001:db8::1', false],
    ['::ffff:8.8.8.8', false],
    ['example.com', false],
  ])('%s → %s', (address, local) => {
    expect(isLocalAddress(address)).toBe(local);
  });
});

describe('DeliverySigner', () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'signer.signed' });
  const now = Math.floor(Date.now() / 1000);

  it("signs as the standardwebhooks package verifies, and a rotation's two signatures in either order", () => {
    const s = signer();
    const wh = new Webhook(SECRET);
    expect(wh.verify(body, s.headers('evt_1', now, body))).toMatchObject({ id: 'evt_1' });
    const other = s.otherSecret();
    expect(other).toMatch(/^whsec_/);
    expect(() => wh.verify(body, s.headers('evt_1', now, body, [other]))).toThrow();
    for (const first of [true, false]) {
      const headers = s.rotation('evt_1', now, body, other, first);
      expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(wh.verify(body, headers)).toMatchObject({ id: 'evt_1' });
    }
  });

  it("signs as stripe's constructEvent verifies, two v1= values during a rotation", () => {
    const s = signer('stripe', 'whsec_plain');
    const stripe = new Stripe('sk_test_unused');
    const headers = s.rotation('evt_1', now, body, s.otherSecret(), true);
    expect(headers['stripe-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(stripe.webhooks.constructEvent(body, headers['stripe-signature']!, 'whsec_plain')).toMatchObject({
      id: 'evt_1',
    });
  });

  it('leaves out or replaces the signature header on demand, and says where it goes', () => {
    expect(signer().withSignature('evt_1', now, undefined)).toEqual({
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(now),
    });
    expect(signer('hmac', 'k').withSignature('evt_1', now, '')).toEqual({ 'x-signature': '' });
    expect(signer('hmac', 'k').signatureHeaderName).toBe('x-signature');
  });

  it.each([
    ['standard', 'plain-text', /starts with whsec_/],
    ['standard', 'whpk_AAAA', /public key verifies but cannot sign/],
    ['stripe', 'whsk_AAAA', /signs only in the standard scheme/],
    ['standard', 'whsec_***', /base64/],
  ] as const)('refuses a %s secret it cannot sign with', (scheme, secret, message) => {
    expect(() => signer(scheme, secret)).toThrow(message);
  });
});

describe('grading', () => {
  const a = (label: string, status?: number, extra: Partial<Attempt> = {}): Attempt => ({
    label,
    ms: 1,
    ...(status !== undefined ? { status } : {}),
    ...extra,
  });
  const ok = (x: Attempt) => x.status === 200;

  it('says which delivery went wrong, by name, and counts the rest', () => {
    const many = [a('envelope.voided', 500), ...Array.from({ length: 12 }, (_, i) => a(`t${i}`, 200))];
    expect(summarize(many, ok, 10_000)).toBe('envelope.voided → 500; 12 × 200');
    expect(summarize([a('x', 200), a('y', 200)], ok, 10_000)).toBe('2 × 200');
    expect(summarize([a('old', 401), a('ahead', 200)], (x) => x.status === 401, 10_000)).toBe(
      'old → 401; ahead → 200',
    );
    expect(summarize([a('big', undefined, { timedOut: true })], ok, 2_000)).toBe(
      'big → no answer within 2 s',
    );
  });

  it('takes quantiles by nearest rank', () => {
    const values = Array.from({ length: 50 }, (_, i) => i + 1);
    expect(quantile(values, 0.95)).toBe(48);
    expect(quantile(values, 0.5)).toBe(25);
    expect(quantile([], 0.95)).toBe(0);
  });

  it('is unreachable only when nothing has answered yet; a receiver dying later fails its checks instead', async () => {
    await expect(
      testReceiver({
        url: 'http://127.0.0.1:9/x',
        signer: signer(),
        send: async () => ({ ms: 0, error: 'connect ECONNREFUSED 127.0.0.1:9', code: 'ECONNREFUSED' }),
      }),
    ).rejects.toBeInstanceOf(ReceiverUnreachableError);
    // No connection within the time: nothing there either.
    await expect(
      testReceiver({
        url: 'http://10.0.0.9/x',
        signer: signer(),
        send: async () => ({ ms: 8000, error: 'Connect Timeout Error', code: 'UND_ERR_CONNECT_TIMEOUT' }),
      }),
    ).rejects.toBeInstanceOf(ReceiverUnreachableError);
    // A reset first: something was there, so a refusal after it is a failed check, not "unreachable".
    let calls = 0;
    const crashed = await testReceiver({
      url: 'http://127.0.0.1:9/x',
      signer: signer(),
      only: ['accepts-events'],
      send: async () =>
        ++calls === 1
          ? { ms: 1, error: 'other side closed', code: 'UND_ERR_SOCKET' }
          : { ms: 0, error: 'connect ECONNREFUSED', code: 'ECONNREFUSED' },
    });
    expect(crashed.failed).toBe(1);
    let sent = 0;
    const card = await testReceiver({
      url: 'http://127.0.0.1:9/x',
      signer: signer(),
      only: ['accepts-events', 'rejects-wrong-secret'],
      send: async () =>
        ++sent <= 13
          ? { ms: 1, status: 200 }
          : { ms: 0, error: 'connect ECONNREFUSED', code: 'ECONNREFUSED' },
    });
    expect(card.checks.map((c) => [c.id, c.verdict, c.got])).toEqual([
      ['accepts-events', 'pass', '13 × 200'],
      [
        'rejects-wrong-secret',
        'fail',
        'the valid delivery → connect ECONNREFUSED too: a refusal proves nothing',
      ],
    ]);
  });
});

describe('a receiver that stops answering', () => {
  const silent = async () => ({ ms: 2_000, timedOut: true });

  it('never answering at all is nothing to grade: each check sends once, the rest at once after the first', async () => {
    let sent = 0;
    const error = await testReceiver({
      url: 'http://127.0.0.1:9/x',
      signer: signer(),
      burst: 4,
      timeoutMs: 2_000,
      send: () => (sent++, silent()),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReceiverUnreachableError);
    expect((error as Error).message).toBe(
      'no answer from http://127.0.0.1:9/x: it took the connections of 14 deliveries and answered none within 2 s',
    );
    // accepts-events' first delivery alone, then the first of each of the other nine checks and the burst's four.
    expect(sent).toBe(1 + 9 + 4);
  });

  it('a check ends at its first unanswered delivery, named, and the checks after it run at once', async () => {
    let inFlight = 0;
    let most = 0;
    const card = await testReceiver({
      url: 'http://127.0.0.1:9/x',
      signer: signer(),
      only: ['accepts-events', 'rejects-wrong-secret', 'tolerates-order'],
      timeoutMs: 2_000,
      async send(body) {
        const type = (JSON.parse(String(body)) as { type: string }).type;
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return type === 'signer.declined' ? silent() : { ms: 1, status: 200 };
      },
    });
    expect(card.checks.map((c) => [c.id, c.verdict, c.got])).toEqual([
      [
        'accepts-events',
        'fail',
        expect.stringMatching(
          /^signer\.declined → no answer within 2 s; before it 7 × 200; the check's other deliveries not sent$/,
        ),
      ],
      // A receiver answering 200 to everything: the forgery is taken.
      ['rejects-wrong-secret', 'fail', 'another secret → 200'],
      ['tolerates-order', 'pass', '7 × 200'],
    ]);
    expect(card.checks[0]!.attempts.map((a) => a.label)).toHaveLength(8);
    // After the unanswered delivery, the two other checks were sent side by side.
    expect(most).toBe(2);
  });
});

describe('xmlText', () => {
  it('escapes what XML reserves and writes controls XML 1.0 cannot hold as \\u escapes', () => {
    expect(xmlText(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
    expect(xmlText('bell\u0007 esc\u001b tab\t')).toBe('bell\\u0007 esc\\u001b tab\t');
    expect(xmlText('lone \ud800 surrogate')).toBe('lone \ufffd surrogate');
  });
});
