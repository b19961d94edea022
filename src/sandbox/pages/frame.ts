/**
 * The frame of every sandbox page: escaping, the security headers and the
 * shell (language, direction, the one stylesheet and the one script). The
 * pages are served under a strict Content-Security-Policy: nothing inline
 * (no script, no style attribute), nothing from outside the sandbox, forms
 * only to the sandbox itself, never framed. Links carry a signer's token, so
 * no Referer leaves for another site (`same-origin`: with `no-referrer` a browser sends `Origin: null` on the pages' own forms).
 */
import type { ServerResponse } from 'node:http';
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

/**
 * Text for HTML: control characters and the bidi controls that could reorder
 * a page (U+202A-U+202E, U+2066-U+2069) shown as visible `\u202e` escapes,
 * then the five HTML specials as entities. Safe in text and in quoted
 * attributes.
 */
export function escapeHtml(value: unknown): string {
  return visibleControls(plain(value)).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Control characters and bidi embeddings, overrides and isolates as visible escapes. Unlike a
 * terminal line (core/envelope/text.ts), a page keeps the zero-width joiner and non-joiner and the bidi
 * marks: names are written with them (Persian, Arabic), and a page renders them as meant.
 */
export const visibleControls = (text: string): string =>
  text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** One line of text: line breaks as spaces (after escaping the rest). */
export const escapeLine = (value: unknown): string => escapeHtml(plain(value).replace(/[\r\n]+/g, ' '));

/** A record's field as text: strings as they are, nothing as nothing, anything else as JSON. */
export const plain = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);

/** The box that says why the form just posted changed nothing (a key of the refusals); '' when none. */
export const refusalBox = (lang: Language, refusal: string | undefined): string =>
  refusal
    ? `<div class="box alert" role="alert"><p>${escapeHtml(textFor(STRINGS[lang].refusals, refusal) ?? refusal)}</p></div>`
    : '';

export interface Shell {
  lang: Language;
  title: string;
  /** Already-escaped HTML of the page's main content. */
  main: string;
  /** The same page in the other language (a path with its query), or none. */
  switchTo?: string;
  /** For the script: a URL whose answer changes when the page would (it reloads then). */
  poll?: string;
}

export function page(shell: Shell): string {
  const t = STRINGS[shell.lang];
  const other: Language = shell.lang === 'ar' ? 'en' : 'ar';
  const nav = shell.switchTo
    ? `<nav aria-label="${escapeHtml(t.language)}"><a href="${escapeHtml(shell.switchTo)}" lang="${other}" hreflang="${other}">${escapeHtml(t.otherLanguage)}</a></nav>`
    : '';
  return `<!doctype html>
<html lang="${shell.lang}" dir="${shell.lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeLine(shell.title)}</title>
<link rel="icon" href="/_sandbox/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/_sandbox/assets/ceremony.css">
<script src="/_sandbox/assets/ceremony.js" defer></script>
</head>
<body${shell.poll ? ` data-poll="${escapeHtml(shell.poll)}"` : ''}>
<header class="banner"><p>${escapeHtml(t.sandboxBanner)}</p>${nav}</header>
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
  html: string,
  headers: Record<string, string | string[]> = {},
): void {
  const body = Buffer.from(html, 'utf8');
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
