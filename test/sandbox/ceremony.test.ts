/**
 * The manual journey over real HTTP, without a browser: the outbox, the signer's pages, the
 * events, deliveries and audit entries they make, compared with the auto journey's; declining,
 * hostile names, the outbox's realm. Attempts at a check: ceremony-attempts.test.ts; what the
 * forms refuse: ceremony-forms.test.ts.
 */
import { request } from 'node:http';
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
  links,
  pathOf,
  signAll,
} from '../helpers/manual-journey.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let manual: TestSandbox;
let auto: TestSandbox;
let receiver: Receiver;

beforeAll(async () => {
  [manual, auto, receiver] = await Promise.all([
    startTestSandbox({ journey: 'manual', speed: 50 }),
    startTestSandbox({ speed: 50 }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await Promise.all([manual.stop(), auto.stop(), receiver.close()]);
});

describe('the manual journey', () => {
  it('waits for people, and makes the same events as the auto journey', async () => {
    const id = await create(manual, leaseBody(receiver.url));
    await invitation(manual, id, 'layla@example.com');
    // Nobody opened it: it stays at notified however long the sandbox runs.
    await new Promise((r) => setTimeout(r, 300));
    expect((await envelope(manual, id)).signers.map((s) => s.status)).toEqual(['notified', 'pending']);

    const omarLink = (await links(manual, id)).body.signers[1]!;
    expect(omarLink.turn).toBe(false);
    const early = await new Visitor(manual.baseUrl).get(pathOf(omarLink.link));
    expect(early.html).toContain('<bdi>Layla Haddad</bdi> (signer 1) signs first.');
    expect(early.html).not.toContain('name="consent"');

    await signAll(manual, id);
    await eventually(async () => ((await envelope(manual, id)).status === 'completed' ? true : undefined));
    const autoId = await create(auto, leaseBody(receiver.url));
    await eventually(async () => ((await envelope(auto, autoId)).status === 'completed' ? true : undefined));
    await receiver.waitFor(
      () =>
        eventsOf(receiver, id).includes('envelope.completed') &&
        eventsOf(receiver, autoId).includes('envelope.completed'),
    );
    expect(eventsOf(receiver, id)).toEqual(eventsOf(receiver, autoId));

    const trail = await fetch(`${manual.baseUrl}/api/v1/envelopes/${id}/audit-trail`, {
      headers: { authorization: `Bearer ${manual.apiKey}` },
    }).then((r) => r.json() as Promise<{ entries: { type: string }[] }>);
    const autoTrail = await fetch(`${auto.baseUrl}/api/v1/envelopes/${autoId}/audit-trail`, {
      headers: { authorization: `Bearer ${auto.apiKey}` },
    }).then((r) => r.json() as Promise<{ entries: { type: string }[] }>);
    expect(trail.entries.map((e) => e.type)).toEqual(autoTrail.entries.map((e) => e.type));

    const shown = await envelope(manual, id);
    expect(JSON.stringify(shown)).not.toMatch(/id_requests|"journey"/);
    const kinds = (await outboxOf(manual.baseUrl, manual.apiKey, id)).map((m) => m.kind);
    expect(kinds).toEqual(['invitation', 'id_request', 'invitation', 'completed', 'completed']);
    const done = await new Visitor(manual.baseUrl).get(
      pathOf((await links(manual, id)).body.signers[0]!.link),
    );
    expect(done.html).toContain('Everyone has signed');
    const copy = await fetch(`${(await links(manual, id)).body.signers[0]!.link}/signed.pdf`);
    expect(copy.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await copy.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });

  it('declines with the reason given, and ends the envelope', async () => {
    const id = await create(
      manual,
      leaseBody(receiver.url, {
        signers: [{ name: 'Sara', email: 'sara@example.com', channel: 'email' }],
        sequential: false,
      }),
    );
    const link = (await invitation(manual, id, 'sara@example.com')).link!;
    const sara = new Visitor(manual.baseUrl);
    const page = await sara.get(pathOf(link));
    const empty = await sara.post(`${pathOf(link)}/decline`, { csrf: Visitor.csrf(page.html), reason: '  ' });
    expect(empty.status).toBe(400);
    expect(empty.html).toContain('Write a reason for declining');
    await sara.post(`${pathOf(link)}/decline`, {
      csrf: Visitor.csrf(page.html),
      reason: 'The rent is wrong',
    });
    const shown = await envelope(manual, id);
    expect(shown.status).toBe('declined');
    expect(shown.signers[0]!.decline_reason).toBe('The rent is wrong');
    await receiver.waitFor(() => eventsOf(receiver, id).includes('envelope.declined'));
    const declined = eventsFor(receiver, id).find((p) => p.type === 'signer.declined');
    expect(declined!.data.reason).toBe('The rent is wrong');
    const after = await sara.get(pathOf(link));
    expect(after.html).toContain('You declined to sign');
    // The reason is shown back to the one who gave it.
    expect(after.html).toContain('<q dir="auto">The rent is wrong</q>');
    expect(after.html).not.toContain('name="reason"');
  });

  it('shows hostile names and titles as text', async () => {
    // Bidi overrides never get this far (the request rules refuse them: see the escaping test below).
    const hostile = '<img src=x onerror=alert(1)> "quoted" & \'single\'';
    const id = await create(
      manual,
      leaseBody(receiver.url, {
        title: `Lease ${hostile}`,
        signers: [{ name: hostile, email: 'h@example.com', channel: 'email' }],
        sequential: false,
      }),
    );
    const link = pathOf((await invitation(manual, id, 'h@example.com')).link!);
    const page = await new Visitor(manual.baseUrl).get(link);
    expect(page.html).not.toContain('<img');
    expect(page.html).toContain(
      '&#60;img src=x onerror=alert(1)&#62; &#34;quoted&#34; &#38; &#39;single&#39;',
    );
    const outboxPage = await new Visitor(manual.baseUrl).get('/_sandbox/outbox');
    expect(outboxPage.status).toBe(200);
    expect(outboxPage.html).not.toContain('<img');
    expect(outboxPage.html).toContain(link);
  });

  it('keeps the outbox to its realm, and its page to this machine', async () => {
    const id = await create(manual, leaseBody(receiver.url));
    await invitation(manual, id, 'layla@example.com');
    const other = await manual.mintKey({ account: 'acct_other', environment: 'test' });
    expect(await outboxOf(manual.baseUrl, other)).toEqual([]);
    expect((await links(manual, id, other)).status).toBe(404);
    // fetch() will not send another Host: a DNS-rebound page would, with this machine's address.
    const rebinding = await new Promise<number>((resolve, reject) =>
      request(`${manual.baseUrl}/_sandbox/outbox`, { headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end(),
    );
    expect(rebinding).toBe(403);
    expect(
      (await fetch(`${manual.baseUrl}/_sandbox/outbox`, { headers: { authorization: 'Bearer nope' } }))
        .status,
    ).toBe(401);
  });

  it('answers an unknown token with a page that says so', async () => {
    const page = await new Visitor(manual.baseUrl).get(`/s/${'A'.repeat(32)}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain('This link is not valid');
    const link = (await links(manual, await create(manual, leaseBody(receiver.url)))).body.signers[0]!.link;
    expect(pathOf(link)).toMatch(/^\/s\/[\w-]{32}$/);
  });
});

describe('the auto journey', () => {
  it("shows the signer's page but leaves signing to its robots", async () => {
    const id = await create(auto, leaseBody(receiver.url));
    const link = (await links(auto, id)).body;
    expect(link.journey).toBe('auto');
    const page = await new Visitor(auto.baseUrl).get(pathOf(link.signers[0]!.link));
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('name="consent"');
  });
});
