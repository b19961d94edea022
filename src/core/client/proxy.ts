/**
 * Outgoing proxies, as curl, gh and the Stripe CLI take them: HTTPS_PROXY for
 * https:// URLs, HTTP_PROXY for http:// (either case; the lower-case one wins,
 * as undici reads them), NO_PROXY a comma- or space-separated list of hosts
 * (`example.com` covers its subdomains, `.example.com` and `*.example.com` too,
 * `host:port` one port, `*` everything). Loopback (localhost, 127.0.0.1, ::1)
 * is never proxied, as Go's ProxyFromEnvironment does for gh: the local
 * sandbox works behind a corporate proxy without a NO_PROXY of its own.
 *
 * This module, free of undici so the CLI can read settings at start-up, reads
 * the settings and decides, in proxyFor() alone, which proxy a URL goes
 * through: doctor and --verbose show its answer, and the dispatcher
 * (proxy-dispatcher.ts: undici's ProxyAgent, CONNECT, the proxy's credentials
 * from its URL) routes every request by it, so they cannot disagree.
 */
import { UsageError } from '../errors.js';

export interface ProxySettings {
  httpProxy?: string | undefined;
  httpsProxy?: string | undefined;
  noProxy?: string | undefined;
}

/** Hosts never sent through a proxy, whatever NO_PROXY says. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

type Env = Readonly<Record<string, string | undefined>>;

/** The first of these variables that is set: its name and value. */
const first = (env: Env, ...names: string[]): { name: string; value: string } | undefined => {
  for (const name of names) if (env[name]?.trim()) return { name, value: env[name].trim() };
  return undefined;
};

/**
 * A proxy URL as the variable gives it; without a scheme it is http:// (as
 * curl reads `proxy.corp:3128`). Anything but an http(s) URL is a UsageError
 * naming the variable, before anything is sent.
 */
function proxyUrl(found: { name: string; value: string } | undefined): string | undefined {
  if (!found) return undefined;
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname) {
    throw new UsageError(
      `${found.name}: not a proxy URL (${showProxyUrl(text)}); give http://host:port, with user:password@ if the proxy needs them`,
    );
  }
  return text;
}

/** The proxy settings of an environment (process.env for the CLI); nothing set is no proxy. */
export function proxySettingsFrom(env: Env): ProxySettings {
  return {
    httpProxy: proxyUrl(first(env, 'http_proxy', 'HTTP_PROXY')),
    httpsProxy: proxyUrl(first(env, 'https_proxy', 'HTTPS_PROXY')),
    noProxy: first(env, 'no_proxy', 'NO_PROXY')?.value,
  };
}

/** The variable a URL's proxy comes from, for messages. */
export function proxyVariable(url: string): string {
  return new URL(url).protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
}

/** The proxy URL a request to `url` goes through, or undefined when it goes direct. */
export function proxyFor(url: string, settings: ProxySettings): string | undefined {
  const target = new URL(url);
  // https falls back to the HTTP proxy, as undici does.
  const proxy = target.protocol === 'https:' ? settings.httpsProxy || settings.httpProxy : settings.httpProxy;
  if (!proxy) return undefined;
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  if ((LOOPBACK_HOSTS as readonly string[]).includes(hostname)) return undefined;
  const entries = (settings.noProxy ?? '').split(/[,\s]/).filter(Boolean);
  // `*` anywhere in the list is everything, as curl reads it (undici honours it only alone).
  if (entries.includes('*')) return undefined;
  for (const entry of entries) {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number(parsed[2]) !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return undefined;
  }
  return proxy;
}

/** A proxy URL as it may be shown: its password (and a user name alone) masked. */
export function showProxyUrl(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.password) url.password = '****';
    else if (url.username) url.username = '****';
    return url.toString().replace(/\/$/, '');
  } catch {
    // Not a URL: shown only up to an @, which may follow a password.
    return proxy.includes('@') ? `****@${proxy.slice(proxy.lastIndexOf('@') + 1)}` : proxy;
  }
}
