/** Small HTTP helpers shared by the sandbox routes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
// The request size limit is a rule of the service: the core's, which the CLI's inputs are bounded by too.
import { MAX_BODY_BYTES } from '../core/endpoints.js';

export class BodyTooLargeError extends Error {}

/** The token of `Authorization: Bearer <token>`; the scheme's name is case-insensitive (RFC 9110 §11.1). */
export function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
}

/** Reads the whole body, refusing more than `limit` bytes without buffering them. */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLargeError());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

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
