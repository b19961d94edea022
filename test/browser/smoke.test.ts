/**
 * The browser harness itself (test/helpers/browser.ts), against a small server of
 * this file's: what it measures is what the server sent, every check it offers
 * finds what it is there to find, and the browser leaves nothing behind.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAccessibility,
  describeViolations,
  DISABLED_FEATURES,
  launchBrowser,
  newPage,
  PLAYWRIGHT_DISABLED_FEATURES,
  requireBrowser,
  screenshot,
} from '../helpers/browser.js';

const CSP = "default-src 'none'; style-src 'self'; script-src 'self'";

const PAGE = `<!doctype html>
<html lang="ar" dir="rtl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>توقيع المستند</title>
<link rel="stylesheet" href="/style.css">
<script src="/app.js" defer></script>
</head>
<body>
<main>
<h1>مرحبا، يرجى توقيع المستند</h1>
<p id="status">…</p>
</main>
</body>
</html>
`;

/** No <title>, no lang: axe's document-title and html-has-lang. */
const BARE_PAGE = `<!doctype html>
<html>
<head><meta charset="utf-8"><link rel="stylesheet" href="/style.css"></head>
<body><main><h1>Untitled</h1></main></body>
</html>
`;

/** An inline script, which the CSP refuses. */
const INLINE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Inline</title></head>
<body><main><h1>Inline</h1><script>document.title = 'ran';</script></main></body>
</html>
`;

const STYLE =
  'body { font-family: "DejaVu Sans", sans-serif; margin: 2rem; color: #111; background: #fff; }\n';
// Repetitive, so that gzip shrinks it well below its decoded size: the weight is what was sent.
const SCRIPT = `${'// padding so that the encoded size differs from the decoded one\n'.repeat(200)}document.getElementById('status').textContent = 'جاهز';\n`;
const SCRIPT_GZ = gzipSync(SCRIPT);

interface Served {
  server: Server;
  origin: string;
  /** Bytes written for each path (status line, headers and body), favicon requests aside. */
  sent: Map<string, number>;
}

async function serve(): Promise<Served> {
  const sent = new Map<string, number>();
  const reply = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    // Requests on one connection come one after another: what the socket wrote while
    // this one was answered is this response.
    const socket = req.socket;
    const before = socket.bytesWritten;
    res.on('finish', () => {
      // The browser fetches /favicon.ico itself, outside the page's requests.
      if (path !== '/favicon.ico') sent.set(path, (sent.get(path) ?? 0) + socket.bytesWritten - before);
    });
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
      res.end(body);
    };
    if (path === '/') return html(PAGE);
    if (path === '/bare') return html(BARE_PAGE);
    if (path === '/inline') return html(INLINE_PAGE);
    if (path === '/style.css') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8' });
      return res.end(STYLE);
    }
    if (path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'content-encoding': 'gzip' });
      return res.end(SCRIPT_GZ);
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  };
  const server = createServer(reply);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${port}`, sent };
}

/** What the browser's processes leave in TMPDIR carries one of these prefixes. */
const BROWSER_LEFTOVERS = /^(chr-|playwright|\.?org\.chromium\.)/;
const leftovers = () => readdirSync(tmpdir()).filter((name) => BROWSER_LEFTOVERS.test(name));

describe.runIf(requireBrowser())('browser harness', () => {
  let browser: Browser;
  let served: Served;
  let before: string[];

  beforeAll(async () => {
    before = leftovers();
    served = await serve();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    served?.server.closeAllConnections();
    await new Promise((resolve) => served?.server.close(resolve));
    // Once closed, the browser has left nothing in TMPDIR (its own directory included).
    expect(leftovers().filter((name) => !before.includes(name))).toEqual([]);
  });

  it('measures the bytes the page received, all from its own origin, without a CSP violation', async () => {
    const tested = await newPage(browser, { locale: 'ar', reducedMotion: 'reduce' });
    try {
      await tested.page.goto(`${served.origin}/`);
      // The same-origin script ran under the CSP.
      await expect.poll(() => tested.page.locator('#status').textContent()).toBe('جاهز');
      expect(await tested.page.evaluate('navigator.language')).toBe('ar');
      expect(await tested.page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")).toBe(true);

      expect(tested.requests).toEqual([
        `${served.origin}/`,
        `${served.origin}/style.css`,
        `${served.origin}/app.js`,
      ]);
      expect(tested.requestsOutside(served.origin)).toEqual([]);
      expect(tested.requestsOutside('http://127.0.0.1:1')).toHaveLength(3);
      expect(tested.consoleErrors).toEqual([]);
      expect(tested.cspViolations).toEqual([]);

      const weight = await tested.pageWeight();
      const sent = [...served.sent.values()].reduce((sum, bytes) => sum + bytes, 0);
      expect(weight).toBeGreaterThan(0);
      expect(weight).toBe(sent);
      // The script's encoded (gzip) bytes, not its decoded ones.
      expect(weight).toBeLessThan(PAGE.length + STYLE.length + SCRIPT.length);
    } finally {
      await tested.close();
    }
  });

  it('finds no serious accessibility violation on the page, and finds the missing title and lang of another', async () => {
    const tested = await newPage(browser, { locale: 'ar' });
    try {
      await tested.page.goto(`${served.origin}/`);
      const violations = await checkAccessibility(tested.page);
      expect(violations, describeViolations(violations)).toEqual([]);
      // Running axe is not a CSP violation of the page's.
      expect(tested.cspViolations).toEqual([]);

      await tested.page.goto(`${served.origin}/bare`);
      const bare = await checkAccessibility(tested.page);
      expect(bare.map((v) => v.id).sort()).toEqual(['document-title', 'html-has-lang']);
      expect(bare[0]?.targets).toEqual(['html']);
      expect(describeViolations(bare)).toMatch(
        /^serious document-title: Documents must have <title> element/,
      );
    } finally {
      await tested.close();
    }
  });

  it('records a CSP violation and the console error that reports it', async () => {
    const tested = await newPage(browser);
    try {
      await tested.page.goto(`${served.origin}/inline`);
      await expect.poll(() => tested.cspViolations.length).toBeGreaterThanOrEqual(2);
      expect(tested.cspViolations.some((v) => v.startsWith('script-src-elem blocked inline'))).toBe(true);
      expect(tested.cspViolations.some((v) => v.includes('Content Security Policy'))).toBe(true);
      expect(tested.consoleErrors.some((e) => e.includes('Content Security Policy'))).toBe(true);
      expect(await tested.page.title()).toBe('Inline');
    } finally {
      await tested.close();
    }
  });

  it('takes a full-page screenshot at 1024 pixels wide', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sign-cli-screenshot-'));
    const tested = await newPage(browser, { locale: 'ar' });
    try {
      await tested.page.goto(`${served.origin}/`);
      const { png, path } = await screenshot(tested.page, 'smoke', dir);
      expect(path).toBe(join(dir, 'smoke.png'));
      expect(existsSync(path!)).toBe(true);
      // PNG signature, then the IHDR chunk: width and height, big-endian.
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(1024);
      expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(768);
    } finally {
      await tested.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("launches with playwright-core's disabled features and ours in the one --disable-features chromium keeps", async () => {
    const tested = await newPage(browser);
    try {
      await tested.page.goto('chrome://version');
      const commandLine = (await tested.page.locator('#command_line').textContent()) ?? '';
      const lists = [...commandLine.matchAll(/--disable-features=(\S+)/g)].map((m) => m[1]!.split(','));
      // playwright-core's own list comes first; chromium keeps the last.
      expect(lists.length).toBeGreaterThanOrEqual(1);
      const kept = lists.at(-1)!;
      expect(kept).toEqual(DISABLED_FEATURES);
      const notKept = lists.flat().filter((feature) => !kept.includes(feature));
      expect(notKept, 'add these to PLAYWRIGHT_DISABLED_FEATURES in test/helpers/browser.ts').toEqual([]);
      expect(kept).toEqual(expect.arrayContaining(PLAYWRIGHT_DISABLED_FEATURES));
      expect(commandLine.includes('--no-sandbox')).toBe(process.getuid?.() === 0);
    } finally {
      await tested.close();
    }
  });
});
