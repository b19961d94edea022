/**
 * The pages' own files: one stylesheet (assets/pages/ceremony.css), one script
 * (assets/pages/ceremony.js), the icon and the web fonts.
 * The script only makes the pages livelier (the step scrolled to and announced,
 * a waiting page reloaded when its envelope moves on, the signature pad); every
 * form works without it.
 */
import type { ServerResponse } from 'node:http';
import { readScript, readStylesheet, readWebFont, SCRIPT, STYLESHEET, WEB_FONT_FILES } from './page-files.js';

/** A browser asks for an icon; one of our own keeps it from asking for /favicon.ico (a 404). */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#5b3a00"/><path d="M3 11c2-4 3 2 5-2s2 3 5 0" stroke="#fff" stroke-width="1.5" fill="none"/></svg>`;

/**
 * The files by name, in a Map: the name comes from the URL, and an object literal would also
 * "have" `constructor`, `toString` or `__proto__` (its prototype's), a 500 instead of a 404.
 */
const FILES: ReadonlyMap<string, { type: string; body: () => Buffer }> = new Map([
  ['icon.svg', { type: 'image/svg+xml', body: () => Buffer.from(ICON) }],
  [STYLESHEET, { type: 'text/css; charset=utf-8', body: readStylesheet }],
  [SCRIPT, { type: 'text/javascript; charset=utf-8', body: readScript }],
  ...WEB_FONT_FILES.map(
    (name) =>
      [
        name,
        { type: name.endsWith('.woff2') ? 'font/woff2' : 'font/woff', body: () => readWebFont(name) },
      ] as const,
  ),
]);

const cache = new Map<string, Buffer>();

/** Answers GET /_sandbox/assets/<name>; false when there is no such file. */
export function sendAsset(res: ServerResponse, name: string): boolean {
  const file = FILES.get(name);
  if (!file) return false;
  let body = cache.get(name);
  if (!body) cache.set(name, (body = file.body()));
  res.writeHead(200, {
    'content-type': file.type,
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'cache-control': 'public, max-age=3600',
  });
  res.end(body);
  return true;
}
