/**
 * The pages' own files: one stylesheet, one script and the two web fonts.
 * The script only makes the pages livelier (a waiting page reloads when its
 * envelope moves on); every form works without it.
 */
import type { ServerResponse } from 'node:http';
import { readWebFont } from './page-files.js';

const CSS = `@font-face{font-family:"Sandbox Sans";src:url(/_sandbox/assets/sandbox-sans.woff2) format("woff2");font-weight:400;font-display:swap}
@font-face{font-family:"Sandbox Sans";src:url(/_sandbox/assets/sandbox-sans-bold.woff2) format("woff2");font-weight:700;font-display:swap}
*{box-sizing:border-box}
body{margin:0;font-family:"Sandbox Sans",sans-serif;font-size:16px;line-height:1.5;color:#1b1b1b;background:#f3f4f6}
.banner{display:flex;justify-content:space-between;align-items:center;gap:1rem;padding:.5rem 1rem;background:#5b3a00;color:#fff}
.banner p{margin:0}
.banner a{color:#fff;font-weight:700}
main{max-width:52rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
.who{margin:0 0 1rem}
.box{background:#fff;border:1px solid #c4c7cc;border-radius:6px;padding:1rem;margin:1rem 0}
.notice{border-inline-start:6px solid #1f5fbf}
.alert{border-inline-start:6px solid #b3261e;background:#fff4f3}
.pages{display:flex;flex-direction:column;gap:1rem;margin:1rem 0}
.pages svg{display:block;width:100%;height:auto;background:#fff;box-shadow:0 1px 3px #0004}
.number{font-size:3rem;font-weight:700;letter-spacing:.1em;margin:.5rem 0}
label{display:block;margin:.5rem 0}
textarea,input[type=text]{width:100%;font:inherit;padding:.5rem;border:1px solid #6b6f76;border-radius:4px}
button,.button{display:inline-block;font:inherit;font-weight:700;padding:.6rem 1.2rem;margin:.5rem 0;border-radius:4px;border:2px solid #1f5fbf;background:#1f5fbf;color:#fff;cursor:pointer;text-decoration:none}
button.secondary{background:#fff;color:#1f5fbf}
button.danger{background:#b3261e;border-color:#b3261e}
.choices{display:flex;gap:1rem;flex-wrap:wrap;border:0;padding:0}
.choices button{font-size:2rem;min-width:5rem}
:focus-visible{outline:3px solid #e8a600;outline-offset:2px}
.message{background:#fff;border:1px solid #c4c7cc;border-radius:6px;padding:1rem;margin:1rem 0}
.message h2{margin:0 0 .25rem}
.meta{color:#44474d;font-size:.9rem;margin:0}
.text{white-space:pre-line;overflow-wrap:anywhere}
`;

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
  ['ceremony.css', { type: 'text/css; charset=utf-8', body: () => Buffer.from(CSS) }],
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
