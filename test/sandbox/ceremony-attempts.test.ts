/**
 * Attempts at an identity check in the manual journey, over real HTTP: up to three per check (a
 * number in the ID app, a code by SMS), a new one on request, the attempts left and the expiry
 * shown; only the last failure fails the check, and is the one event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Visitor, eventually, outboxOf } from '../helpers/ceremony.js';
import { startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import {
  create,
  envelope,
  eventsFor,
  eventsOf,
  invitation,
  leaseBody,
  pathOf,
} from '../helpers/manual-journey.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let manual: TestSandbox;
let receiver: Receiver;

beforeAll(async () => {
  [manual, receiver] = await Promise.all([
    startTestSandbox({ journey: 'manual', speed: 50 }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([manual.stop(), receiver.close()]);
});

describe('attempts at a check', () => {
  it('allows three attempts in the ID app: a wrong number leaves the check open, the third fails it', async () => {
    const id = await create(manual, leaseBody(receiver.url));
    const link = pathOf((await invitation(manual, id, 'layla@example.com')).link!);
    const layla = new Visitor(manual.baseUrl);
    let page = await layla.get(link);
    expect(page.html).toContain('3 attempts left.');
    page = await layla.post(`${link}/verify`, { csrf: Visitor.csrf(page.html) });
    for (const left of [2, 1, 0]) {
      const shown = /id="id-number">(\d+)</.exec(page.html)![1]!;
      // The newest request is the one the page shows.
      const request = (await outboxOf(manual.baseUrl, manual.apiKey, id))
        .filter((m) => m.kind === 'id_request')
        .at(-1)!;
      expect(request.expires_at).toBe(new Date(Date.parse(request.at) + 120_000).toISOString());
      const app = await layla.get(pathOf(request.link!));
      const wrong = [...app.html.matchAll(/name="choice" value="(\d+)"/g)]
        .map((m) => m[1]!)
        .find((n) => n !== shown)!;
      const answered = await layla.post(pathOf(request.link!), {
        csrf: Visitor.csrf(app.html),
        choice: wrong,
      });
      if (left === 0) {
        expect(answered.html).toContain('That was the last attempt: the check failed.');
        break;
      }
      expect(answered.html).toContain(
        `${left === 1 ? 'One attempt is left' : `${left} attempts are left`}: return to the signing page`,
      );
      expect((await envelope(manual, id)).status).toBe('sent');
      page = await layla.get(link);
      expect(page.html).toContain('That was not the number shown here.');
      expect(page.html).toContain(left === 1 ? 'Last attempt.' : `${left} attempts left.`);
      page = await layla.post(`${link}/verify`, { csrf: Visitor.csrf(page.html), renew: 'yes' });
    }
    expect((await envelope(manual, id)).status).toBe('failed');
    await receiver.waitFor(() => eventsOf(receiver, id).includes('envelope.failed'));
    const events = eventsOf(receiver, id);
    // Only the last failure is an event.
    expect(events.filter((type) => type === 'signer.verification_failed')).toHaveLength(1);
    const failed = eventsFor(receiver, id).find((p) => p.type === 'signer.verification_failed');
    expect(failed!.data.reason).toBe('wrong_number');
    expect((await layla.get(link)).html).toContain('Your identity could not be confirmed after 3 attempts');
  });

  it('sends a code by SMS to the phone, takes a wrong one as one attempt, and a new code on request', async () => {
    const id = await create(
      manual,
      leaseBody(receiver.url, {
        signers: [
          {
            name: 'Sara',
            email: 'sara@example.com',
            phone: '+971501234567',
            channel: 'email',
            verification: 'sms_otp',
          },
        ],
        sequential: false,
      }),
    );
    const link = pathOf((await invitation(manual, id, 'sara@example.com')).link!);
    const sara = new Visitor(manual.baseUrl);
    let page = await sara.post(`${link}/verify`, { csrf: Visitor.csrf((await sara.get(link)).html) });
    const codes = async () =>
      (await outboxOf(manual.baseUrl, manual.apiKey, id)).filter((m) => m.kind === 'code');
    const [first] = await codes();
    // The page and the outbox agree: a code by SMS, to the phone.
    expect(first).toMatchObject({ channel: 'sms', to: '+971501234567' });
    expect(page.html).toContain('We sent a six-digit code by SMS to <bdi>+971•••4567</bdi>.');
    expect(page.html).toMatch(/Valid until \d\d:\d\d UTC \(2 minutes\)\. 3 attempts left\./);
    const code = /: (\d{6})$/.exec(first!.subject)![1]!;
    const wrong = code === '000000' ? '111111' : '000000';
    const request = /name="request" value="([^"]+)"/.exec(page.html)![1]!;
    page = await sara.post(`${link}/code`, { csrf: Visitor.csrf(page.html), request, code: wrong });
    expect(page.html).toContain('That code is not the one we sent. 2 attempts left.');
    expect((await envelope(manual, id)).signers[0]!.status).toBe('viewed');
    page = await sara.post(`${link}/verify`, { csrf: Visitor.csrf(page.html), renew: 'yes' });
    const [, second] = await codes();
    expect(second!.subject).not.toBe(first!.subject);
    const newCode = /: (\d{6})$/.exec(second!.subject)![1]!;
    const newRequest = /name="request" value="([^"]+)"/.exec(page.html)![1]!;
    expect(newRequest).not.toBe(request);
    // The old code is no longer open.
    expect((await sara.post(`${link}/code`, { csrf: Visitor.csrf(page.html), request, code })).status).toBe(
      409,
    );
    page = await sara.post(`${link}/code`, {
      csrf: Visitor.csrf(page.html),
      request: newRequest,
      code: newCode,
    });
    expect((await envelope(manual, id)).signers[0]!.status).toBe('verified');
    expect(page.html).toContain('Step 2 of 3');
  });
});

describe('the ID app check', () => {
  it('expires a number unanswered after two minutes of sandbox time, and fails the check at the third', async () => {
    const fast = await startTestSandbox({ journey: 'manual', speed: 2000 });
    try {
      const id = await create(fast, leaseBody(receiver.url));
      const link = pathOf((await invitation(fast, id, 'layla@example.com')).link!);
      const layla = new Visitor(fast.baseUrl);
      let page = await layla.get(link);
      await layla.post(`${link}/verify`, { csrf: Visitor.csrf(page.html) });
      for (const left of ['2 attempts left.', 'Last attempt.']) {
        page = await eventually(async () => {
          const now = await layla.get(link);
          return now.html.includes('Your answer did not come in time.') ? now : undefined;
        });
        expect(page.html).toContain(left);
        expect((await envelope(fast, id)).status).toBe('sent');
        await layla.post(`${link}/verify`, { csrf: Visitor.csrf(page.html), renew: 'yes' });
      }
      await eventually(async () => ((await envelope(fast, id)).status === 'failed' ? true : undefined));
      await receiver.waitFor(() => eventsOf(receiver, id).includes('envelope.failed'));
      const failed = eventsFor(receiver, id).find((p) => p.type === 'signer.verification_failed');
      expect(failed!.data.reason).toBe('expired');
      const requests = (await outboxOf(fast.baseUrl, fast.apiKey, id)).filter((m) => m.kind === 'id_request');
      expect(requests).toHaveLength(3);
      expect((await layla.get(pathOf(requests[0]!.link!))).html).toContain('This request has expired.');
    } finally {
      await fast.stop();
    }
  });
});
