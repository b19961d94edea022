/**
 * The JSON API the pages use, for scripts and tests too: `GET /api/deliveries` (newest first;
 * `type`, `status`, `q`, `before`, `limit`), `GET /api/deliveries/<id>` (with headers, body and
 * the signature's verdict), `POST /api/deliveries/<id>/replay` (optional `{"body", "headers",
 * "to"}`: with a body or headers the delivery is edited and signed again). Errors are
 * `{"error": "…"}` with the status that says why.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBoundedBody } from '../../core/web/request-body.js';
import { crossSiteRefusal } from './guard.js';
import { detailJson, replayJson, summaryJson } from './json.js';
import { sendJson } from './pages/frame.js';
import { listQuery } from './queries.js';
import type { DeliveryStore } from './records.js';
import { replay, ReplayRefused, type ReplayContext, type ReplayRequest } from './replay.js';

export interface ApiContext {
  store: DeliveryStore;
  replay: ReplayContext;
  secrets: readonly string[];
  scheme: string;
}

const DEFAULT_LIMIT = 100;

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The request's body, up to `limit` bytes (a 413 past it). */
const readBody = (req: IncomingMessage, limit: number): Promise<Buffer> =>
  readBoundedBody(req, limit, () => new ApiError(413, `the request is over ${limit} bytes`));

/** `{"body"?: string, "headers"?: {name: string|null}, "to"?: string}`, each field checked. */
function replayRequest(text: string): ReplayRequest {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `the request is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ApiError(400, 'send an object: {"body", "headers", "to"}, each optional');
  const { body, headers, to, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new ApiError(
      400,
      `${JSON.stringify(unknown[0]!.slice(0, 40))} is not a field: use body, headers or to`,
    );
  if (body !== undefined && typeof body !== 'string')
    throw new ApiError(400, 'body must be a string (the JSON text to send)');
  if (to !== undefined && typeof to !== 'string') throw new ApiError(400, 'to must be a URL, as a string');
  if (
    headers !== undefined &&
    (typeof headers !== 'object' ||
      headers === null ||
      Array.isArray(headers) ||
      Object.values(headers).some((v) => v !== null && typeof v !== 'string'))
  )
    throw new ApiError(400, 'headers must be an object of names to strings (or null to leave one out)');
  return {
    ...(body !== undefined ? { body } : {}),
    ...(headers !== undefined ? { headers: headers as Record<string, string | null> } : {}),
    ...(to !== undefined ? { to } : {}),
  };
}

export async function handleApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  context: ApiContext,
): Promise<void> {
  const { store, secrets } = context;
  const send = (status: number, value: unknown) => sendJson(res, status, value, secrets);
  try {
    const match = /^\/api\/deliveries(?:\/(\d{1,15})(\/replay)?)?$/.exec(url.pathname);
    if (!match) throw new ApiError(404, `no such endpoint: ${url.pathname.slice(0, 80)}`);
    const [, idText, replaying] = match;
    const method = replaying ? 'POST' : 'GET';
    if (req.method !== method) {
      req.resume();
      res.setHeader('allow', method);
      throw new ApiError(405, `${url.pathname.slice(0, 80)} takes ${method}`);
    }
    if (idText === undefined) {
      const query = listQuery(url.searchParams, DEFAULT_LIMIT);
      if (typeof query === 'string') throw new ApiError(400, query);
      // Every delivery already answered is listed: the writes handed to the SQLite writer are kept first.
      await store.flushed();
      return send(200, { deliveries: store.list(query).map(summaryJson) });
    }
    if (replaying) {
      const refused = crossSiteRefusal(req);
      if (refused) {
        req.resume();
        throw new ApiError(refused.status, refused.reason);
      }
    }
    const delivery = store.get(Number(idText));
    if (!delivery) {
      req.resume();
      throw new ApiError(404, `no delivery ${idText}: it may have been dropped as the oldest, or never kept`);
    }
    if (!replaying)
      return send(200, detailJson(delivery, context.scheme, context.replay.verifier.toleranceSeconds));
    // Room for a body of the listener's limit, escaped in JSON.
    const request = replayRequest(
      (await readBody(req, context.replay.maxBodyBytes * 6 + 64 * 1024)).toString('utf8'),
    );
    const result = await replay(delivery, request, context.replay);
    store.addAttempts(delivery.id, result.attempts);
    send(200, { replay: replayJson(delivery.id, result) });
  } catch (error) {
    if (error instanceof ApiError || error instanceof ReplayRefused)
      send(error.status, { error: error.message });
    else send(500, { error: `the inspector failed: ${(error as Error).message}` });
  }
}
