import { UsageError } from './errors.js';

/**
 * Every operation sign-cli performs, in one table: method, path and the scope
 * it needs. The published interface shows only the create path (docs/service.md,
 * Endpoints); the rest are assumptions (docs/assumptions.md) and every path can be
 * overridden from config.
 */

/**
 * The largest request body sent, in bytes (1 MiB). The published interface shows no size
 * limit (docs/service.md, Limits): this is the local sandbox's (it answers 413 past it), and
 * the CLI reads no input past it either (a request body, an envelope file or NDJSON line), so
 * nothing larger is ever held or sent.
 * docs/assumptions.md (size limits).
 */
export const MAX_BODY_BYTES = 1024 * 1024;

export const SCOPES = ['envelopes:write', 'envelopes:read', 'contracts:read', 'audit:read'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Endpoint {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path template relative to the base URL; `{id}` is filled in and URL-encoded. */
  path: string;
  scope: Scope | undefined;
  /** What it does, in the words of the README ("create envelopes"), for messages. */
  label: string;
}

export const ENDPOINTS = {
  createEnvelope: {
    method: 'POST',
    path: '/api/v1/envelopes',
    scope: 'envelopes:write',
    label: 'create envelopes',
  },
  getEnvelope: {
    method: 'GET',
    path: '/api/v1/envelopes/{id}',
    scope: 'envelopes:read',
    label: 'read envelopes',
  },
  downloadSignedCopy: {
    method: 'GET',
    path: '/api/v1/envelopes/{id}/signed-copy',
    scope: 'contracts:read',
    label: 'download signed copies',
  },
  getAuditTrail: {
    method: 'GET',
    path: '/api/v1/envelopes/{id}/audit-trail',
    scope: 'audit:read',
    label: 'read audit trails',
  },
  listEnvelopes: {
    method: 'GET',
    path: '/api/v1/envelopes',
    scope: 'envelopes:read',
    label: 'list envelopes',
  },
  voidEnvelope: {
    method: 'POST',
    path: '/api/v1/envelopes/{id}/void',
    scope: 'envelopes:write',
    label: 'void envelopes',
  },
  listApiKeys: { method: 'GET', path: '/api/v1/api-keys', scope: undefined, label: 'list API keys' },
  listDeliveries: {
    method: 'GET',
    path: '/api/v1/webhook-deliveries',
    scope: 'envelopes:read',
    label: 'list webhook deliveries',
  },
  resendEvent: {
    method: 'POST',
    path: '/api/v1/events/{id}/resend',
    scope: 'envelopes:write',
    label: 'resend webhook events',
  },
} as const satisfies Record<string, Endpoint>;

export type Operation = keyof typeof ENDPOINTS;
export type PathOverrides = Partial<Record<Operation, string>>;

export function isOperation(name: string): name is Operation {
  return Object.hasOwn(ENDPOINTS, name);
}

/** The endpoint for an operation, with a configured path override applied. */
export function resolveEndpoint(operation: Operation, overrides: PathOverrides = {}): Endpoint {
  const base: Endpoint = ENDPOINTS[operation];
  const path = overrides[operation];
  return path ? { ...base, path } : base;
}

export function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
}

/**
 * Appends a path to the base URL exactly as the published interface says
 * (docs/service.md, Endpoints): the base URL's own path is kept, so
 * `https://h/api` + `/api/v1/envelopes` is `https://h/api/api/v1/envelopes`.
 * Sent as is; callers may point it out (see {@link baseUrlEndsInApi}).
 */
export function joinUrl(baseUrl: string, path: string): string {
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const suffix = path.startsWith('/') ? path : `/${path}`;
  base.pathname = basePath + suffix;
  return base.toString();
}

/**
 * True when the base URL's path ends in the segment `/api` (the doubled segment of
 * docs/service.md, Endpoints).
 */
export function baseUrlEndsInApi(baseUrl: string): boolean {
  try {
    return /\/api\/*$/i.test(new URL(baseUrl).pathname);
  } catch {
    return false;
  }
}

/** Checks a base URL and returns it normalised; throws a UsageError (exit 2) fit for the user. */
export function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `base URL ${JSON.stringify(value)} is not an absolute URL; use e.g. https://api.example.com`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`base URL ${JSON.stringify(value)} must use http or https`);
  }
  if (url.search || url.hash) {
    throw new UsageError(`base URL ${JSON.stringify(value)} must not carry a query or fragment`);
  }
  return url.toString().replace(/\/+$/, '');
}
