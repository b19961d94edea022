/** Small HTTP helpers shared by the sandbox routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
// The request size limit is a rule of the service: the core's, which the CLI's inputs are bounded by too.
import { MAX_BODY_BYTES } from '../core/endpoints.js';
import { readBoundedBody } from '../core/web/request-body.js';

export class BodyTooLargeError extends Error {}

/** The token of `Authorization: Bearer <token>`; the scheme's name is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
}

/** Reads the whole body, refusing more than `limit` bytes without buffering them. */
export const readBody = (req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> =>
  readBoundedBody(req, limit, () => new BodyTooLargeError());

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Every sandbox error body: a stable machine `code` and a human `message`. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { code, message, ...extra }, headers);
}
