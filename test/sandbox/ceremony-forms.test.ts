/**
 * What the signer's pages and the ID app refuse, over real HTTP: forms without their token, from
 * another origin or with a pair made for another link; odd requests and names of Object's
 * prototype; and what a step taken without the page, or a restart, leaves as it should be. Also
 * the `html` tag every page is written with.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html } from '../../src/core/web/html.js';
import { Visitor, outboxOf, type OutboxMessage } from '../helpers/ceremony.js';
import { startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { create, envelope, invitation, leaseBody, pathOf, rawPost } from '../helpers/manual-journey.js';

let manual: TestSandbox;

beforeAll(async () => {
  manual = await startTestSandbox({ journey: 'manual', speed: 50 });
});
afterAll(async () => {
  await manual.stop();
});

describe('the forms', () => {
  it('refuses a form without its CSRF token or from another origin, and changes nothing', async () => {
    const id = await create(
      manual,
      leaseBody(undefined, {
        signers: [{ name: 'Sara', email: 'sara@example.com', channel: 'email' }],
        sequential: false,
      }),
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
    // Signing needs a signature of one's own first, and then the consent.
    expect((await sara.post(`${link}/sign`, { csrf, consent: 'yes' })).status).toBe(409);
    expect((await sara.post(`${link}/signature`, { csrf, kind: 'typed', typed: 'Sara' })).status).toBe(303);
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
      leaseBody(undefined, {
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
        manual.baseUrl,
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
        manual.baseUrl,
        `${omar}/sign`,
        `sandbox_csrf=${cookie}`,
        { csrf: saraCsrf, consent: 'yes' },
        headers,
      );
      expect(other.status).toBe(403);
      expect(other.body).toContain(refusal);
    }
    // The token with another browser's cookie: refused too.
    expect(
      (await rawPost(manual.baseUrl, `${sara}/verify`, `sandbox_csrf=${chosen}`, { csrf: saraCsrf })).status,
    ).toBe(403);
    expect((await envelope(manual, id)).signers.map((s) => s.status)).toEqual(['viewed', 'notified']);

    // The real pair works without Origin headers too (a browser that sends none).
    const verifying = await rawPost(manual.baseUrl, `${sara}/verify`, `sandbox_csrf=${cookie}`, {
      csrf: saraCsrf,
    });
    expect(verifying.status).toBe(303);
    const request = (await outboxOf(manual.baseUrl, manual.apiKey, id)).find((m) => m.kind === 'id_request')!;
    const app = pathOf(request.link!);
    const appPage = await browser.get(app);
    const shown = /id="id-number">(\d+)</.exec((await browser.get(sara)).html)![1]!;
    // The signing page's token is not the ID app's.
    const wrongPage = await rawPost(manual.baseUrl, app, `sandbox_csrf=${cookie}`, {
      csrf: saraCsrf,
      choice: shown,
    });
    expect(wrongPage.status).toBe(403);
    expect(wrongPage.body).toContain(refusal);
    expect((await envelope(manual, id)).signers[0]!.status).toBe('viewed');
    const answered = await rawPost(manual.baseUrl, app, `sandbox_csrf=${cookie}`, {
      csrf: Visitor.csrf(appPage.html),
      choice: shown,
    });
    expect(answered.status).toBe(303);
    expect((await envelope(manual, id)).signers[0]!.status).toBe('verified');

    // The key is the sandbox's own, in its data dir, readable by the owner only.
    expect(statSync(join(manual.dataDir, 'forms.key')).mode & 0o777).toBe(0o600);
  });
});

describe('what the pages refuse', () => {
  it('refuses odd requests with a 4xx and changes nothing', async () => {
    const id = await create(manual, leaseBody(undefined));
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
    expect((await layla.get(pathOf(request.link!))).html).toContain('Cancelled by the sender.');
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
      leaseBody(undefined, {
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
    const refused = await visitor.post(`${omar}/signature`, { kind: 'typed', typed: 'Omar' });
    expect(refused.status).toBe(403);
    const csrf = Visitor.csrf(refused.html);
    expect((await visitor.post(`${omar}/signature`, { csrf, kind: 'typed', typed: 'Omar' })).status).toBe(
      303,
    );
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
      const id = await create(first, leaseBody(undefined));
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
