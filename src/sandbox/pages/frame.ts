/**
 * The frame of every sandbox page: the security headers and the
 * shell (language, direction, the one stylesheet and the one script). The
 * pages are served under a strict Content-Security-Policy: nothing inline
 * (no script, no style attribute), nothing from outside the sandbox, forms
 * only to the sandbox itself, never framed. Links carry a signer's token, so
 * no Referer leaves for another site (`same-origin`: with `no-referrer` a browser sends `Origin: null` on the pages' own forms).
 */
import type { ServerResponse } from 'node:http';
import { html, oneLine, type Markup } from '../../core/web/html.js';
import { STRINGS, textFor, type Language } from './strings.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The box that says why the form just posted changed nothing (a key of the refusals); nothing when none. */
export const refusalBox = (lang: Language, refusal: string | undefined): Markup | '' =>
  refusal
    ? html`<div class="box alert" role="alert">
        <p>${textFor(STRINGS[lang].refusals, refusal) ?? refusal}</p>
      </div>`
    : '';

export interface Shell {
  lang: Language;
  title: string;
  /** The page's main content. */
  main: Markup;
  /** The same page in the other language (a path with its query), or none. */
  switchTo?: string;
  /** For the script: a URL whose answer changes when the page would (it reloads then). */
  poll?: string;
}

export function page(shell: Shell): Markup {
  const t = STRINGS[shell.lang];
  const other: Language = shell.lang === 'ar' ? 'en' : 'ar';
  const nav =
    shell.switchTo &&
    html`<nav aria-label="${t.language}">
      <a href="${shell.switchTo}" lang="${other}" hreflang="${other}">${t.otherLanguage}</a>
    </nav>`;
  return html`<!doctype html>
<html lang="${shell.lang}" dir="${shell.lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${oneLine(shell.title)}</title>
<link rel="icon" href="/_sandbox/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/_sandbox/assets/ceremony.css">
<script src="/_sandbox/assets/ceremony.js" defer></script>
</head>
<body${shell.poll && html` data-poll="${shell.poll}"`}>
<header class="banner"><p>${t.sandboxBanner}</p>${nav}</header>
<main id="main">
${shell.main}
</main>
</body>
</html>
`;
}

export function sendPage(
  res: ServerResponse,
  status: number,
  page: Markup,
  headers: Record<string, string | string[]> = {},
): void {
  const body = Buffer.from(page.text, 'utf8');
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': body.length,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(body);
}
