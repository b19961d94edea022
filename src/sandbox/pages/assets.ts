/**
 * The pages' own files: one stylesheet (assets/pages/ceremony.css), one script, the icon and
 * the two web fonts.
 * The script only makes the pages livelier (a waiting page reloads when its
 * envelope moves on); every form works without it.
 */
import type { ServerResponse } from 'node:http';
import { readStylesheet, readWebFont, STYLESHEET } from './page-files.js';

const JS = `"use strict";
(function () {
  var url = document.body.getAttribute("data-poll");
  if (!url || !window.fetch) return;
  var first = null;
  function check() {
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) return;
        if (first === null) first = text;
        else if (text !== first) { window.location.reload(); return; }
        setTimeout(check, 1500);
      })
      .catch(function () { setTimeout(check, 3000); });
  }
  check();
})();
`;

/** A browser asks for an icon; one of our own keeps it from asking for /favicon.ico (a 404). */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#5b3a00"/><path d="M3 11c2-4 3 2 5-2s2 3 5 0" stroke="#fff" stroke-width="1.5" fill="none"/></svg>`;

/**
 * The files by name, in a Map: the name comes from the URL, and an object literal would also
 * "have" `constructor`, `toString` or `__proto__` (its prototype's), a 500 instead of a 404.
 */
const FILES: ReadonlyMap<string, { type: string; body: () => Buffer }> = new Map([
  ['icon.svg', { type: 'image/svg+xml', body: () => Buffer.from(ICON) }],
  [STYLESHEET, { type: 'text/css; charset=utf-8', body: readStylesheet }],
  ['ceremony.js', { type: 'text/javascript; charset=utf-8', body: () => Buffer.from(JS) }],
  ['sandbox-sans.woff2', { type: 'font/woff2', body: () => readWebFont('sandbox-sans.woff2') }],
  ['sandbox-sans-bold.woff2', { type: 'font/woff2', body: () => readWebFont('sandbox-sans-bold.woff2') }],
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
