/**
 * Forms of the sandbox's pages and their protection against cross-site
 * requests: a double-submit token (a random value in a SameSite=Strict,
 * HttpOnly cookie, repeated in a hidden field of every form) and, when the
 * browser sends them, Origin and Sec-Fetch-Site naming this very sandbox.
 * A POST that fails any of these changes nothing.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readBody } from '../http.js';
import { randomBase62 } from '../ids.js';
import { escapeHtml } from './html.js';

const COOKIE = 'sandbox_csrf';

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The request's token, or a new one with the Set-Cookie header that hands it out. */
export function csrfToken(req: IncomingMessage): { token: string; setCookie?: string } {
  const existing = cookieValue(req, COOKIE);
  if (existing && /^[A-Za-z0-9]{32}$/.test(existing)) return { token: existing };
  const token = randomBase62(32);
  return { token, setCookie: `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict` };
}

/** The hidden fields every form carries. */
export const hiddenFields = (fields: Record<string, string>): string =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');

/** Forms are a few fields: anything longer is not one of ours. */
const FORM_LIMIT = 16 * 1024;

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return new URLSearchParams();
  return new URLSearchParams((await readBody(req, FORM_LIMIT)).toString('utf8'));
}

/** True when the POST comes from a page of this sandbox, with the token its cookie holds. */
export function sameSitePost(req: IncomingMessage, form: URLSearchParams): boolean {
  const cookie = cookieValue(req, COOKIE);
  const field = form.get('csrf');
  if (!cookie || !field || cookie.length !== field.length) return false;
  if (!timingSafeEqual(Buffer.from(cookie), Buffer.from(field))) return false;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return false;
  return true;
}
