/**
 * One request's way through the sandbox: control endpoints aside, the path
 * finds its routes (404, 405 with Allow), injected faults fire, the key is
 * checked and rate-limited (middleware.ts), and the handler runs with the
 * path's parameters decoded. Every answer is counted by status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ENDPOINTS } from '../core/endpoints.js';
import { handleControl } from './routes/control.js';
import { handlePages } from './routes/pages.js';
import { sendError } from './http.js';
import { authenticate, rateLimit } from './http/middleware.js';
import { envelopeRoutes } from './routes/envelopes.js';
import { eventRoutes } from './routes/events.js';
import { keyRoutes } from './routes/keys.js';
import type { Route, SandboxServices } from './http/services.js';

/** `/api/v1/envelopes/{id}` -> a regular expression with one capture per parameter. */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '([^/]+)');
  return new RegExp(`^${escaped}$`);
}

export type Router = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createRouter(services: SandboxServices): Router {
  const { counters, faults } = services;
  const routes = [...envelopeRoutes(services), ...eventRoutes(services), ...keyRoutes(services)].map(
    (route: Route) => ({
      route,
      pattern: pathPattern(ENDPOINTS[route.operation].path),
    }),
  );

  return async (req, res) => {
    counters.requests++;
    res.on('finish', () => {
      counters.by_status[res.statusCode] = (counters.by_status[res.statusCode] ?? 0) + 1;
    });
    const url = new URL(req.url ?? '/', 'http://sandbox');
    // Pages and the outbox answer before the control endpoints, which need the sandbox's own key.
    if (
      (url.pathname.startsWith('/s/') || url.pathname.startsWith('/_sandbox/')) &&
      (await handlePages(services, req, res, url))
    )
      return;
    if (url.pathname.startsWith('/_sandbox/')) return handleControl(services, req, res, url);

    const matches = routes
      .map((r) => ({ route: r.route, match: r.pattern.exec(url.pathname) }))
      .filter((m) => m.match);
    if (matches.length === 0) {
      const hint = url.pathname.startsWith('/api/api/')
        ? ' (the path has /api twice: the base URL should not end in /api)'
        : '';
      sendError(res, 404, 'not_found', `no endpoint at ${url.pathname}${hint}`);
      return;
    }
    const found = matches.find((m) => m.route.method === req.method);
    if (!found) {
      const allowed = matches.map((m) => m.route.method).join(', ');
      sendError(res, 405, 'method_not_allowed', `use ${allowed} for ${url.pathname}`, {}, { allow: allowed });
      return;
    }
    if (faults.takeFailBeforeCommit()) {
      sendError(
        res,
        faults.failStatus,
        'sandbox_fault',
        'failure injected by the sandbox before doing anything',
        {},
        { 'retry-after': '0' },
      );
      return;
    }
    const key = authenticate(services, req, res, ENDPOINTS[found.route.operation].scope);
    if (!key || !rateLimit(services, key, res)) return;
    let params: string[];
    try {
      params = found.match!.slice(1).map((p) => decodeURIComponent(p));
    } catch {
      sendError(res, 400, 'invalid_path', `the path ${url.pathname} has a malformed %-escape`);
      return;
    }
    await found.route.handle({ req, res, key, params });
  };
}
