/**
 * What keeps other web pages away from the inspector. A page elsewhere cannot read it, since
 * nothing here allows another origin (no CORS), but two things could still reach it:
 *
 * - DNS rebinding: a site's own name made to resolve to 127.0.0.1, so the browser thinks the
 *   inspector is that site and lets its script read everything. Every request must name the
 *   inspector in Host: an IP address (a name resolved by the attacker is never one), `localhost`,
 *   or the name given to --inspect; and its port.
 * - Cross-site requests (CSRF): a page elsewhere POSTing a replay. A POST must be JSON (a form
 *   or a plain cross-site request cannot send that without asking first, and nothing here says
 *   yes when asked), and when the browser says where it comes from (Sec-Fetch-Site, Origin), it
 *   must be the inspector itself. A script's POST (curl, fetch from Node) says neither and is taken.
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export interface Refusal {
  status: number;
  reason: string;
}

/** The host and port the inspector answers as. */
export interface InspectorAddress {
  port: number;
  /** A name given to --inspect (other than an IP address), also accepted in Host. */
  name?: string;
}

/** `host[:port]` of a Host header, brackets off an IPv6 address; undefined when it is not one. */
function splitHost(value: string): { hostname: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  return {
    hostname: match[1]!.replace(/^\[|\]$/g, '').toLowerCase(),
    port: match[2] ? Number(match[2]) : 80,
  };
}

/** Why a request's Host does not name the inspector, or undefined when it does. */
export function hostRefusal(host: string | undefined, address: InspectorAddress): Refusal | undefined {
  const parsed = host === undefined ? undefined : splitHost(host.trim());
  const named =
    parsed !== undefined &&
    parsed.port === address.port &&
    (isIP(parsed.hostname) !== 0 ||
      parsed.hostname === 'localhost' ||
      parsed.hostname === address.name?.toLowerCase());
  if (named) return undefined;
  return {
    status: 403,
    reason: `Host ${JSON.stringify((host ?? '').slice(0, 80))} is not this inspector: open it at an IP address or localhost, port ${address.port}`,
  };
}

/** Why a POST is refused as not the inspector's own page or a script, or undefined when it is taken. */
export function crossSiteRefusal(req: IncomingMessage): Refusal | undefined {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    return { status: 415, reason: 'send JSON: content-type application/json' };
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin')
    return {
      status: 403,
      reason: `a request from another site (Sec-Fetch-Site: ${site.slice(0, 20)}) is refused`,
    };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`)
    return { status: 403, reason: `a request from another origin (${origin.slice(0, 80)}) is refused` };
  return undefined;
}
