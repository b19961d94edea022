/**
 * The frame of the inspector's pages and what every answer carries: a strict
 * Content-Security-Policy (nothing inline, nothing from elsewhere, never framed), no Referer,
 * nothing cached, and every secret the listener knows masked in the text as sent (a value of a
 * delivery can hold one). Pages are written with the one html tag (core/web/html.ts).
 */
import type { ServerResponse } from 'node:http';
import { redactSecrets } from '../../../core/keys.js';
import { html, oneLine, type Markup } from '../../../core/web/html.js';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** On every answer, pages, JSON and files alike. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export interface Shell {
  title: string;
  main: Markup;
  /** The page lists deliveries and follows new ones (the script reloads its list). */
  live?: boolean;
}

export function page(shell: Shell): Markup {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${oneLine(shell.title)}</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/inspector.css">
<script src="/assets/inspector.js" defer></script>
</head>
<body${shell.live ? html` data-live="/api/stream"` : ''}>
<a class="skip" href="#main">Skip to the deliveries</a>
<header class="bar"><p><a href="/">sign-cli webhook inspector</a></p></header>
<main id="main">
${shell.main}
</main>
</body>
</html>
`;
}

/** Sends text with the security headers, every secret in it masked. */
export function sendText(
  res: ServerResponse,
  status: number,
  type: string,
  text: string,
  secrets: readonly string[],
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(redactSecrets(text, secrets), 'utf8');
  res.writeHead(status, {
    'content-type': type,
    'content-length': body.length,
    ...SECURITY_HEADERS,
    ...headers,
  });
  res.end(body);
}

export const sendPage = (
  res: ServerResponse,
  status: number,
  markup: Markup,
  secrets: readonly string[],
): void =>
  sendText(res, status, 'text/html; charset=utf-8', markup.text, secrets, {
    'content-security-policy': CONTENT_SECURITY_POLICY,
  });

export const sendJson = (
  res: ServerResponse,
  status: number,
  value: unknown,
  secrets: readonly string[],
): void => sendText(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`, secrets);

/** A time as the pages show it: UTC to the second, marked Z. */
export const shownTime = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');

/** A URL shortened for a cell: its host and path, the scheme left out. */
export const shortUrl = (url: string): string => url.replace(/^https?:\/\//, '');
