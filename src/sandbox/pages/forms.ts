/**
 * Forms of the sandbox's pages and their protection against cross-site
 * requests: a signed double-submit token, and, when the browser sends them,
 * Origin and Sec-Fetch-Site naming this very sandbox. A POST that fails any
 * of these changes nothing.
 *
 * The token: a random nonce in a SameSite=Strict, HttpOnly cookie (one per
 * browser), and in every form a hidden field holding an HMAC of the page's
 * link (`/s/<token>`, `/_sandbox/id/<request>`) and that nonce, keyed by a
 * secret of this sandbox's own (`forms.key` in its data dir, 0600). A plain
 * double submit (field equal to cookie) is bound to nothing: a page on
 * another port of 127.0.0.1 can set the sandbox's cookie (cookies do not
 * know ports) and post the same value, and without Origin or Sec-Fetch-Site
 * nothing told the two apart. Now a pair is accepted only when the sandbox
 * made it, for the very link posted to.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { readBody } from '../http.js';
import { randomBase62 } from '../ids.js';
import { writePrivateFile } from '../signing/key-files.js';
import { html, type Markup } from '../../core/web/html.js';

const COOKIE = 'sandbox_csrf';
const NONCE = /^[A-Za-z0-9]{32}$/;
/** In the data dir: the key of the forms' tokens. */
export const FORM_KEY_FILE = 'forms.key';
const KEY_BYTES = 32;

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * The key of `dataDir`, made on first start. One that cannot be read as a key is replaced: the
 * forms open in browsers are then refused once, and a reload gives them new tokens.
 */
export function formKey(dataDir: string): Buffer {
  const path = join(dataDir, FORM_KEY_FILE);
  let saved: Buffer | undefined;
  try {
    saved = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (saved?.length === KEY_BYTES) return saved;
  const key = randomBytes(KEY_BYTES);
  writePrivateFile(path, `${key.toString('base64url')}\n`);
  return key;
}

export class FormTokens {
  constructor(private readonly key: Buffer) {}

  /** What a form of the page at `link` carries for the browser whose cookie holds `nonce`. */
  private field(link: string, nonce: string): string {
    return createHmac('sha256', this.key)
      .update(`sign-cli sandbox form v1\u0000${link}\u0000${nonce}`)
      .digest('base64url');
  }

  /** The token for the forms of the page at `link`, and the cookie to set when the browser has no nonce yet. */
  issue(req: IncomingMessage, link: string): { token: string; setCookie?: string } {
    const existing = cookieValue(req, COOKIE);
    if (existing && NONCE.test(existing)) return { token: this.field(link, existing) };
    const nonce = randomBase62(32);
    return {
      token: this.field(link, nonce),
      setCookie: `${COOKIE}=${nonce}; Path=/; HttpOnly; SameSite=Strict`,
    };
  }

  /**
   * True when the POST to `link` comes from a page of this sandbox for that link: its field is
   * the sandbox's token for the link and the cookie's nonce, and Origin and Sec-Fetch-Site, when
   * sent, name this sandbox.
   */
  accepts(req: IncomingMessage, form: URLSearchParams, link: string): boolean {
    const nonce = cookieValue(req, COOKIE);
    const field = form.get('csrf');
    if (!nonce || !NONCE.test(nonce) || !field) return false;
    const expected = Buffer.from(this.field(link, nonce));
    const given = Buffer.from(field);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return false;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return false;
    return true;
  }
}

/** The hidden fields every form carries. */
export const hiddenFields = (fields: Record<string, string>): Markup[] =>
  Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );

/** Forms are a few fields: anything longer is not one of ours. */
const FORM_LIMIT = 16 * 1024;

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return new URLSearchParams();
  return new URLSearchParams((await readBody(req, FORM_LIMIT)).toString('utf8'));
}
