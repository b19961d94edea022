/**
 * A real browser for the tests of the sandbox's web pages (test/browser/): Debian's
 * chromium, driven by playwright-core (which downloads no browser of its own), with
 * axe-core for accessibility. chromium is a Debian package, not an npm one: `.ci/run`
 * installs it and sets SIGN_REQUIRE_BROWSER=1, so there a missing browser fails;
 * elsewhere the tests that need it are skipped, and say why.
 *
 * Each browser gets a directory of its own (its HOME, TMPDIR and XDG directories),
 * removed when it is closed: chromium writes its crash-report database, dconf cache and
 * shared-memory files there instead of in the user's home or the machine's TMPDIR.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { ROOT } from './paths.js';

/** The chromium to drive: CHROMIUM_PATH, or Debian's. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** Whether chromiumPath() is an executable here. */
export function browserAvailable(): boolean {
  try {
    accessSync(chromiumPath(), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * For describe.runIf: true when the browser tests can run. A missing browser is
 * a failure with SIGN_REQUIRE_BROWSER=1 (CI installed it), a one-line note elsewhere.
 */
export function requireBrowser(): boolean {
  if (browserAvailable()) return true;
  const why = `${chromiumPath()} is not installed (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (process.env.SIGN_REQUIRE_BROWSER === '1') throw new Error(`SIGN_REQUIRE_BROWSER=1 but ${why}`);
  console.warn(`${why}: the browser tests are skipped`);
  return false;
}

/**
 * playwright-core's own --disable-features list. Chromium keeps only the last
 * --disable-features it is given, so ours repeats these: without them a profile
 * would outlive its context, HTTP navigations would be upgraded to HTTPS, and the
 * browser would query time servers and preconnect to a search engine. A test
 * (test/browser/smoke.test.ts) fails when a playwright-core update adds one that
 * is not here.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Features that would reach for the network on their own: Translate (language
 * models and the translate script for the Arabic pages), OptimizationHints (hints
 * and models from Google), MediaRouter and its DIAL provider (SSDP discovery of
 * cast devices on the LAN).
 */
const OUR_DISABLED_FEATURES = ['Translate', 'OptimizationHints', 'MediaRouter', 'DialMediaRouteProvider'];

export const DISABLED_FEATURES = [...new Set([...PLAYWRIGHT_DISABLED_FEATURES, ...OUR_DISABLED_FEATURES])];

/**
 * Switches that keep the browser from doing anything the page did not ask for.
 * playwright-core passes most of them too; they are repeated so that what the tests
 * rely on does not depend on its defaults.
 */
export const LAUNCH_ARGS = [
  // No Safe Browsing lists, variations seed or other fetches started by the browser itself.
  '--disable-background-networking',
  // No component (CRL sets, Widevine, …) downloads.
  '--disable-component-update',
  // No first-run experience or default-browser question: a new profile each time.
  '--no-first-run',
  '--no-default-browser-check',
  // No sign-in or sync, no default apps, no extensions (Debian's launcher loads any it ships).
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  // Metrics are recorded (chromium expects a state) but never sent.
  '--metrics-recording-only',
  `--disable-features=${DISABLED_FEATURES.join(',')}`,
];

/** Whether this process runs as root, where chromium refuses to start with its sandbox. */
const asRoot = process.getuid?.() === 0;

/**
 * Launches headless chromium. Its close() also removes the browser's own directory.
 * The sandbox is on except as root (a CI container), where chromium does not start
 * with it: playwright-core then passes --no-sandbox.
 */
export async function launchBrowser(): Promise<Browser> {
  // A short name: chromium makes its singleton socket in $TMPDIR/org.chromium.Chromium.XXXXXX/,
  // and refuses to start when that socket's path is longer than a Unix socket's (107 bytes),
  // as it is in CI's nested TMPDIRs with a longer name here.
  const dir = mkdtempSync(join(tmpdir(), 'chr-'));
  const remove = () => rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  for (const sub of ['config', 'cache', 'data']) mkdirSync(join(dir, sub));
  Object.assign(env, {
    HOME: dir,
    TMPDIR: dir,
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    XDG_DATA_HOME: join(dir, 'data'),
  });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      chromiumSandbox: !asRoot,
      args: LAUNCH_ARGS,
      env,
    });
  } catch (error) {
    remove();
    throw error;
  }
  const close = browser.close.bind(browser);
  browser.close = async (options) => {
    try {
      await close(options);
    } finally {
      remove();
    }
  };
  return browser;
}

export interface PageOptions {
  /** The browser's language (navigator.language, Accept-Language): default en-US. */
  locale?: string;
  /** prefers-reduced-motion: default no-preference. */
  reducedMotion?: 'reduce' | 'no-preference';
  /** The window's size in CSS pixels: default 1024×768. */
  viewport?: { width: number; height: number };
  /** A phone: touch events, and the mobile viewport meta tag honoured. */
  mobile?: boolean;
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Every request URL, in order, data: URLs included. */
  readonly requests: string[];
  /** Console errors and uncaught exceptions. */
  readonly consoleErrors: string[];
  /** CSP violations: from the console and from securitypolicyviolation events. */
  readonly cspViolations: string[];
  /**
   * Bytes received for every request so far (headers and body as sent, before
   * decompression), once those in flight are done. data: URLs are not counted:
   * their bytes are in the document or stylesheet that holds them.
   */
  pageWeight(): Promise<number>;
  /** The URLs requested outside `origin` (such as http://127.0.0.1:1234); data: URLs are allowed. */
  requestsOutside(origin: string): string[];
  /** Closes the page's context. */
  close(): Promise<void>;
}

/** Exposed to the page so that its securitypolicyviolation events reach the test. */
const CSP_BINDING = '__signCliCspViolation';

/** What the init script uses of the page's window (the tests compile without the DOM's types). */
type CspWindow = Record<string, ((violation: string) => void) | undefined> & {
  addEventListener(
    type: 'securitypolicyviolation',
    listener: (event: {
      disposition: string;
      effectiveDirective: string;
      blockedURI: string;
      sourceFile: string;
      documentURI: string;
      lineNumber: number;
    }) => void,
  ): void;
};

/**
 * A page in a context of its own: 1024×768 at a device scale factor of 1, UTC, light
 * colour scheme, so screenshots are the same from one run to the next. It records what
 * it requests and receives, its console errors and its CSP violations.
 */
export async function newPage(browser: Browser, options: PageOptions = {}): Promise<TestPage> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1024, height: 768 },
    ...(options.mobile ? { isMobile: true, hasTouch: true } : {}),
    deviceScaleFactor: 1,
    locale: options.locale ?? 'en-US',
    reducedMotion: options.reducedMotion ?? 'no-preference',
    timezoneId: 'UTC',
    colorScheme: 'light',
  });
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const cspViolations: string[] = [];
  const inFlight = new Set<Request>();
  const sizes: Promise<number>[] = [];
  context.on('request', (request) => {
    requests.push(request.url());
    if (!request.url().startsWith('data:')) inFlight.add(request);
  });
  const settle = (request: Request) => {
    if (!inFlight.delete(request)) return;
    // What the request received: its response's headers and encoded body.
    sizes.push(
      request.sizes().then(
        (size) => size.responseHeadersSize + size.responseBodySize,
        () => 0,
      ),
    );
  };
  context.on('requestfinished', settle);
  context.on('requestfailed', settle);
  await context.exposeBinding(CSP_BINDING, (_source, violation: string) => {
    cspViolations.push(violation);
  });
  // Init scripts are not subject to the page's CSP, and the listener is there before the page's own code runs.
  await context.addInitScript((binding: string) => {
    const page = globalThis as unknown as CspWindow;
    page.addEventListener('securitypolicyviolation', (event) => {
      page[binding]!(
        `${event.disposition === 'report' ? '[report only] ' : ''}${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'} in ${event.sourceFile || event.documentURI}:${event.lineNumber}`,
      );
    });
  }, CSP_BINDING);
  const page = await context.newPage();
  page.on('console', (message) => {
    const text = message.text();
    if (text.includes('Content Security Policy')) cspViolations.push(text);
    if (message.type() === 'error') consoleErrors.push(text);
  });
  page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  return {
    page,
    context,
    requests,
    consoleErrors,
    cspViolations,
    async pageWeight() {
      for (let waited = 0; inFlight.size > 0 && waited < 5_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      if (inFlight.size > 0)
        throw new Error(`still loading: ${[...inFlight].map((request) => request.url()).join(', ')}`);
      const received = await Promise.all(sizes);
      return received.reduce((sum, bytes) => sum + bytes, 0);
    },
    requestsOutside(origin: string) {
      return requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
    },
    close: () => context.close(),
  };
}

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  helpUrl: string;
  /** A CSS selector of each element in violation. */
  targets: string[];
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What axe runs: WCAG 2.0 and 2.1, levels A and AA, and its best practices. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/**
 * axe-core's serious and critical violations on the page as it is now. axe's
 * source is evaluated through the DevTools protocol, which the page's CSP does
 * not govern (a <script> tag added to the page would be refused).
 */
export async function checkAccessibility(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations: AxeViolation[] = await page.evaluate(async (tags) => {
    const scope = globalThis as unknown as { axe: typeof axe; document: axe.ElementContext };
    const result = await scope.axe.run(scope.document, { runOnly: tags, resultTypes: ['violations'] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      helpUrl: violation.helpUrl,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  }, AXE_TAGS);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** One line per violation, for an assertion's message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')}) ${v.helpUrl}`)
    .join('\n');
}

/** Where `npm run test:browser` with SIGN_SCREENSHOTS=1 writes the pages' screenshots. */
export const SCREENSHOTS_DIR = join(ROOT, 'docs', 'images', 'sandbox');

/**
 * A PNG of the page (the whole page, or with `fullPage` false what the window shows),
 * animations finished and caret hidden. Written to
 * `<dir>/<name>.png` when `dir` is given, else to docs/images/sandbox/<name>.png
 * when SIGN_SCREENSHOTS=1, else only returned. Returns the image and where it was written.
 */
export async function screenshot(
  page: Page,
  name: string,
  dir?: string,
  fullPage = true,
): Promise<{ png: Buffer; path: string | undefined }> {
  const target = dir ?? (process.env.SIGN_SCREENSHOTS === '1' ? SCREENSHOTS_DIR : undefined);
  if (target) mkdirSync(target, { recursive: true });
  const path = target ? join(target, `${name}.png`) : undefined;
  const png = await page.screenshot({ fullPage, animations: 'disabled', caret: 'hide', path });
  return { png, path };
}
