// The signing ceremony (`sandbox --journey manual`), one signer with an identity check, from
// opening the link to "signed":
// - in chromium (Debian's, driven by playwright-core, headless, background networking off): open
//   the link, "Verify identity", the ID app's page, choose the number shown, back, tick consent,
//   "Sign", until the page says so;
// - the baseline: the same requests with fetch (no rendering, no fonts, no script), in the same
//   run, interleaved envelope by envelope.
// Prints p50 and p95 of each and their ratio, and the bytes of a signer page's first load.
// The time is a figure, not a target: six page loads in headless chromium, on this machine's CPU.
// The target is the budget: the first load of a signer's page within 300 KB.
// Needs chromium (apt-get install chromium, or CHROMIUM_PATH): skipped, and said so, without it.
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, spawnServer, stop } from './util.mjs';

const ROUNDS = Number(process.env.BENCH_CEREMONY_ROUNDS ?? 20);
const WARM_UP = 2;
const BUDGET = 300 * 1024;
/** Page loads in one ceremony: the page, after Verify, the ID app, after the answer, the page again, after Sign. */
const PAGE_LOADS = 6;
const NAME = 'The signing ceremony in a browser (one signer, ID app, sign)';

const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function available() {
  try {
    accessSync(chromiumPath(), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function createEnvelope(base, apiKey, n) {
  const response = await fetch(`${base}/api/v1/envelopes`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify({
      title: `Ceremony ${n}`,
      document: { template_id: 'tpl_bench', version: 1 },
      signers: [
        { name: 'Layla Haddad', email: `bench${n}@example.com`, channel: 'email', verification: 'uae_pass' },
      ],
      locale: 'en',
    }),
  });
  const { id } = await response.json();
  // The invitation goes out half a second (of sandbox time) after the create.
  for (;;) {
    const links = await fetch(`${base}/_sandbox/envelopes/${id}/links`, {
      headers: { authorization: `Bearer ${apiKey}` },
    }).then((r) => r.json());
    if (links.signers[0].turn) return links.signers[0].link;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The ceremony with fetch: what the pages ask of the sandbox, without a browser. */
async function overHttp(link) {
  const cookies = [];
  const get = async (url) => {
    const r = await fetch(url, { headers: { cookie: cookies.join('; ') } });
    for (const c of r.headers.getSetCookie()) cookies.push(c.split(';')[0]);
    return r.text();
  };
  const post = async (url, fields) => {
    const r = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: cookies.join('; '),
        origin: new URL(url).origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(fields),
    });
    return get(new URL(r.headers.get('location'), url).href);
  };
  // Each page's forms carry a token of their own (bound to the page's link): read from that page.
  const csrfOf = (html) => /name="csrf" value="([^"]+)"/.exec(html)[1];
  const csrf = csrfOf(await get(link));
  const verifying = await post(`${link}/verify`, { csrf });
  const number = /id="id-number">(\d+)</.exec(verifying)[1];
  const app = new URL(/href="(\/_sandbox\/id\/[^"?]+)/.exec(verifying)[1], link).href;
  await post(app, { csrf: csrfOf(await get(app)), choice: number });
  await get(link);
  const signed = await post(`${link}/sign`, { csrf, consent: 'yes' });
  if (!signed.includes('This envelope was completed'))
    throw new Error('the HTTP ceremony did not end signed');
}

/** The ceremony in the browser, as a person clicks it. */
async function inBrowser(browser, link) {
  const context = await browser.newContext();
  const page = await context.newPage();
  try {
    await page.goto(link);
    await page.getByRole('button', { name: 'Verify identity' }).click();
    const number = (await page.locator('#id-number').textContent()).trim();
    await page.getByRole('link', { name: 'Open the ID app (sandbox)' }).click();
    await page.getByRole('button', { name: number, exact: true }).click();
    await page.getByRole('status').waitFor();
    await page.goto(link);
    await page.getByLabel('I have read the document').check();
    await page.getByRole('button', { name: 'Sign', exact: true }).click();
    await page.getByText('This envelope was completed').waitFor();
  } finally {
    await context.close();
  }
}

/** Bytes of a signer page's first load in a fresh context: the page, its stylesheet, script and fonts. */
async function firstLoad(browser, link) {
  const context = await browser.newContext();
  const page = await context.newPage();
  let bytes = 0;
  page.on('requestfinished', async (request) => {
    const sizes = await request.sizes();
    bytes += sizes.responseHeadersSize + sizes.responseBodySize;
  });
  await page.goto(link);
  await page.evaluate('document.fonts.ready.then(() => true)');
  await page.waitForLoadState('networkidle');
  await context.close();
  return bytes;
}

export async function benchCeremony() {
  if (!available())
    return {
      name: NAME,
      rows: [['skipped', `${chromiumPath()} is not installed (apt-get install chromium)`]],
      ok: true,
    };
  const { chromium } = await import('playwright-core');
  const dir = mkdtempSync(join(tmpdir(), 'bench-ceremony-'));
  const sandbox = await spawnServer(
    [
      BIN,
      'sandbox',
      '--port',
      '0',
      '--json',
      '--data-dir',
      join(dir, 'sandbox'),
      '--journey',
      'manual',
      '--speed',
      '20',
    ],
    { SIGN_NO_UPDATE_NOTIFIER: '1' },
  );
  const { base_url: base, api_key: apiKey } = JSON.parse(sandbox.firstLine);
  const browserDir = join(dir, 'browser');
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    chromiumSandbox: process.getuid?.() !== 0,
    args: ['--disable-background-networking', '--disable-component-update', '--no-first-run'],
    env: { ...process.env, HOME: browserDir, TMPDIR: dir },
  });
  try {
    const browserMs = [];
    const httpMs = [];
    for (let n = 0; n < ROUNDS + WARM_UP; n++) {
      const first = await createEnvelope(base, apiKey, `b${n}`);
      const second = await createEnvelope(base, apiKey, `h${n}`);
      let t = performance.now();
      await inBrowser(browser, first);
      const b = performance.now() - t;
      t = performance.now();
      await overHttp(second);
      const h = performance.now() - t;
      if (n >= WARM_UP) {
        browserMs.push(b);
        httpMs.push(h);
      }
    }
    const weight = await firstLoad(browser, await createEnvelope(base, apiKey, 'weight'));
    const p50 = percentile(browserMs, 50);
    const base50 = percentile(httpMs, 50);
    const ms = (v) => `${v.toFixed(0)} ms`;
    return {
      name: NAME,
      rows: [
        ['rounds (after 2 warm-up)', String(ROUNDS)],
        ['open link to "signed", chromium, p50', ms(p50)],
        ['open link to "signed", chromium, p95', ms(percentile(browserMs, 95))],
        ['same requests over fetch (baseline), p50', ms(base50)],
        ['same requests over fetch (baseline), p95', ms(percentile(httpMs, 95))],
        ['chromium / baseline at p50', `${(p50 / base50).toFixed(1)}x`],
        [`per page load (${PAGE_LOADS} a ceremony), chromium, p50`, ms(p50 / PAGE_LOADS)],
        ["first load of a signer's page (target: within 300 KB)", `${(weight / 1024).toFixed(1)} KB`],
      ],
      ok: weight <= BUDGET,
    };
  } finally {
    await browser.close();
    await stop(sandbox.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
