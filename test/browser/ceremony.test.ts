/**
 * The signing ceremony in a real browser (Debian's chromium through
 * playwright-core): a sandbox process with `--journey manual`, its outbox
 * page, the signer's pages in Arabic and English, the ID app, and
 * `webhooks listen` receiving the events; then the trail and the signed copy
 * verified by the CLI. Every page is checked with axe-core, for page weight
 * and for requests leaving the sandbox.
 */
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRINGS } from '../../src/sandbox/pages/strings.js';
import {
  describeViolations,
  checkAccessibility,
  launchBrowser,
  newPage,
  requireBrowser,
  screenshot,
  type TestPage,
} from '../helpers/browser.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const EXPECTED_EVENTS = [
  'envelope.created',
  'envelope.sent',
  'signer.notified',
  'signer.viewed',
  'signer.verified',
  'signer.signed',
  'signer.notified',
  'signer.viewed',
  'signer.signed',
  'envelope.completed',
];

interface EnvelopeJson {
  status: string;
  signers: { status: string; decline_reason?: string }[];
}

const PAGE_BUDGET = 300 * 1024;

describe.runIf(requireBrowser())('the signing ceremony in chromium', () => {
  let sandbox: SandboxProcess;
  let listener: ListenerProcess;
  let browser: Browser;
  let work: string;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ args: ['--journey', 'manual', '--speed', '20'] });
    listener = await startListenerProcess(['--json'], { SIGN_WEBHOOK_SECRET: sandbox.webhookSecret });
    browser = await launchBrowser();
    work = tempDir('sign-cli-ceremony-');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await listener?.stop();
    await sandbox?.stop();
  });

  const env = () => ({ SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey });

  async function create(body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${sandbox.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': crypto.randomUUID(),
      },
      body: JSON.stringify({ document: { template_id: 'tpl_lease', version: 3 }, ...body }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  async function status(id: string): Promise<EnvelopeJson> {
    const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    return (await response.json()) as EnvelopeJson;
  }

  async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function signerLink(id: string, n: number): Promise<string> {
    const response = await fetch(`${sandbox.baseUrl}/_sandbox/envelopes/${id}/links`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    return ((await response.json()) as { signers: { link: string }[] }).signers[n]!.link;
  }

  /** Checks what every page must hold: no serious accessibility problem, nothing from outside, no CSP violation. */
  async function checkPage(tab: TestPage, label: string, expectedErrors = 0): Promise<void> {
    const violations = await checkAccessibility(tab.page);
    expect(violations, `${label}: ${describeViolations(violations)}`).toEqual([]);
    expect(tab.requestsOutside(sandbox.baseUrl), label).toEqual([]);
    expect(tab.cspViolations, label).toEqual([]);
    // A page answered with 404 is one console error of its own ("Failed to load resource").
    expect(tab.consoleErrors, `${label}: ${tab.consoleErrors.join(' | ')}`).toHaveLength(expectedErrors);
  }

  /** Opens the signer's invitation from the outbox page, as a person would. */
  async function openFromOutbox(tab: TestPage, id: string, to: string, shot?: string): Promise<void> {
    await tab.page.goto(`${sandbox.baseUrl}/_sandbox/outbox?envelope=${id}`);
    await checkPage(tab, 'outbox');
    if (shot) await screenshot(tab.page, shot);
    const message = tab.page.locator('article', { hasText: to }).filter({ hasText: 'invitation' });
    await message.getByRole('link').click();
    await tab.page.waitForURL(/\/s\/[\w-]{32}/);
  }

  /** Verification in the ID app (a second tab, as the phone), then back to sign. */
  async function verifyAndSign(tab: TestPage, lang: 'en' | 'ar', shots: string): Promise<void> {
    const t = STRINGS[lang];
    const page = tab.page;
    await page.getByRole('button', { name: t.verifyButton }).click();
    const shown = (await page.locator('#id-number').textContent())!.trim();
    const appHref = await page.getByRole('link', { name: t.appLink }).getAttribute('href');
    const phone = await newPage(browser);
    try {
      await phone.page.goto(new URL(appHref!, sandbox.baseUrl).href);
      await checkPage(phone, 'ID app');
      await screenshot(phone.page, `id-app-${shots}`);
      await phone.page.getByRole('button', { name: shown, exact: true }).click();
      expect(await textOf(phone.page.getByRole('status'))).toContain(t.idDone.verified!);
    } finally {
      await phone.close();
    }
    // The waiting page reloads itself (its one script) once the app has answered.
    await page.getByLabel(t.consent).waitFor({ timeout: 10_000 });
    await page.getByLabel(t.consent).check();
    await page.getByRole('button', { name: t.signButton, exact: true }).click();
    expect(await textOf(page.getByRole('status').first())).toContain(t.signed);
  }

  for (const lang of ['en', 'ar'] as const) {
    it(`walks an ${lang === 'ar' ? 'Arabic' : 'English'} envelope of two sequential signers to its verified signed copy`, async () => {
      const t = STRINGS[lang];
      const names = lang === 'ar' ? ['ليلى حداد', 'عمر خليل'] : ['Layla Haddad', 'Omar Khalil'];
      const id = await create({
        title: lang === 'ar' ? 'تجديد عقد إيجار المكتب 2027' : 'Office lease renewal 2027',
        contract_id: `CTR-${lang}-${Date.now()}`,
        signers: [
          {
            name: names[0],
            email: `layla.${lang}@example.com`,
            channel: 'email',
            order: 1,
            verification: 'uae_pass',
          },
          { name: names[1], phone: '+971501234567', channel: 'whatsapp', order: 2 },
        ],
        sequential: true,
        locale: lang,
        webhook_url: listener.url,
      });
      await until(async () => (await status(id)).signers[0]!.status === 'notified', 'the first invitation');

      // The second signer opens their link too early.
      const early = await newPage(browser);
      try {
        await early.page.goto(await signerLink(id, 1));
        expect(await textOf(early.page.getByRole('status').first())).toContain(t.waitingFor(names[0]!));
        await checkPage(early, 'waiting');
        await screenshot(early.page, `waiting-${lang}`);
      } finally {
        await early.close();
      }

      const first = await newPage(browser);
      try {
        await openFromOutbox(first, id, `layla.${lang}@example.com`);
        const html = first.page.locator('html');
        expect(await html.getAttribute('lang')).toBe(lang);
        expect(await html.getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        expect((await textOf(first.page.getByRole('heading', { level: 1 }))).trim()).toBe(
          lang === 'ar' ? 'تجديد عقد إيجار المكتب 2027' : 'Office lease renewal 2027',
        );
        expect(await textOf(first.page.getByRole('group', { name: t.page(1, 1) }))).toContain('Signed copy');
        await checkPage(first, 'signer page');
        await screenshot(first.page, `signer-${lang}`);
        // The first load of a signer's page, from a fresh context: the page, its stylesheet, script and fonts.
        const fresh = await newPage(browser);
        try {
          await fresh.page.goto(first.page.url());
          await fresh.page.evaluate('document.fonts.ready.then(() => true)');
          const weight = await fresh.pageWeight();
          expect(weight).toBeGreaterThan(10_000);
          expect(weight).toBeLessThanOrEqual(PAGE_BUDGET);
          expect(fresh.requestsOutside(sandbox.baseUrl)).toEqual([]);
        } finally {
          await fresh.close();
        }
        await verifyAndSign(first, lang, lang);
        await checkPage(first, 'signed');
        await screenshot(first.page, `signed-${lang}`);
      } finally {
        await first.close();
      }

      await until(async () => (await status(id)).signers[1]!.status === 'notified', 'the second invitation');
      const second = await newPage(browser);
      try {
        await openFromOutbox(second, id, '+971501234567', lang === 'en' ? 'outbox' : undefined);
        await second.page.getByLabel(t.consent).check();
        await second.page.getByRole('button', { name: t.signButton, exact: true }).click();
        expect(await textOf(second.page.getByRole('status').first())).toContain(t.finished.completed!);
        await checkPage(second, 'completed');
      } finally {
        await second.close();
      }

      await listener.waitForStdout(
        (lines) => lines.filter((l) => l.includes(id)).some((l) => l.includes('envelope.completed')),
        20_000,
      );
      const types = listener.stdout
        .map((l) => JSON.parse(l) as { type: string; payload: { data: { envelope_id: string } } })
        .filter((e) => e.payload.data.envelope_id === id)
        .map((e) => e.type);
      expect(types).toEqual(EXPECTED_EVENTS);

      const audit = await runCli(['envelopes', 'audit', id, '--verify'], { env: env() });
      expect(audit.code, audit.stderr).toBe(0);
      const pdf = join(work, `${id}.pdf`);
      const download = await runCli(
        ['envelopes', 'download', id, '-o', pdf, '--verify', '--trust', join(sandbox.dataDir, 'ca.pem')],
        { env: env() },
      );
      expect(download.code, download.stderr + download.stdout).toBe(0);
    }, 120_000);
  }

  it('declines with a reason, with the keyboard alone', async () => {
    const id = await create({
      title: 'Keyboard only',
      signers: [{ name: 'Sara Nasser', email: 'sara@example.com', channel: 'email' }],
      locale: 'en',
    });
    await until(async () => (await status(id)).signers[0]!.status === 'notified', 'the invitation');
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      await page.goto(await signerLink(id, 0));
      await tabTo(page, page.getByLabel(STRINGS.en.declineReason));
      await page.keyboard.type('The rent is wrong');
      await page.keyboard.press('Tab');
      expect(
        await page
          .getByRole('button', { name: STRINGS.en.declineButton })
          .evaluate((el) => el.ownerDocument.activeElement === el),
      ).toBe(true);
      await page.keyboard.press('Enter');
      expect(await textOf(page.getByRole('status').first())).toContain(STRINGS.en.finished.declined!);
      const envelope = await status(id);
      expect(envelope.status).toBe('declined');
      expect(envelope.signers[0]!.decline_reason).toBe('The rent is wrong');
    } finally {
      await tab.close();
    }
  });

  it('signs with the keyboard alone, and says what a form without its token gets', async () => {
    const id = await create({
      title: 'Keyboard sign',
      signers: [{ name: 'Sara Nasser', email: 'sara2@example.com', channel: 'email' }],
      locale: 'en',
    });
    await until(async () => (await status(id)).signers[0]!.status === 'notified', 'the invitation');
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      const link = await signerLink(id, 0);
      await page.goto(link);
      // A POST without the form's token (the cookie alone) changes nothing.
      const forged = await tab.context.request.post(`${link}/sign`, { form: { consent: 'yes' } });
      expect(forged.status()).toBe(403);
      expect((await status(id)).signers[0]!.status).toBe('viewed');
      await tabTo(page, page.getByLabel(STRINGS.en.consent));
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      expect(
        await page
          .getByRole('button', { name: STRINGS.en.signButton, exact: true })
          .evaluate((el) => el.ownerDocument.activeElement === el),
      ).toBe(true);
      await page.keyboard.press('Enter');
      expect(await textOf(page.getByRole('status').first())).toContain(STRINGS.en.finished.completed!);
    } finally {
      await tab.close();
    }
  });

  it('fails the check on a wrong number in the ID app', async () => {
    const id = await create({
      title: 'Wrong number',
      signers: [{ name: 'Layla', email: 'wrong@example.com', channel: 'email', verification: 'nafath' }],
      locale: 'en',
    });
    await until(async () => (await status(id)).signers[0]!.status === 'notified', 'the invitation');
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      await page.goto(await signerLink(id, 0));
      await page.getByRole('button', { name: STRINGS.en.verifyButton }).click();
      const shown = (await page.locator('#id-number').textContent())!.trim();
      await page.getByRole('link', { name: STRINGS.en.appLink }).click();
      const wrong = (await page.getByRole('group').getByRole('button').allTextContents()).find(
        (n) => n.trim() !== shown,
      )!;
      await page.getByRole('button', { name: wrong.trim(), exact: true }).click();
      expect(await textOf(page.getByRole('status'))).toContain(STRINGS.en.idDone.wrong!);
      await checkPage(tab, 'ID app, failed');
      expect((await status(id)).status).toBe('failed');
    } finally {
      await tab.close();
    }
  });

  it('shows a voided envelope and an unknown link for what they are', async () => {
    const id = await create({
      title: 'To be voided',
      signers: [{ name: 'Sara', email: 'void@example.com', channel: 'email' }],
      locale: 'ar',
    });
    await until(async () => (await status(id)).signers[0]!.status === 'notified', 'the invitation');
    const voided = await runCli(['envelopes', 'void', id, '--reason', 'wrong tenant', '--yes'], {
      env: env(),
    });
    expect(voided.code, voided.stderr).toBe(0);
    const tab = await newPage(browser);
    try {
      await tab.page.goto(await signerLink(id, 0));
      expect(await textOf(tab.page.getByRole('status').first())).toContain(STRINGS.ar.finished.voided!);
      expect(await tab.page.getByRole('button', { name: STRINGS.ar.signButton }).count()).toBe(0);
      await checkPage(tab, 'voided');
      await tab.page.getByRole('link', { name: STRINGS.ar.otherLanguage }).click();
      expect(await tab.page.locator('html').getAttribute('lang')).toBe('en');
      expect(await textOf(tab.page.getByRole('status').first())).toContain(STRINGS.en.finished.voided!);
      const missing = await tab.page.goto(`${sandbox.baseUrl}/s/${'A'.repeat(32)}`);
      expect(missing!.status()).toBe(404);
      await checkPage(tab, 'not found', 1);
    } finally {
      await tab.close();
    }
  });

  it('shows hostile names as text', async () => {
    const hostile = '<img src=x onerror=alert(1)> "x" & \'y\'';
    const id = await create({
      title: `Lease ${hostile}`,
      signers: [{ name: hostile, email: 'hostile@example.com', channel: 'email' }],
      locale: 'en',
    });
    await until(async () => (await status(id)).signers[0]!.status === 'notified', 'the invitation');
    const tab = await newPage(browser);
    let dialogs = 0;
    tab.page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    try {
      await tab.page.goto(await signerLink(id, 0));
      expect(await tab.page.locator('img').count()).toBe(0);
      expect((await textOf(tab.page.getByRole('heading', { level: 1 }))).trim()).toBe(`Lease ${hostile}`);
      await tab.page.goto(`${sandbox.baseUrl}/_sandbox/outbox?envelope=${id}`);
      expect(await tab.page.locator('img').count()).toBe(0);
      expect(dialogs).toBe(0);
      await checkPage(tab, 'hostile');
    } finally {
      await tab.close();
    }
  });
});

describe.runIf(requireBrowser())('an expired envelope in chromium', () => {
  it('says the link has expired', async () => {
    // A day of sandbox time in under half a second.
    const sandbox = await startSandboxProcess({ args: ['--journey', 'manual', '--speed', '200000'] });
    const browser = await launchBrowser();
    try {
      const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.apiKey}`,
          'content-type': 'application/json',
          'idempotency-key': crypto.randomUUID(),
        },
        body: JSON.stringify({
          title: 'Expires',
          document: { template_id: 'tpl', version: 1 },
          signers: [{ name: 'Sara', email: 'late@example.com', channel: 'email' }],
          expires_in_days: 1,
          locale: 'en',
        }),
      });
      const { id } = (await response.json()) as { id: string };
      const links = await fetch(`${sandbox.baseUrl}/_sandbox/envelopes/${id}/links`, {
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      }).then((r) => r.json() as Promise<{ signers: { link: string }[] }>);
      const deadline = Date.now() + 15_000;
      for (;;) {
        const state = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
          headers: { authorization: `Bearer ${sandbox.apiKey}` },
        }).then((r) => r.json() as Promise<{ status: string }>);
        if (state.status === 'expired') break;
        if (Date.now() > deadline) throw new Error(`still ${state.status}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const tab = await newPage(browser);
      try {
        await tab.page.goto(links.signers[0]!.link);
        expect(await textOf(tab.page.getByRole('status').first())).toContain(STRINGS.en.finished.expired!);
        expect(await tab.page.getByRole('button', { name: STRINGS.en.signButton }).count()).toBe(0);
      } finally {
        await tab.close();
      }
    } finally {
      await browser.close();
      await sandbox.stop();
    }
  }, 60_000);
});

/** The text of the first match, once there is one (the page after a form's redirect). */
async function textOf(locator: Locator): Promise<string> {
  await locator.first().waitFor({ timeout: 10_000 });
  return (await locator.first().textContent()) ?? '';
}

/** Presses Tab until `target` has the focus (a keyboard user's way to a control). */
async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el.ownerDocument.activeElement === el)) return;
  }
  throw new Error('the control cannot be reached with Tab');
}
