/**
 * What the browser tests of the signing ceremony share (test/browser/ceremony*.test.ts): a
 * sandbox process with `--journey manual`, envelopes created over its API, each signer's link,
 * and the checks a person would make of a page: nothing serious for axe, nothing fetched from
 * outside, the step in view and focused and said in the live region, nothing wider than the
 * screen, no text under 12 CSS px, no control under 44 px.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { checkAccessibility, describeViolations, type TestPage } from './browser.js';
import type { SandboxProcess } from './sandbox.js';

export interface EnvelopeJson {
  status: string;
  signers: { status: string; decline_reason?: string }[];
}

/** The two sizes every page is looked at: a laptop and a phone. */
export const SIZES = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

export function api(sandbox: SandboxProcess) {
  const headers = { authorization: `Bearer ${sandbox.apiKey}` };
  return {
    async create(body: Record<string, unknown>): Promise<string> {
      const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ document: { template_id: 'tpl_lease_renewal', version: 3 }, ...body }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    },
    async status(id: string): Promise<EnvelopeJson> {
      return (await (
        await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, { headers })
      ).json()) as EnvelopeJson;
    },
    async link(id: string, n: number): Promise<string> {
      const response = await fetch(`${sandbox.baseUrl}/_sandbox/envelopes/${id}/links`, { headers });
      return ((await response.json()) as { signers: { link: string }[] }).signers[n]!.link;
    },
    async trail(id: string): Promise<{ type: string; detail: string }[]> {
      const response = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}/audit-trail`, { headers });
      return ((await response.json()) as { entries: { type: string; detail: string }[] }).entries;
    },
    async outbox(id: string): Promise<{ kind: string; subject: string; channel: string; to: string }[]> {
      const response = await fetch(`${sandbox.baseUrl}/_sandbox/outbox?envelope=${id}`, { headers });
      return (
        (await response.json()) as { data: { kind: string; subject: string; channel: string; to: string }[] }
      ).data;
    },
    /** Waits (bounded) until `check` holds. */
    async until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** What every page must hold: no serious accessibility problem, nothing from outside, no CSP violation. */
export async function checkPage(
  tab: TestPage,
  baseUrl: string,
  label: string,
  expectedErrors = 0,
): Promise<void> {
  const violations = await checkAccessibility(tab.page);
  expect(violations, `${label}: ${describeViolations(violations)}`).toEqual([]);
  expect(tab.requestsOutside(baseUrl), label).toEqual([]);
  expect(tab.cspViolations, label).toEqual([]);
  // A page answered with 404 is one console error of its own ("Failed to load resource").
  expect(tab.consoleErrors, `${label}: ${tab.consoleErrors.join(' | ')}`).toHaveLength(expectedErrors);
}

interface Fit {
  viewport: number;
  scrollWidth: number;
  /** Elements wider than the window, or reaching past it. */
  wide: string[];
  /** Text smaller than 12 CSS px: its size and the start of the text. */
  small: string[];
  /** Controls smaller than 44×44 CSS px (a checkbox or radio button is measured with its label). */
  tiny: string[];
}

/**
 * How the page fits its window: what overflows, what text is too small, what controls are too
 * small to tap. Run in the page as a script of its own (the tests compile without the DOM's types).
 */
const FIT_SCRIPT = `(() => {
  const viewport = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : '');
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 1 && box.height > 1 && getComputedStyle(el).visibility !== 'hidden' && !el.closest('[hidden]');
  };
  const all = [...document.querySelectorAll('body *')].filter(shown);
  const wide = all.filter((el) => {
    const box = el.getBoundingClientRect();
    return box.right > viewport + 0.5 || box.left < -0.5;
  }).map(name);
  const small = all
    .filter((el) => [...el.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim() !== ''))
    .filter((el) => parseFloat(getComputedStyle(el).fontSize) < 12)
    .map((el) => name(el) + ' ' + getComputedStyle(el).fontSize + ' "' + el.textContent.trim().slice(0, 30) + '"');
  const tiny = [...document.querySelectorAll('a[href], button, input:not([type="hidden"]), textarea, select, summary, canvas, [tabindex="0"]')]
    .filter(shown)
    .map((el) => (el.type === 'checkbox' || el.type === 'radio' ? el.closest('label') || el : el))
    .filter((el) => { const box = el.getBoundingClientRect(); return box.width < 44 || box.height < 44; })
    .map((el) => name(el) + ' ' + Math.round(el.getBoundingClientRect().width) + 'x' + Math.round(el.getBoundingClientRect().height));
  return { viewport, scrollWidth: document.documentElement.scrollWidth, wide, small, tiny };
})()`;

export const fitOf = (page: Page): Promise<Fit> => page.evaluate<Fit>(FIT_SCRIPT);

/** The page fits a phone or a laptop: nothing wider than the window, text ≥ 12 px, controls ≥ 44 px. */
export async function expectFits(page: Page, label: string): Promise<void> {
  const fit = await fitOf(page);
  expect(fit.scrollWidth, `${label}: the page is wider than the window`).toBeLessThanOrEqual(fit.viewport);
  expect(fit.wide, `${label}: wider than the window`).toEqual([]);
  expect(fit.small, `${label}: text under 12 CSS px`).toEqual([]);
  expect(fit.tiny, `${label}: controls under 44 px`).toEqual([]);
}

/**
 * After an action: the page came back at its step, which is in view (its heading and its first
 * lines within the window), has the focus, and is said in the live region.
 */
export async function expectStepInView(page: Page, said: string | RegExp): Promise<void> {
  // A function, not a string: a string predicate is evaluated with eval, which the page's CSP refuses.
  await page.waitForFunction(() => {
    const { document } = globalThis as unknown as { document: { activeElement: { id: string } | null } };
    return document.activeElement?.id === 'step';
  });
  const inView = await page.evaluate<{ top: number; headingInView: boolean; fits: boolean }>(`(() => {
    const height = window.innerHeight;
    const step = document.getElementById('step').getBoundingClientRect();
    const heading = document.querySelector('#step h2').getBoundingClientRect();
    return {
      top: step.top,
      headingInView: heading.top >= 0 && heading.bottom <= height,
      // The step fits the window, or it starts at its top.
      fits: (step.top >= 0 && step.bottom <= height) || (step.top >= -1 && step.top < height / 4),
    };
  })()`);
  expect(inView.headingInView, `the step's heading is in view (step top ${inView.top})`).toBe(true);
  expect(inView.fits, `the step is in view (top ${inView.top})`).toBe(true);
  await expect.poll(() => page.locator('#announce').textContent()).toMatch(said);
}

/** The text of the first match, once there is one (the page after a form's redirect). */
export async function textOf(locator: Locator): Promise<string> {
  await locator.first().waitFor({ timeout: 10_000 });
  return (await locator.first().textContent()) ?? '';
}

/** Presses Tab until `target` has the focus (a keyboard user's way to a control). */
export async function tabTo(page: Page, target: Locator): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el.ownerDocument.activeElement === el)) return;
  }
  throw new Error('the control cannot be reached with Tab');
}

/** A page's text as a person reads it. */
export const visibleText = (page: Page): Promise<string> => page.locator('body').innerText();
