/**
 * The signing ceremony in a real browser (Debian's chromium through playwright-core), walked as
 * a signer would, in English and Arabic, on a laptop (1280×800) and a phone (390×844): a
 * sandbox process with `--journey manual`, its outbox page, the signer's pages, the ID app on
 * the same phone (it returns the signer to the signing page), a typed signature, and
 * `webhooks listen` receiving the events; then the trail and the signed copy verified by the
 * CLI, and the typed signature read back from the PDF. Every page is checked with axe, for what
 * it fetches, and for how it fits its window; after every action the step is in view, focused
 * and announced. `SIGN_SCREENSHOTS=1` writes the pictures of docs/sandbox.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRINGS, methodName } from '../../src/sandbox/pages/strings.js';
import { launchBrowser, newPage, requireBrowser, screenshot, type TestPage } from '../helpers/browser.js';
import {
  SIZES,
  api,
  checkPage,
  expectFits,
  expectStepInView,
  textOf,
  visibleText,
} from '../helpers/ceremony-browser.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { readPdf } from '../helpers/pdf.js';
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

const PAGE_BUDGET = 300 * 1024;

/** Markup's text (a sentence with an isolated name): what the page shows. */
const words = (value: { text: string } | string): string =>
  typeof value === 'string' ? value : value.text.replace(/<[^>]+>/g, '');

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

  for (const lang of ['en', 'ar'] as const)
    for (const size of ['desktop', 'phone'] as const)
      it(`walks an ${lang === 'ar' ? 'Arabic' : 'English'} envelope of two sequential signers to its verified signed copy, on a ${size}`, async () => {
        const t = STRINGS[lang];
        const calls = api(sandbox);
        const names = lang === 'ar' ? ['ليلى حداد', 'عمر خليل'] : ['Layla Haddad', 'Omar Khalil'];
        const typed = lang === 'ar' ? 'ليلى ح.' : 'L. Haddad';
        const suffix = `${lang}-${size}`;
        const shot = (tab: TestPage, name: string) =>
          screenshot(tab.page, `${name}-${suffix}`, undefined, false);
        const open = () =>
          newPage(browser, {
            viewport: SIZES[size],
            mobile: size === 'phone',
            locale: lang === 'ar' ? 'ar' : 'en-US',
          });
        const title = lang === 'ar' ? 'تجديد عقد إيجار المكتب 2027' : 'Office lease renewal 2027';
        const layla = `layla.${suffix}@example.com`;
        const id = await calls.create({
          title,
          contract_id: `CTR-${suffix}-${Date.now()}`,
          signers: [
            { name: names[0], email: layla, channel: 'email', order: 1, verification: 'uae_pass' },
            { name: names[1], phone: '+971501234567', channel: 'whatsapp', order: 2 },
          ],
          sequential: true,
          expires_in_days: 14,
          locale: lang,
          webhook_url: listener.url,
        });
        await calls.until(
          async () => (await calls.status(id)).signers[0]!.status === 'notified',
          'the invitation',
        );

        // The second signer opens their link too early: who signs first, by name, and no contact of theirs.
        const early = await open();
        try {
          await early.page.goto(await calls.link(id, 1));
          expect(await textOf(early.page.locator('#step'))).toContain(
            words(t.outcomes.waitingFor(names[0]!, 1)),
          );
          expect(await visibleText(early.page)).not.toContain(layla);
          await checkPage(early, sandbox.baseUrl, 'waiting');
          await expectFits(early.page, `waiting, ${suffix}`);
          await shot(early, 'waiting');
        } finally {
          await early.close();
        }

        const phone = await open();
        const page = phone.page;
        try {
          // The invitation, from the outbox page (in the language asked), as the signer would open it.
          await page.goto(`${sandbox.baseUrl}/_sandbox/outbox?envelope=${id}&lang=${lang}`);
          expect(await page.locator('html').getAttribute('lang')).toBe(lang);
          await checkPage(phone, sandbox.baseUrl, 'outbox');
          await expectFits(page, `outbox, ${suffix}`);
          await shot(phone, 'outbox');
          const invitation = page.locator('article', { hasText: layla });
          expect(await invitation.innerText()).toContain(`${sandbox.baseUrl}/s/`);
          await invitation.getByRole('link', { name: t.outboxOpen.invitation }).click();
          await page.waitForURL(/\/s\/[\w-]{32}/);

          expect(await page.locator('html').getAttribute('dir')).toBe(lang === 'ar' ? 'rtl' : 'ltr');
          expect((await textOf(page.getByRole('heading', { level: 1 }))).trim()).toBe(title);
          const text = await visibleText(page);
          expect(text).toContain(t.signerOf(1, 2));
          expect(text).toContain(t.stepOf(1, 3));
          // The document to read: the lease, filled in, in the signer's language; names, never another's contact.
          expect(text).toContain(lang === 'ar' ? 'عقد إيجار مكتب' : 'Office lease agreement');
          expect(text).toContain(names[1]);
          expect(text).not.toContain('+971501234567');
          await checkPage(phone, sandbox.baseUrl, 'signer page');
          await expectFits(page, `signer page, ${suffix}`);
          await shot(phone, 'signer');
          if (size === 'desktop') {
            // The first load of a signer's page, from a fresh context: the page, its stylesheet, script and fonts.
            const fresh = await newPage(browser);
            try {
              await fresh.page.goto(page.url());
              await fresh.page.evaluate('document.fonts.ready.then(() => true)');
              const weight = await fresh.pageWeight();
              expect(weight).toBeGreaterThan(10_000);
              expect(weight).toBeLessThanOrEqual(PAGE_BUDGET);
              expect(fresh.requestsOutside(sandbox.baseUrl)).toEqual([]);
            } finally {
              await fresh.close();
            }
          }

          // Step 1: the identity check. The number to choose is in view after the click.
          await page.getByRole('button', { name: t.verifyButton(methodName('uae_pass', lang)) }).click();
          await expectStepInView(page, `${t.stepOf(1, 3)}: ${t.stepNames.verify}`);
          const number = (await page.locator('#id-number').textContent())!.trim();
          expect(await page.locator('#id-number').isVisible()).toBe(true);
          expect(await visibleText(page)).toContain(t.attemptsLeft(3));
          await checkPage(phone, sandbox.baseUrl, 'verify');
          await expectFits(page, `verify, ${suffix}`);
          await shot(phone, 'verify');

          // The ID app, on the same phone: it returns the signer to the signing page, at the next step.
          await page.locator('#step a.button.primary').click();
          await page.waitForURL(/\/_sandbox\/id\/idr_/);
          await checkPage(phone, sandbox.baseUrl, 'ID app');
          await expectFits(page, `ID app, ${suffix}`);
          await shot(phone, 'id-app');
          await page.getByRole('button', { name: number, exact: true }).click();
          await page.waitForURL(/\/s\/[\w-]{32}/);
          await expectStepInView(page, `${t.stepOf(2, 3)}: ${t.stepNames.signature}`);

          // Step 2: a signature of their own, typed, in the handwriting font.
          await page.getByLabel(t.typedLabel).fill(typed);
          expect(await page.locator('#typed-preview').textContent()).toBe(typed);
          const font = await page.evaluate<string>(
            "getComputedStyle(document.getElementById('typed-preview')).fontFamily",
          );
          expect(font).toContain('Sandbox Signature');
          await checkPage(phone, sandbox.baseUrl, 'signature');
          await expectFits(page, `signature, ${suffix}`);
          await shot(phone, 'signature');
          await page.getByRole('button', { name: t.adoptButton }).click();

          // Step 3: the signature shown back, then signing. Decline is there, folded away.
          await expectStepInView(page, `${t.stepOf(3, 3)}: ${t.stepNames.sign}`);
          expect(await page.locator('#step .signature-typed').textContent()).toBe(typed);
          expect(await page.locator('.place.mine .signature-typed').textContent()).toBe(typed);
          expect(await page.getByRole('button', { name: t.declineButton, exact: true }).isVisible()).toBe(
            false,
          );
          await checkPage(phone, sandbox.baseUrl, 'sign');
          await expectFits(page, `sign, ${suffix}`);
          await shot(phone, 'sign');
          await page.getByLabel(t.consent).check();
          await page.getByRole('button', { name: t.signButton, exact: true }).click();
          await expectStepInView(page, t.outcomes.signedTitle);
          expect(await page.locator('#step').getAttribute('class')).toContain('success');
          await checkPage(phone, sandbox.baseUrl, 'signed');
          await expectFits(page, `signed, ${suffix}`);
          await shot(phone, 'signed');
          // Their own copy, right after signing: the document with their signature so far.
          const href = await page.getByRole('link', { name: t.outcomes.ownCopy }).getAttribute('href');
          const own = await phone.context.request.get(new URL(href!, page.url()).href);
          expect(own.headers()['content-type']).toBe('application/pdf');
          expect((await readPdf(await own.body())).lines.flat()).toContain(typed);
        } finally {
          await phone.close();
        }

        await calls.until(
          async () => (await calls.status(id)).signers[1]!.status === 'notified',
          'the second invitation',
        );
        const second = await open();
        try {
          await second.page.goto(await calls.link(id, 1));
          const text = await visibleText(second.page);
          expect(text).toContain(t.signerOf(2, 2));
          expect(text).toContain(t.stepOf(1, 2));
          expect(text).not.toContain(layla);
          await second.page.getByRole('button', { name: t.adoptButton }).click();
          await expectStepInView(second.page, `${t.stepOf(2, 2)}: ${t.stepNames.sign}`);
          await second.page.getByLabel(t.consent).check();
          await second.page.getByRole('button', { name: t.signButton, exact: true }).click();
          await expectStepInView(second.page, t.outcomes.completedTitle);
          expect(await second.page.getByRole('link', { name: t.outcomes.completedCopy }).isVisible()).toBe(
            true,
          );
          await checkPage(second, sandbox.baseUrl, 'completed');
          await expectFits(second.page, `completed, ${suffix}`);
          await shot(second, 'completed');
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
        // The trail names each signature.
        const signed = (await calls.trail(id)).filter((entry) => entry.type === 'signer.signed');
        expect(signed.map((entry) => entry.detail)).toEqual([
          `signed (default signature) with a typed signature "${typed}"`,
          `signed (default signature) with a typed signature "${names[1]!}"`,
        ]);

        const audit = await runCli(['envelopes', 'audit', id, '--verify'], { env: env() });
        expect(audit.code, audit.stderr).toBe(0);
        const pdf = join(work, `${id}.pdf`);
        const download = await runCli(
          ['envelopes', 'download', id, '-o', pdf, '--verify', '--trust', join(sandbox.dataDir, 'ca.pem')],
          { env: env() },
        );
        expect(download.code, download.stderr + download.stdout).toBe(0);
        // The typed signature is in the signed copy, at the signer's place, and named in its certificate.
        const lines = (await readPdf(readFileSync(pdf))).lines.flat();
        expect(lines).toContain(typed);
        // The certificate is in the envelope's language, as the document is.
        expect(lines).toContain(
          lang === 'ar' ? `التوقيع: توقيع مكتوب: «${typed}»` : `Signature: typed signature "${typed}"`,
        );
      }, 180_000);
});
