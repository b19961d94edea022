import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const data = mkdtempSync(join(tmpdir(), 'shots-'));
const child = spawn('node', ['bin/sign-cli.js', 'sandbox', '--port', '0', '--json', '--journey', 'manual', '--speed', '20', '--data-dir', data], { stdio: ['ignore', 'pipe', 'inherit'] });
const first = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(JSON.parse(String(d).split('\n')[0]))));
const base = first.base_url, key = first.api_key;
const api = (path, body) => fetch(base + path, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }, body: body && JSON.stringify(body) }).then((r) => r.json());
const lang = process.argv[2] ?? 'en';
const names = lang === 'ar' ? ['ليلى حداد', 'عمر خليل'] : ['Layla Haddad', 'Omar Khalil'];
const env = await api('/api/v1/envelopes', { title: lang === 'ar' ? 'تجديد عقد إيجار المكتب 2027' : 'Office lease renewal 2027', contract_id: 'CTR-2027-0042', document: { template_id: 'tpl_lease_renewal', version: 3 }, locale: lang, sequential: true, expires_in_days: 14,
  signers: [{ name: names[0], email: 'layla@example.com', channel: 'email', order: 1, verification: 'uae_pass' }, { name: names[1], phone: '+971501234567', channel: 'whatsapp', order: 2 }] });
await new Promise((r) => setTimeout(r, 500));
const links = await api(`/_sandbox/envelopes/${env.id}/links`);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, chromiumSandbox: false });
for (const [w, h] of [[1280, 800], [390, 844]]) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: 1 });
  const page = await ctx.newPage();
  const shot = (name, full = false) => page.screenshot({ path: `/tmp/shots/${lang}-${w}-${name}.png`, fullPage: full });
  await page.goto(links.signers[0].link);
  await shot('1-open'); await shot('1-open-full', true);
  if (w === 1280) {
    await page.getByRole('button', { name: lang === 'ar' ? 'التحقق عبر' : 'Verify with', exact: false }).click();
    await page.waitForURL(/#step/); await page.waitForTimeout(300);
    await shot('2-verify');
    const number = (await page.locator('#id-number').textContent()).trim();
    const href = await page.locator('a.button.primary[href*="/_sandbox/id/"]').getAttribute('href');
    await page.goto(new URL(href, base).href); await shot('3-app');
    await page.getByRole('button', { name: number, exact: true }).click();
    await page.waitForURL(/\/s\//); await page.waitForTimeout(500); await shot('4-signature');
    await page.getByRole('button', { name: lang === 'ar' ? 'اعتمد هذا التوقيع' : 'Use this signature' }).click();
    await page.waitForURL(/#step/); await page.waitForTimeout(500); await shot('5-sign');
    await page.getByLabel(lang === 'ar' ? 'قرأت المستند' : 'I have read', { exact: false }).check();
    await page.getByRole('button', { name: lang === 'ar' ? 'وقّع المستند' : 'Sign the document' }).click();
    await page.waitForURL(/#step/); await page.waitForTimeout(500); await shot('6-signed');
  }
  await page.goto(`${base}/_sandbox/outbox?lang=${lang}`); await shot('7-outbox'); 
  await ctx.close();
}
await browser.close();
child.kill('SIGTERM');
