/**
 * What makes two runs "the same service, the same account and environment"
 * without ever keeping a key: the service's base URL as one spelling (scheme
 * and host case, a default port, `localhost` for a loopback address, a
 * trailing slash make no difference), the environment a key belongs to, and a
 * fingerprint of the key (a digest, never the key: it identifies which key an
 * earlier run used, not what the key is).
 */
import { createHash } from 'node:crypto';

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1|\[::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}\])$/i;

/**
 * One spelling for one service: `http://LOCALHOST:80/x/` and
 * `http://127.0.0.1/x` are the same service. Paths keep their case (a path
 * is case-sensitive); a trailing slash is dropped.
 */
export function serviceIdentity(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl.trim();
  }
  const host = LOOPBACK.test(url.hostname) ? 'loopback' : url.hostname.toLowerCase();
  // URL already drops a port that is the scheme's default.
  const port = url.port === '' ? '' : `:${url.port}`;
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${host}${port}${path}`;
}

/** The environment a key names in its prefix (`sk_live_…` → live), else undefined. */
export function environmentOfKey(apiKey: string): string | undefined {
  return /^[a-z]+_([a-z]+)_[A-Za-z0-9]/.exec(apiKey)?.[1];
}

/** A digest of a key, to tell keys apart in a journal without keeping them: 16 hex digits of SHA-256. */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(`sign-cli key fingerprint\n${apiKey}`).digest('hex').slice(0, 16);
}
