/**
 * The webhook inspector (`webhooks listen --inspect`) in a real browser (Debian's chromium
 * through playwright-core), against the built CLI: deliveries appear as they arrive, a forged
 * one with its reason; a delivery's detail; replay reaching a receiver; edit and replay taken by
 * a receiver built on the standardwebhooks package and by `webhooks listen` itself; a restart
 * keeps them; all with the keyboard alone; every page checked with axe, for its weight, and for
 * requests outside the inspector. The browser suite runs on Node 24 (node:sqlite).
 */
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAccessibility,
  describeViolations,
  launchBrowser,
  newPage,
  requireBrowser,
  screenshot,
  type TestPage,
} from '../helpers/browser.js';
import { tempDir } from '../helpers/cli.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { ROOT } from '../helpers/paths.js';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-receivers.js';
import { SECRET, event, post, signed } from '../helpers/webhook-events.js';

const PAGE_BUDGET = 300 * 1024;
/** Where SIGN_SCREENSHOTS=1 writes the inspector's screenshots. */
const SHOTS = process.env.SIGN_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'images', 'inspector') : undefined;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

describe.runIf(requireBrowser())('the webhook inspector in chromium', () => {
  let app: TestReceiver;
  let listener: ListenerProcess;
  let browser: Browser;
  const state = tempDir('sign-cli-inspector-state-');
  const start = () =>
    startListenerProcess(['--inspect', '0', '--forward-to', app.url], {
      SIGN_WEBHOOK_SECRET: SECRET,
      SIGN_STATE_DIR: state,
    });

  beforeAll(async () => {
    app = await startTestReceiver({ library: 'standardwebhooks', secret: SECRET });
    listener = await start();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await listener?.stop();
    await app?.close();
  });

  const inspector = () => listener.inspector!;

  /** What every page must hold: no serious accessibility problem, nothing from elsewhere, no CSP violation or error. */
  async function checkPage(tab: TestPage, label: string): Promise<void> {
    const violations = await checkAccessibility(tab.page);
    expect(violations, `${label}: ${describeViolations(violations)}`).toEqual([]);
    expect(tab.requestsOutside(new URL(inspector()).origin), label).toEqual([]);
    expect(tab.cspViolations, label).toEqual([]);
    expect(tab.consoleErrors, `${label}: ${tab.consoleErrors.join(' | ')}`).toEqual([]);
    expect(await outsideMain(tab.page), `${label}: past the page's edge`).toEqual([]);
  }

  async function deliver(id: string, headers: (id: string, body: string) => Record<string, string> = signed) {
    const { body } = event(id);
    return (await post(`${listener.url}/hooks`, body, headers(id, body))).status;
  }

  it('shows deliveries as they arrive, a forged one with its reason, and weighs little', async () => {
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      await page.goto(inspector());
      await expect.poll(() => text(page.locator('#rows'))).toContain('No delivery yet');
      // The first load's weight: its stream stays open, so it is ended (the page left) before counting.
      await page.goto('about:blank');
      expect(await tab.pageWeight()).toBeLessThan(PAGE_BUDGET);
      await page.goto(inspector());

      expect(await deliver('evt_live_1')).toBe(200);
      const forged = (id: string, body: string) => ({
        ...signed(id, body),
        'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      });
      expect(await deliver('evt_forged', forged)).toBe(401);
      // No reload: the page follows the stream.
      const rows = page.locator('#rows tr');
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
      const refused = rows.first();
      expect(await text(refused)).toMatch(/Refused \(401\)\s*signature mismatch: 1 signature checked/);
      const verified = rows.nth(1);
      expect(await text(verified)).toMatch(
        /signer\.signed[\s\S]*env_1[\s\S]*Verified[\s\S]*127\.0\.0\.1:\d+\/webhooks: 200 in \d+ ms/,
      );
      expect(await text(page.locator('#summary'))).toBe('2 deliveries shown, newest first, of 2 kept');
      await page.setViewportSize(DESKTOP);
      await checkPage(tab, 'list');
      await screenshot(page, 'list', SHOTS);
      await page.setViewportSize(PHONE);
      await screenshot(page, 'list-phone', SHOTS);
      await checkPage(tab, 'list on a phone');
      // A phone's card leaves out what a delivery has not (no redelivery, no forward for a refused one).
      expect(await refused.locator('td[data-label="Redelivery"]').isVisible()).toBe(false);
      expect(await refused.locator('td[data-label="Forwarded"]').isVisible()).toBe(false);
      expect(await verified.locator('td[data-label="Forwarded"]').isVisible()).toBe(true);
    } finally {
      await tab.close();
    }
  });

  it('filters by status, type and text, from the form', async () => {
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      await page.goto(inspector());
      await page.getByLabel('Status').selectOption('refused');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=refused/);
      expect(await page.locator('#rows tr').count()).toBe(1);
      expect(await text(page.locator('#summary'))).toBe(
        '1 delivery shown (filtered), newest first, of 2 kept',
      );
      await page.getByLabel('Status').selectOption('');
      await page.getByLabel('Text').fill('evt_live_1');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/q=evt_live_1/);
      expect(await page.locator('#rows tr').count()).toBe(1);
      await checkPage(tab, 'filtered list');
    } finally {
      await tab.close();
    }
  });

  it("opens a delivery's detail: the verdict, the secret masked, headers, body, what the app answered", async () => {
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      await page.goto(inspector());
      await page.locator('#rows tr').nth(1).getByRole('link').click();
      await page.waitForURL(/\/deliveries\/1$/);
      const facts = await text(page.locator('.facts'));
      expect(facts).toContain('Verdict Verified');
      expect(facts).toContain('Secret that matched whsec_****LaSw');
      expect(facts).toMatch(/Signed timestamp .*, \d+ s old when it came \(tolerance 300 s\)/);
      expect(await page.content()).not.toContain(SECRET);
      expect(await text(page.locator('table.headers'))).toContain('webhook-id');
      expect(await text(page.getByLabel('Body, formatted'))).toContain('"envelope_id": "env_1"');
      // The raw bytes, one click away.
      const raw = page.getByLabel('Body, as received');
      expect(await raw.isVisible()).toBe(false);
      await page.getByText(/^Raw bytes \(\d+\)$/).click();
      expect(await raw.isVisible()).toBe(true);
      expect(await text(raw)).toContain('"envelope_id":"env_1"');
      expect(await text(page.locator('table.attempts'))).toMatch(
        /Forward[\s\S]*200 in \d+ ms[\s\S]*\{"received":true\}/,
      );
      await page.setViewportSize(DESKTOP);
      await checkPage(tab, 'detail');
      await screenshot(page, 'detail', SHOTS);
      await page.setViewportSize(PHONE);
      await screenshot(page, 'detail-phone', SHOTS);
      await checkPage(tab, 'detail on a phone');

      const forged = await newPage(browser);
      try {
        await forged.page.goto(new URL('deliveries/2', inspector()).href);
        const facts = await text(forged.page.locator('.facts'));
        expect(facts).toMatch(/Verdict Refused \(401\) signature mismatch/);
        expect(facts).toContain('Secret that matched none');
        // No app has answered it yet: the first replay's attempt brings the list in, without a reload.
        const answered = forged.page.locator('table.attempts tbody tr');
        expect(await answered.count()).toBe(0);
        await forged.page.getByRole('button', { name: 'Replay as received' }).click();
        await expect
          .poll(() => text(forged.page.locator('#replay-result')))
          .toContain('Added to What the apps answered, above the form.');
        expect(await answered.count()).toBe(1);
        expect(await text(answered)).toMatch(/^Replay .*\/webhooks 401 in \d+ ms/);
        await checkPage(forged, 'forged detail');
      } finally {
        await forged.close();
      }
    } finally {
      await tab.close();
    }
  });

  it('replays to the forward target, and edits, signs again and replays to it and to the listener itself, with the keyboard alone', async () => {
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      const before = app.requests;
      await page.goto(inspector());
      // The list, then the first delivery's detail, by Tab and Enter.
      await tabTo(page, page.locator('#open-1'));
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/deliveries\/1$/);
      const result = page.locator('#replay-result');
      // What the apps answered, as the page shows it now (no reload: the page fetches itself again).
      const answered = page.locator('table.attempts tbody tr');
      const rowsBefore = await answered.count();
      const added = 'Added to What the apps answered, above the form.';

      const asReceived = page.getByRole('button', { name: 'Replay as received' });
      await tabTo(page, asReceived);
      await page.keyboard.press('Enter');
      await expect
        .poll(() => text(result))
        .toMatch(/Replayed as received:.*answered 200 in \d+ ms: duplicate/);
      expect(app.requests).toBe(before + 1);
      // The replay's attempt joins the list, said in the polite status, the focus left on the button.
      await expect.poll(() => text(result)).toContain(added);
      expect(await answered.count()).toBe(rowsBefore + 1);
      expect(await text(answered.last())).toMatch(
        /^Replay .*127\.0\.0\.1:\d+\/webhooks 200 in \d+ ms duplicate$/,
      );
      expect(await focused(asReceived)).toBe(true);

      // Edit the body (Tab into the box, select all, type), sign again, replay to the forward target.
      await tabTo(page, page.getByRole('textbox', { name: 'Body' }));
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(
        '{"id":"evt_edited","type":"envelope.completed","data":{"envelope_id":"env_edited"}}',
      );
      await tabTo(page, page.getByRole('button', { name: 'Sign again and replay' }));
      await page.keyboard.press('Enter');
      await expect
        .poll(() => text(result))
        .toMatch(/Edited, signed again with whsec_\*\*\*\*LaSw as msg_\w+, and replayed:.*answered 200/);
      expect(app.handled.at(-1)).toBe('envelope.completed');
      await expect.poll(() => text(result)).toContain(added);
      expect(await answered.count()).toBe(rowsBefore + 2);
      expect(await text(answered.last())).toMatch(/^Edited replay .*\/webhooks 200 in \d+ ms/);

      // To the listener itself, by its URL: it verifies the new signature and keeps it as a new delivery.
      // A radio group is one stop for Tab; the arrow keys choose within it.
      await tabTo(page, page.getByRole('radio', { name: /the forward target/ }));
      await page.keyboard.press('ArrowDown');
      expect(await page.getByRole('radio', { name: /this URL/ }).isChecked()).toBe(true);
      await page.keyboard.press('Tab');
      expect(
        await page.getByLabel('URL to replay to').evaluate((el) => el.ownerDocument.activeElement === el),
      ).toBe(true);
      await page.keyboard.type(`${listener.url}/from-inspector`);
      await tabTo(page, page.getByRole('button', { name: 'Sign again and replay' }));
      await page.keyboard.press('Enter');
      await expect
        .poll(() => text(result))
        .toMatch(new RegExp(`${listener.url}/from-inspector answered 200`));
      await expect.poll(() => text(result)).toContain(added);
      expect(await answered.count()).toBe(rowsBefore + 3);
      expect(await text(answered.last())).toContain(`Edited replay`);
      expect(await text(answered.last())).toContain(`${listener.url}/from-inspector 200`);
      await page.setViewportSize(DESKTOP);
      await checkPage(tab, 'detail after replays');
      await screenshot(page, 'replayed', SHOTS);
      await page.setViewportSize(PHONE);
      await checkPage(tab, 'detail after replays on a phone');
      await screenshot(page, 'replayed-phone', SHOTS);

      await page.goto(inspector());
      const newest = page.locator('#rows tr').first();
      expect(await text(newest)).toMatch(/envelope\.completed[\s\S]*env_edited[\s\S]*Verified/);
    } finally {
      await tab.close();
    }
  });

  it("refuses a replay another site's page asks for: a JSON fetch, a no-cors POST and a form", async () => {
    const replays = async () =>
      ((await (await fetch(new URL('api/deliveries/1', inspector()))).json()) as { replays: unknown[] })
        .replays.length;
    const before = { app: app.requests, replays: await replays() };
    const tab = await newPage(browser);
    try {
      // Another origin on this machine: the listener's own port (it answers a GET with 405; a page all the same).
      await tab.page.goto(`${listener.url}/elsewhere`);
      const target = new URL('api/deliveries/1/replay', inspector()).href;
      const outcomes = await tab.page.evaluate(async (url) => {
        const web = globalThis as unknown as {
          fetch: (url: string, init: object) => Promise<{ type: string; status: number }>;
        };
        const tried: string[] = [];
        // With CORS: the browser asks first (a preflight), which nothing answers, so it never sends it.
        await web
          .fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
          .then((r) => tried.push(`cors ${r.status}`))
          .catch(() => tried.push('cors refused by the browser'));
        // no-cors: sent, as text/plain (a JSON content type is not allowed there), unread.
        await web
          .fetch(url, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
          .then((r) => tried.push(`no-cors ${r.type}`))
          .catch(() => tried.push('no-cors failed'));
        return tried;
      }, target);
      // The no-cors one is sent and refused (415: not JSON); its answer is not the page's to read
      // (Cross-Origin-Resource-Policy: same-origin makes the fetch fail) either way.
      expect(outcomes[0]).toBe('cors refused by the browser');
      expect(outcomes[1]).toMatch(/^no-cors (opaque|failed)$/);
      // A form posted to it from that page (text/plain, the one encoding that could carry JSON).
      const answer = tab.page.waitForResponse(target);
      await tab.page.setContent(
        `<form method="post" enctype="text/plain" action="${target}"><input name='{"body":"x","a":"' value='"}'></form>`,
      );
      await tab.page.evaluate(() =>
        (globalThis as unknown as { document: { forms: { submit(): void }[] } }).document.forms[0]!.submit(),
      );
      expect([403, 415]).toContain((await answer).status());
    } finally {
      await tab.close();
    }
    expect(app.requests).toBe(before.app);
    expect(await replays()).toBe(before.replays);
  });

  it('shows after a restart the deliveries that came before', async () => {
    expect(await listener.stop()).toBe(0);
    listener = await start();
    const tab = await newPage(browser);
    try {
      await tab.page.goto(inspector());
      const rows = tab.page.locator('#rows tr');
      expect(await rows.count()).toBe(3);
      expect(await text(rows.last())).toContain('signer.signed');
      expect(await deliver('evt_after_restart')).toBe(200);
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(4);
      await checkPage(tab, 'list after a restart');
    } finally {
      await tab.close();
    }
  });
});

/** A locator's text as it reads: the template's line breaks and indents as single spaces. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Whether `target` has the focus. */
const focused = (target: Locator): Promise<boolean> =>
  target.evaluate((el) => el.ownerDocument.activeElement === el);

/** Presses Tab until `target` has the focus (a keyboard user's way to a control). */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el.ownerDocument.activeElement === el)) return;
  }
  throw new Error('the control cannot be reached with Tab');
}

/**
 * The elements that reach past the content's right edge (main's, inside its padding): cut off on
 * a phone, or a horizontal scroll. Text inside a box that scrolls on its own (a long body) is that
 * box's, not the page's.
 */
async function outsideMain(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type Box = { right: number };
    type Element = {
      tagName: string;
      id: string;
      className: string;
      parentElement: Element | null;
      getBoundingClientRect(): Box;
    };
    const scope = globalThis as unknown as {
      document: { querySelector(s: string): Element; querySelectorAll(s: string): Element[] };
      getComputedStyle(e: Element): { paddingRight: string; overflowX: string; display: string };
    };
    const main = scope.document.querySelector('main');
    const edge = main.getBoundingClientRect().right - parseFloat(scope.getComputedStyle(main).paddingRight);
    const scrolls = (e: Element | null): boolean => {
      for (let at = e; at && at !== main; at = at.parentElement)
        if (['auto', 'scroll', 'hidden'].includes(scope.getComputedStyle(at).overflowX)) return true;
      return false;
    };
    return [...scope.document.querySelectorAll('main *')]
      .filter((e) => scope.getComputedStyle(e).display !== 'none')
      .filter((e) => e.getBoundingClientRect().right > edge + 1 && !scrolls(e.parentElement))
      .map(
        (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${e.className}` : ''}`,
      );
  });
}
