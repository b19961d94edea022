/**
 * The manual journey over real HTTP, without a browser: the outbox, the
 * signer's pages and their forms, the ID app, and the events, deliveries and
 * audit entries they make, compared with the auto journey's.
 */
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html } from '../../src/core/web/html.js';
import { eventTypes, startReceiver, type Receiver } from '../helpers/receiver.js';
import { startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { Visitor, eventually, outboxOf, type OutboxMessage } from '../helpers/ceremony.js';

interface EnvelopeJson {
  status: string;
  signers: { status: string; decline_reason?: string }[];
}
interface LinksJson {
  journey: string;
  signers: { link: string; turn: boolean }[];
}
interface EventJson {
  type: string;
  data: { envelope_id: string; reason?: string };
}

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

const body = (overrides: Record<string, unknown> = {}) => ({
  title: 'Office lease renewal 2027',
  contract_id: `CTR-${crypto.randomUUID()}`,
  document: { template_id: 'tpl_lease_renewal', version: 3 },
  signers: [
    {
      name: 'Layla Haddad',
      email: 'layla@example.com',
      channel: 'email',
      order: 1,
      verification: 'uae_pass',
    },
    { name: 'Omar Khalil', phone: '+971501234567', channel: 'whatsapp', order: 2 },
  ],
  sequential: true,
  locale: 'en',
  webhook_url: receiver.url,
  ...overrides,
});

async function create(sandbox: TestSandbox, input: unknown, apiKey = sandbox.apiKey): Promise<string> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify(input),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function envelope(sandbox: TestSandbox, id: string): Promise<EnvelopeJson> {
  const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
    headers: { authorization: `Bearer ${sandbox.apiKey}` },
  });
  return (await response.json()) as EnvelopeJson;
}

async function links(sandbox: TestSandbox, id: string, apiKey = sandbox.apiKey) {
  const response = await fetch(`${sandbox.baseUrl}/_sandbox/envelopes/${id}/links`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return { status: response.status, body: (await response.json()) as LinksJson };
}

/** The event types delivered for one envelope, in order. */
const eventsOf = (id: string): string[] =>
  eventTypes(receiver.deliveries.filter((d) => (JSON.parse(d.body) as EventJson).data.envelope_id === id));

async function invitation(sandbox: TestSandbox, id: string, to: string) {
  return eventually(async () =>
    (await outboxOf(sandbox.baseUrl, sandbox.apiKey, id)).find((m) => m.kind === 'invitation' && m.to === to),
  );
}

const pathOf = (link: string) => new URL(link).pathname;

/** A form POSTed with exactly these headers (fetch may add its own; node:http adds none). */
function rawPost(
  path: string,
  cookie: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const form = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    request(
      `${manual.baseUrl}${path}`,
      {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    )
      .on('error', reject)
      .end(form);
  });
}

/** Layla verifies in the ID app and signs; then Omar signs. */
async function signAll(sandbox: TestSandbox, id: string): Promise<void> {
  const layla = new Visitor(sandbox.baseUrl);
  const first = await invitation(sandbox, id, 'layla@example.com');
  const page = await layla.get(pathOf(first.link!));
  expect(page.html).toContain('Verify identity');
  const verifying = await layla.post(`${pathOf(first.link!)}/verify`, {
    csrf: Visitor.csrf(page.html),
    lang: 'en',
  });
  const shown = /id="id-number">(\d+)</.exec(verifying.html)![1]!;
  const request = (await outboxOf(sandbox.baseUrl, sandbox.apiKey, id)).find((m) => m.kind === 'id_request')!;
  expect(request).toMatchObject({ channel: 'app', to: 'Layla Haddad' });
  const phone = new Visitor(sandbox.baseUrl);
  const app = await phone.get(pathOf(request.link!));
  const choices = [...app.html.matchAll(/name="choice" value="(\d+)"/g)].map((m) => m[1]);
  expect(choices).toHaveLength(3);
  expect(choices).toContain(shown);
  const done = await phone.post(pathOf(request.link!), {
    csrf: Visitor.csrf(app.html),
    choice: shown,
    lang: 'en',
  });
  expect(done.html).toContain('your identity is verified');
  const ready = await layla.get(pathOf(first.link!));
  expect(ready.html).toContain('I have read the document');
  const signed = await layla.post(`${pathOf(first.link!)}/sign`, {
    csrf: Visitor.csrf(ready.html),
    consent: 'yes',
    lang: 'en',
  });
  expect(signed.html).toContain('You have signed');

  const omar = new Visitor(sandbox.baseUrl);
  const second = await invitation(sandbox, id, '+971501234567');
  const omarPage = await omar.get(pathOf(second.link!));
  await omar.post(`${pathOf(second.link!)}/sign`, {
    csrf: Visitor.csrf(omarPage.html),
    consent: 'yes',
    lang: 'en',
  });
}

describe('the manual journey', () => {
  it('waits for people, and makes the same events as the auto journey', async () => {
    const id = await create(manual, body());
    await invitation(manual, id, 'layla@example.com');
    // Nobody opened it: it stays at notified however long the sandbox runs.
    await new Promise((r) => setTimeout(r, 300));
    expect((await envelope(manual, id)).signers.map((s) => s.status)).toEqual(['notified', 'pending']);

    const omarLink = (await links(manual, id)).body.signers[1]!;
    expect(omarLink.turn).toBe(false);
    const early = await new Visitor(manual.baseUrl).get(pathOf(omarLink.link));
    expect(early.html).toContain('Waiting for Layla Haddad to sign first');
    expect(early.html).not.toContain('name="consent"');

    await signAll(manual, id);
    await eventually(async () => ((await envelope(manual, id)).status === 'completed' ? true : undefined));
    const autoId = await create(auto, body());
    await eventually(async () => ((await envelope(auto, autoId)).status === 'completed' ? true : undefined));
    await receiver.waitFor(
      () => eventsOf(id).includes('envelope.completed') && eventsOf(autoId).includes('envelope.completed'),
    );
    expect(eventsOf(id)).toEqual(eventsOf(autoId));

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
    expect(done.html).toContain('This envelope was completed');
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
      body({ signers: [{ name: 'Sara', email: 'sara@example.com', channel: 'email' }], sequential: false }),
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
    await receiver.waitFor(() => eventsOf(id).includes('envelope.declined'));
    const declined = receiver.deliveries
      .map((d) => JSON.parse(d.body) as EventJson)
      .find((p) => p.type === 'signer.declined' && p.data.envelope_id === id);
    expect(declined!.data.reason).toBe('The rent is wrong');
    const after = await sara.get(pathOf(link));
    expect(after.html).toContain('This envelope was declined');
    expect(after.html).not.toContain('name="reason"');
  });

  it('fails the check on a wrong number in the ID app', async () => {
    const id = await create(manual, body());
    const link = (await invitation(manual, id, 'layla@example.com')).link!;
    const layla = new Visitor(manual.baseUrl);
    const page = await layla.get(pathOf(link));
    const verifying = await layla.post(`${pathOf(link)}/verify`, { csrf: Visitor.csrf(page.html) });
    const shown = /id="id-number">(\d+)</.exec(verifying.html)![1]!;
    const request = (await outboxOf(manual.baseUrl, manual.apiKey, id)).find((m) => m.kind === 'id_request')!;
    const app = await layla.get(pathOf(request.link!));
    const wrong = [...app.html.matchAll(/name="choice" value="(\d+)"/g)]
      .map((m) => m[1]!)
      .find((n) => n !== shown)!;
    const answered = await layla.post(pathOf(request.link!), { csrf: Visitor.csrf(app.html), choice: wrong });
    expect(answered.html).toContain('the check failed');
    expect((await envelope(manual, id)).status).toBe('failed');
    await receiver.waitFor(() => eventsOf(id).includes('envelope.failed'));
    const failed = receiver.deliveries
      .map((d) => JSON.parse(d.body) as EventJson)
      .find((p) => p.type === 'signer.verification_failed' && p.data.envelope_id === id);
    expect(failed!.data.reason).toBe('wrong_number');
  });

  it('refuses a form without its CSRF token or from another origin, and changes nothing', async () => {
    const id = await create(
      manual,
      body({ signers: [{ name: 'Sara', email: 'sara@example.com', channel: 'email' }], sequential: false }),
    );
    const link = pathOf((await invitation(manual, id, 'sara@example.com')).link!);
    const sara = new Visitor(manual.baseUrl);
    const page = await sara.get(link);
    const csrf = Visitor.csrf(page.html);
    expect((await sara.post(`${link}/sign`, { consent: 'yes' })).status).toBe(403);
    expect((await sara.post(`${link}/sign`, { consent: 'yes', csrf: 'x'.repeat(32) })).status).toBe(403);
    expect(
      (await sara.post(`${link}/sign`, { consent: 'yes', csrf }, { origin: 'http://evil.example' })).status,
    ).toBe(403);
    expect(
      (await sara.post(`${link}/sign`, { consent: 'yes', csrf }, { 'sec-fetch-site': 'cross-site' })).status,
    ).toBe(403);
    expect((await sara.post(`${link}/sign`, { csrf })).status).toBe(400);
    expect((await envelope(manual, id)).signers[0]!.status).toBe('viewed');
    const response = await fetch(new URL(link, manual.baseUrl));
    expect(response.headers.get('set-cookie')).toMatch(
      /^sandbox_csrf=\w{32}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
  });

  it("binds the form's token to the link: a pair it did not make for that link is refused, with or without Origin", async () => {
    const id = await create(
      manual,
      body({
        signers: [
          { name: 'Sara', email: 'sara@example.com', channel: 'email', verification: 'uae_pass' },
          { name: 'Omar', email: 'omar@example.com', channel: 'email' },
        ],
        sequential: false,
      }),
    );
    const sara = pathOf((await invitation(manual, id, 'sara@example.com')).link!);
    const omar = pathOf((await invitation(manual, id, 'omar@example.com')).link!);
    const refusal = 'This form could not be checked';
    // A page on another port of 127.0.0.1 can set this cookie (cookies know no ports) and post its value.
    const chosen = 'A'.repeat(32);
    const origin = new URL(manual.baseUrl).origin;
    const withAndWithout: Record<string, string>[] = [{}, { origin, 'sec-fetch-site': 'same-origin' }];
    for (const headers of withAndWithout) {
      const forged = await rawPost(
        `${omar}/sign`,
        `sandbox_csrf=${chosen}`,
        { csrf: chosen, consent: 'yes' },
        headers,
      );
      expect(forged.status).toBe(403);
      expect(forged.body).toContain(refusal);
    }
    // Sara's page's pair (her cookie, her form's token), posted to Omar's link or to the ID app.
    const browser = new Visitor(manual.baseUrl);
    const saraCsrf = Visitor.csrf((await browser.get(sara)).html);
    const cookie = browser.cookie('sandbox_csrf')!;
    expect(cookie).toMatch(/^\w{32}$/);
    expect(saraCsrf).not.toBe(cookie);
    for (const headers of withAndWithout) {
      const other = await rawPost(
        `${omar}/sign`,
        `sandbox_csrf=${cookie}`,
        { csrf: saraCsrf, consent: 'yes' },
        headers,
      );
      expect(other.status).toBe(403);
      expect(other.body).toContain(refusal);
    }
    // The token with another browser's cookie: refused too.
    expect((await rawPost(`${sara}/verify`, `sandbox_csrf=${chosen}`, { csrf: saraCsrf })).status).toBe(403);
    expect((await envelope(manual, id)).signers.map((s) => s.status)).toEqual(['viewed', 'notified']);

    // The real pair works without Origin headers too (a browser that sends none).
    const verifying = await rawPost(`${sara}/verify`, `sandbox_csrf=${cookie}`, { csrf: saraCsrf });
    expect(verifying.status).toBe(303);
    const request = (await outboxOf(manual.baseUrl, manual.apiKey, id)).find((m) => m.kind === 'id_request')!;
    const app = pathOf(request.link!);
    const appPage = await browser.get(app);
    const shown = /id="id-number">(\d+)</.exec((await browser.get(sara)).html)![1]!;
    // The signing page's token is not the ID app's.
    const wrongPage = await rawPost(app, `sandbox_csrf=${cookie}`, { csrf: saraCsrf, choice: shown });
    expect(wrongPage.status).toBe(403);
    expect(wrongPage.body).toContain(refusal);
    expect((await envelope(manual, id)).signers[0]!.status).toBe('viewed');
    const answered = await rawPost(app, `sandbox_csrf=${cookie}`, {
      csrf: Visitor.csrf(appPage.html),
      choice: shown,
    });
    expect(answered.status).toBe(303);
    expect((await envelope(manual, id)).signers[0]!.status).toBe('verified');

    // The key is the sandbox's own, in its data dir, readable by the owner only.
    expect(statSync(join(manual.dataDir, 'forms.key')).mode & 0o777).toBe(0o600);
  });

  it('shows hostile names and titles as text', async () => {
    // Bidi overrides never get this far (the request rules refuse them: see the escaping test below).
    const hostile = '<img src=x onerror=alert(1)> "quoted" & \'single\'';
    const id = await create(
      manual,
      body({
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
    const id = await create(manual, body());
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
    const link = (await links(manual, await create(manual, body()))).body.signers[0]!.link;
    expect(pathOf(link)).toMatch(/^\/s\/[\w-]{32}$/);
  });
});

describe('what the pages refuse', () => {
  it('refuses odd requests with a 4xx and changes nothing', async () => {
    const id = await create(manual, body());
    const link = pathOf((await invitation(manual, id, 'layla@example.com')).link!);
    const layla = new Visitor(manual.baseUrl);
    const page = await layla.get(link);
    const csrf = Visitor.csrf(page.html);
    const big = await layla.post(`${link}/decline`, { csrf, reason: 'x'.repeat(20_000) });
    expect(big.status).toBe(413);
    const malformed = await fetch(`${manual.baseUrl}/_sandbox/envelopes/%zz/links`, {
      headers: { authorization: `Bearer ${manual.apiKey}` },
    });
    expect(malformed.status).toBe(400);
    expect((await fetch(`${manual.baseUrl}${link}/signed.pdf`)).status).toBe(409);

    // The app's number typed on the signing page is no answer: the check is the app's.
    const verifying = await layla.post(`${link}/verify`, { csrf });
    const shown = /id="id-number">(\d+)</.exec(verifying.html)![1]!;
    const request = (await outboxOf(manual.baseUrl, manual.apiKey, id)).find((m) => m.kind === 'id_request')!;
    const requestId = pathOf(request.link!).split('/').pop()!;
    expect((await layla.post(`${link}/code`, { csrf, request: requestId, code: shown })).status).toBe(409);
    // No number of the three: no answer either.
    const app = await layla.get(pathOf(request.link!));
    expect((await layla.post(pathOf(request.link!), { csrf: Visitor.csrf(app.html) })).status).toBe(400);
    expect((await envelope(manual, id)).signers[0]!.status).toBe('viewed');
    expect((await envelope(manual, id)).status).toBe('sent');

    // Voided meanwhile: the app's page says so, not "expired".
    await fetch(`${manual.baseUrl}/api/v1/envelopes/${id}/void`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${manual.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': crypto.randomUUID(),
      },
      body: JSON.stringify({ reason: 'wrong tenant' }),
    });
    expect((await layla.get(pathOf(request.link!))).html).toContain('voided by its sender');
  });

  it("answers a name of Object's prototype with a 404, never a 5xx", async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      for (const path of [
        `/_sandbox/assets/${name}`,
        `/s/${name}`,
        `/_sandbox/id/${name}`,
        `/api/v1/envelopes/${name}`,
      ]) {
        const response = await fetch(`${manual.baseUrl}${path}`, {
          headers: { authorization: `Bearer ${manual.apiKey}` },
        });
        await response.arrayBuffer();
        expect([path, response.status]).toEqual([path, 404]);
      }
    }
    // The files it has are there: the stylesheet is assets/pages/ceremony.css, as shipped.
    const stylesheet = await fetch(`${manual.baseUrl}/_sandbox/assets/ceremony.css`);
    expect(stylesheet.status).toBe(200);
    expect(stylesheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await stylesheet.text()).toBe(
      readFileSync(new URL('../../assets/pages/ceremony.css', import.meta.url), 'utf8'),
    );
  });

  it('records signer.viewed before a step taken without opening the page first', async () => {
    const id = await create(
      manual,
      body({
        signers: [
          { name: 'Sara', email: 'sara@example.com', channel: 'email' },
          { name: 'Omar', email: 'omar@example.com', channel: 'email' },
        ],
        sequential: false,
      }),
    );
    const omar = pathOf((await invitation(manual, id, 'omar@example.com')).link!);
    // A form refused (no token) shows the page's form, with its token, without a GET of the page.
    const visitor = new Visitor(manual.baseUrl);
    const refused = await visitor.post(`${omar}/sign`, { consent: 'yes' });
    expect(refused.status).toBe(403);
    const csrf = Visitor.csrf(refused.html);
    expect((await visitor.post(`${omar}/sign`, { csrf, consent: 'yes' })).status).toBe(303);
    const trail = await fetch(`${manual.baseUrl}/api/v1/envelopes/${id}/audit-trail`, {
      headers: { authorization: `Bearer ${manual.apiKey}` },
    }).then((r) => r.json() as Promise<{ entries: { type: string; actor: string }[] }>);
    expect(trail.entries.filter((e) => e.actor.includes('Omar')).map((e) => e.type)).toEqual([
      'signer.viewed',
      'signer.signed',
    ]);
  });

  it('keeps the sandbox clock past a check begun before a restart', async () => {
    const first = await startTestSandbox({ journey: 'manual', speed: 50 });
    const dataDir = first.dataDir;
    let request: OutboxMessage | undefined;
    try {
      const id = await create(first, body({ webhook_url: undefined }));
      const link = pathOf((await invitation(first, id, 'layla@example.com')).link!);
      const layla = new Visitor(first.baseUrl);
      const page = await layla.get(link);
      await new Promise((r) => setTimeout(r, 300));
      await layla.post(`${link}/verify`, { csrf: Visitor.csrf(page.html) });
      request = (await outboxOf(first.baseUrl, first.apiKey, id)).find((m) => m.kind === 'id_request');
    } finally {
      await first.sandbox.close();
    }
    const again = await startTestSandbox({ journey: 'manual', speed: 50, dataDir });
    try {
      const state = await again.control<{ sandbox_time: string }>('/_sandbox/state');
      expect(Date.parse(state.sandbox_time)).toBeGreaterThanOrEqual(Date.parse(request!.at));
    } finally {
      await again.stop();
    }
  });
});

describe('the html tag', () => {
  it('shows control and bidi characters as visible escapes, and HTML specials as entities', () => {
    expect(html`${'a\u202Eb\u2066c\u0007d<>&"\''}`.text).toBe(
      'a\\u202eb\\u2066c\\u0007d&#60;&#62;&#38;&#34;&#39;',
    );
    expect(html`${'ليلى\nحداد'}`.text).toBe('ليلى\nحداد');
    // A Persian name's zero-width non-joiner is part of how it is written: kept.
    expect(html`${'می\u200cخواهم'}`.text).toBe('می\u200cخواهم');
  });

  it('escapes every value, in lists too, but puts markup it made as it is', () => {
    const name = '<script>alert(1)</script>';
    const item = (text: string) => html`<b title="${text}">${text}</b>`;
    const escaped = '&#60;script&#62;alert(1)&#60;/script&#62;';
    expect(html`<p>${[item(name), name]}</p>`.text).toBe(
      `<p><b title="${escaped}">${escaped}</b>${escaped}</p>`,
    );
    // Markup's look-alikes are text: only what the tag made is markup.
    expect(html`${{ text: '<b>' }}`.text).toBe('[object Object]');
    expect(html`<p>${0}${false}${null}${undefined}</p>`.text).toBe('<p>0</p>');
  });
});

describe('the ID app check', () => {
  it('expires unanswered after two minutes of sandbox time', async () => {
    const fast = await startTestSandbox({ journey: 'manual', speed: 2000 });
    try {
      const id = await create(fast, body({ webhook_url: receiver.url }));
      const link = pathOf((await invitation(fast, id, 'layla@example.com')).link!);
      const layla = new Visitor(fast.baseUrl);
      const page = await layla.get(link);
      await layla.post(`${link}/verify`, { csrf: Visitor.csrf(page.html) });
      await eventually(async () => ((await envelope(fast, id)).status === 'failed' ? true : undefined));
      await receiver.waitFor(() => eventsOf(id).includes('envelope.failed'));
      const failed = receiver.deliveries
        .map((d) => JSON.parse(d.body) as EventJson)
        .find((p) => p.type === 'signer.verification_failed' && p.data.envelope_id === id);
      expect(failed!.data.reason).toBe('expired');
      const request = (await outboxOf(fast.baseUrl, fast.apiKey, id)).find((m) => m.kind === 'id_request')!;
      expect((await layla.get(pathOf(request.link!))).html).toContain('This request has expired');
    } finally {
      await fast.stop();
    }
  });
});

describe('the auto journey', () => {
  it("shows the signer's page but leaves signing to its robots", async () => {
    const id = await create(auto, body());
    const link = (await links(auto, id)).body;
    expect(link.journey).toBe('auto');
    const page = await new Visitor(auto.baseUrl).get(pathOf(link.signers[0]!.link));
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('name="consent"');
  });
});
