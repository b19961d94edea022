/**
 * The signing ceremony's other paths in chromium, as a person meets them: a wrong number in
 * the ID app and a wrong code (attempts left, a new number or code), a signature drawn with
 * the pointer, signing and declining with the keyboard alone, outcomes that look different
 * (declined with the reason echoed, voided, completed, failed, expired), a page at 320 px,
 * hostile names, a form without its token.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRINGS, methodName } from '../../src/sandbox/pages/strings.js';
import { launchBrowser, newPage, requireBrowser } from '../helpers/browser.js';
import {
  SIZES,
  api,
  checkPage,
  expectFits,
  expectStepInView,
  tabTo,
  textOf,
  visibleText,
} from '../helpers/ceremony-browser.js';
import { runCli } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const en = STRINGS.en;

/** A computed style of the first element matching `selector`. */
const styleOf = (page: Page, selector: string, property: string): Promise<string> =>
  page
    .locator(selector)
    .first()
    .evaluate((el, name) => {
      const view = el.ownerDocument.defaultView as unknown as {
        getComputedStyle(element: unknown): Record<string, string>;
      };
      return view.getComputedStyle(el)[name]!;
    }, property);

describe.runIf(requireBrowser())('the ceremony’s other paths in chromium', () => {
  let sandbox: SandboxProcess;
  let browser: Browser;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ args: ['--journey', 'manual', '--speed', '20'] });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  async function invited(
    signers: Record<string, unknown>[],
    locale = 'en',
    title = 'Lease',
  ): Promise<string> {
    const calls = api(sandbox);
    const id = await calls.create({ title, signers, locale });
    await calls.until(
      async () => (await calls.status(id)).signers[0]!.status === 'notified',
      'the invitation',
    );
    return id;
  }

  it('says how many attempts are left after a wrong number, on a phone, and offers a new one', async () => {
    const calls = api(sandbox);
    const id = await invited([
      { name: 'Layla', email: 'wrong@example.com', channel: 'email', verification: 'nafath' },
    ]);
    const tab = await newPage(browser, { viewport: SIZES.phone, mobile: true });
    try {
      const page = tab.page;
      await page.goto(await calls.link(id, 0));
      await page.getByRole('button', { name: en.verifyButton(methodName('nafath', 'en')) }).click();
      await expectStepInView(page, `${en.stepOf(1, 3)}: ${en.stepNames.verify}`);
      const shown = (await page.locator('#id-number').textContent())!.trim();
      await page.locator('#step a.button.primary').click();
      const wrong = (await page.getByRole('group').getByRole('button').allTextContents())
        .map((n) => n.trim())
        .find((n) => n !== shown)!;
      await page.getByRole('button', { name: wrong, exact: true }).click();
      expect(await textOf(page.getByRole('status'))).toContain(`${en.idWrong} ${en.idWrongRetry(2)}`);
      await checkPage(tab, sandbox.baseUrl, 'ID app, a wrong number');
      await expectFits(page, 'ID app, a wrong number');
      expect((await calls.status(id)).status).toBe('sent');
      // Back on the signing page: what went wrong, the attempts left, and a new number.
      await page.getByRole('link', { name: en.returnToSigning }).click();
      await expectStepInView(page, `${en.stepOf(1, 3)}: ${en.stepNames.verify}`);
      expect((await textOf(page.getByRole('alert'))).trim()).toBe(`${en.wrongNumber} ${en.attemptsLeft(2)}`);
      await page.getByRole('button', { name: en.tryAgain }).click();
      await expectStepInView(page, `${en.stepOf(1, 3)}: ${en.stepNames.verify}`);
      expect((await page.locator('#id-number').textContent())!.trim()).toMatch(/^\d\d$/);
      expect(await visibleText(page)).toContain(en.attemptsLeft(2));
      await checkPage(tab, sandbox.baseUrl, 'a second number');
    } finally {
      await tab.close();
    }
  });

  it('takes a wrong code as one attempt, sends a new code on request, and shows when it expires', async () => {
    const calls = api(sandbox);
    const id = await invited([
      {
        name: 'Sara',
        email: 'code@example.com',
        phone: '+971501234567',
        channel: 'email',
        verification: 'sms_otp',
      },
    ]);
    const tab = await newPage(browser, { viewport: SIZES.desktop });
    try {
      const page = tab.page;
      await page.goto(await calls.link(id, 0));
      await page.getByRole('button', { name: en.verifyButton(methodName('sms_otp', 'en')) }).click();
      await expectStepInView(page, `${en.stepOf(1, 3)}: ${en.stepNames.verify}`);
      const text = await visibleText(page);
      expect(text).toContain('We sent a six-digit code by SMS to +971•••4567.');
      expect(text).toMatch(/Valid until \d\d:\d\d UTC \(2 minutes\)\. 3 attempts left\./);
      const [first] = (await calls.outbox(id)).filter((m) => m.kind === 'code');
      expect(first).toMatchObject({ channel: 'sms', to: '+971501234567' });
      const code = /(\d{6})$/.exec(first!.subject)![1]!;
      await page.getByLabel(en.codeLabel).fill(code === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: en.codeButton }).click();
      await expectStepInView(page, `${en.stepOf(1, 3)}: ${en.stepNames.verify}`);
      expect((await textOf(page.getByRole('alert'))).trim()).toBe(`${en.wrongCode} ${en.attemptsLeft(2)}`);
      await page.getByRole('button', { name: en.newCode }).click();
      await expectStepInView(page, `${en.stepOf(1, 3)}: ${en.stepNames.verify}`);
      const codes = (await calls.outbox(id)).filter((m) => m.kind === 'code');
      expect(codes).toHaveLength(2);
      await page.getByLabel(en.codeLabel).fill(/(\d{6})$/.exec(codes[1]!.subject)![1]!);
      await page.getByRole('button', { name: en.codeButton }).click();
      await expectStepInView(page, `${en.stepOf(2, 3)}: ${en.stepNames.signature}`);
      await checkPage(tab, sandbox.baseUrl, 'after the code');
    } finally {
      await tab.close();
    }
  });

  it('adopts a signature drawn with the pointer, shows it back, and names it in the trail', async () => {
    const calls = api(sandbox);
    const id = await invited([{ name: 'Omar', email: 'draw@example.com', channel: 'email' }]);
    const tab = await newPage(browser, { viewport: SIZES.desktop });
    try {
      const page = tab.page;
      await page.goto(await calls.link(id, 0));
      await page.getByRole('radio', { name: en.drawIt }).check();
      const pad = page.getByRole('img', { name: en.padLabel });
      const box = (await pad.boundingBox())!;
      for (const stroke of [
        [0.1, 0.7, 0.25, 0.2, 0.4, 0.75],
        [0.5, 0.5, 0.9, 0.45],
      ]) {
        await page.mouse.move(box.x + stroke[0]! * box.width, box.y + stroke[1]! * box.height);
        await page.mouse.down();
        for (let i = 2; i + 1 < stroke.length; i += 2)
          await page.mouse.move(box.x + stroke[i]! * box.width, box.y + stroke[i + 1]! * box.height, {
            steps: 8,
          });
        await page.mouse.up();
      }
      await page.getByRole('button', { name: en.adoptButton }).click();
      await expectStepInView(page, `${en.stepOf(2, 2)}: ${en.stepNames.sign}`);
      expect(await page.locator('#step svg.signature-drawn path').getAttribute('d')).toMatch(
        /^M\d+ \d+( L\d+ \d+)+ M/,
      );
      await checkPage(tab, sandbox.baseUrl, 'a drawn signature');
      await page.getByLabel(en.consent).check();
      await page.getByRole('button', { name: en.signButton }).click();
      await expectStepInView(page, en.outcomes.completedTitle);
      const signed = (await calls.trail(id)).find((entry) => entry.type === 'signer.signed')!;
      expect(signed.detail).toBe('signed (default signature) with a drawn signature (2 strokes)');
    } finally {
      await tab.close();
    }
  });

  it('signs with the keyboard alone, and says what a form without its token gets', async () => {
    const calls = api(sandbox);
    const id = await invited([{ name: 'Sara Nasser', email: 'keys@example.com', channel: 'email' }]);
    const tab = await newPage(browser);
    try {
      const page = tab.page;
      const link = await calls.link(id, 0);
      await page.goto(link);
      // A POST without the form's token (the cookie alone) changes nothing.
      const forged = await tab.context.request.post(`${link}/sign`, { form: { consent: 'yes' } });
      expect(forged.status()).toBe(403);
      // The typed signature is the keyboard's way: the name is there, ready.
      await tabTo(page, page.getByRole('button', { name: en.adoptButton }));
      await page.keyboard.press('Enter');
      await expectStepInView(page, `${en.stepOf(2, 2)}: ${en.stepNames.sign}`);
      await tabTo(page, page.getByLabel(en.consent));
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      expect(
        await page
          .getByRole('button', { name: en.signButton, exact: true })
          .evaluate((el) => el.ownerDocument.activeElement === el),
      ).toBe(true);
      await page.keyboard.press('Enter');
      await expectStepInView(page, en.outcomes.completedTitle);
    } finally {
      await tab.close();
    }
  });

  it('declines with the keyboard alone, a secondary action, and shows the reason back', async () => {
    const calls = api(sandbox);
    const id = await invited([{ name: 'Sara Nasser', email: 'decline@example.com', channel: 'email' }]);
    const tab = await newPage(browser, { viewport: SIZES.phone, mobile: true });
    try {
      const page = tab.page;
      await page.goto(await calls.link(id, 0));
      // Declining is folded away, and does not look like the step's own action.
      const summary = page.locator('details.decline summary');
      expect(await styleOf(page, 'details.decline summary', 'backgroundColor')).not.toBe(
        await styleOf(page, '#step button.primary', 'backgroundColor'),
      );
      expect(await page.getByLabel(en.declineReason).isVisible()).toBe(false);
      await tabTo(page, summary);
      await page.keyboard.press('Enter');
      await tabTo(page, page.getByLabel(en.declineReason));
      await page.keyboard.type('The rent is wrong');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await expectStepInView(page, en.outcomes.declinedTitle);
      expect(await page.locator('#step').getAttribute('class')).toContain('danger');
      expect(await textOf(page.locator('#step q'))).toBe('The rent is wrong');
      await checkPage(tab, sandbox.baseUrl, 'declined');
      await expectFits(page, 'declined');
      const envelope = await calls.status(id);
      expect(envelope.status).toBe('declined');
      expect(envelope.signers[0]!.decline_reason).toBe('The rent is wrong');
    } finally {
      await tab.close();
    }
  });

  it('shows each outcome in its own colour and icon, and a voided envelope with its reason, at 320 px', async () => {
    const calls = api(sandbox);
    const voided = await invited([{ name: 'Sara', email: 'void@example.com', channel: 'email' }], 'ar');
    const result = await runCli(['envelopes', 'void', voided, '--reason', 'wrong tenant', '--yes'], {
      env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
    });
    expect(result.code, result.stderr).toBe(0);
    const tab = await newPage(browser, { viewport: { width: 320, height: 640 }, mobile: true });
    try {
      const page = tab.page;
      await page.goto(await calls.link(voided, 0));
      expect(await textOf(page.locator('#step h2'))).toBe(STRINGS.ar.outcomes.voidedTitle);
      expect(await textOf(page.locator('#step q'))).toBe('wrong tenant');
      expect(await page.getByRole('button', { name: STRINGS.ar.signButton }).count()).toBe(0);
      await checkPage(tab, sandbox.baseUrl, 'voided');
      await expectFits(page, 'voided, 320 px');
      const voidedLook = {
        colour: await styleOf(page, '#step', 'borderTopColor'),
        icon: await page.locator('#step svg path').getAttribute('d'),
      };
      // Another outcome: completed, at 320 px too, in English.
      const done = await invited([{ name: 'Omar', email: 'done@example.com', channel: 'email' }]);
      await page.goto(await calls.link(done, 0));
      await page.getByRole('button', { name: en.adoptButton }).click();
      await expectFits(page, 'signature step, 320 px');
      await page.getByLabel(en.consent).check();
      await page.getByRole('button', { name: en.signButton }).click();
      await expectStepInView(page, en.outcomes.completedTitle);
      await expectFits(page, 'completed, 320 px');
      const completedLook = {
        colour: await styleOf(page, '#step', 'borderTopColor'),
        icon: await page.locator('#step svg path').getAttribute('d'),
      };
      expect(completedLook.colour).not.toBe(voidedLook.colour);
      expect(completedLook.icon).not.toBe(voidedLook.icon);
      await page.getByRole('link', { name: STRINGS.en.otherLanguage }).click();
      expect(await page.locator('html').getAttribute('lang')).toBe('ar');
      await page.goto(`${sandbox.baseUrl}/_sandbox/outbox?lang=ar`);
      await expectFits(page, 'outbox, 320 px');
      const missing = await page.goto(`${sandbox.baseUrl}/s/${'A'.repeat(32)}`);
      expect(missing!.status()).toBe(404);
      await checkPage(tab, sandbox.baseUrl, 'not found', 1);
    } finally {
      await tab.close();
    }
  });

  it('shows hostile names as text', async () => {
    const calls = api(sandbox);
    const hostile = '<img src=x onerror=alert(1)> "x" & \'y\'';
    const id = await invited(
      [{ name: hostile, email: 'hostile@example.com', channel: 'email' }],
      'en',
      `Lease ${hostile}`,
    );
    const tab = await newPage(browser);
    let dialogs = 0;
    tab.page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    try {
      await tab.page.goto(await calls.link(id, 0));
      expect(await tab.page.locator('img').count()).toBe(0);
      expect((await textOf(tab.page.getByRole('heading', { level: 1 }))).trim()).toBe(`Lease ${hostile}`);
      await tab.page.goto(`${sandbox.baseUrl}/_sandbox/outbox?envelope=${id}`);
      expect(await tab.page.locator('img').count()).toBe(0);
      expect(dialogs).toBe(0);
      await checkPage(tab, sandbox.baseUrl, 'hostile');
    } finally {
      await tab.close();
    }
  });
});

describe.runIf(requireBrowser())('an expired envelope in chromium', () => {
  it('says the envelope has expired, in the colours of a warning', async () => {
    // A day of sandbox time in under half a second.
    const sandbox = await startSandboxProcess({ args: ['--journey', 'manual', '--speed', '200000'] });
    const browser = await launchBrowser();
    try {
      const calls = api(sandbox);
      const id = await calls.create({
        title: 'Expires',
        signers: [{ name: 'Sara', email: 'late@example.com', channel: 'email' }],
        expires_in_days: 1,
        locale: 'en',
      });
      const link = await calls.link(id, 0);
      await calls.until(async () => (await calls.status(id)).status === 'expired', 'the expiry');
      const tab = await newPage(browser);
      try {
        await tab.page.goto(link);
        expect(await textOf(tab.page.locator('#step h2'))).toBe(en.outcomes.expiredTitle);
        expect(await tab.page.locator('#step').getAttribute('class')).toContain('warning');
        expect(await tab.page.getByRole('button', { name: en.signButton }).count()).toBe(0);
      } finally {
        await tab.close();
      }
    } finally {
      await browser.close();
      await sandbox.stop();
    }
  }, 60_000);
});
