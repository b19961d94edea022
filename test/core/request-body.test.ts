/**
 * The local servers' bounded request body (core/web/request-body.ts: the sandbox's and the
 * webhook inspector's): read whole up to the limit, and refused with the caller's own error past
 * it, whether a Content-Length says so first or the bytes only show it as they come (chunked).
 * Real parts: an HTTP server on loopback and node's HTTP client.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBoundedBody } from '../../src/core/web/request-body.js';

const LIMIT = 1000;

/** The caller's error: what the server answers with, so the test sees it was this one. */
class TooLarge extends Error {}

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    readBoundedBody(req, LIMIT, () => new TooLarge(`over ${LIMIT} bytes`)).then(
      (body) => res.writeHead(200).end(`read ${body.length}: ${body.toString('utf8').slice(0, 3)}`),
      (error: Error) => res.writeHead(error instanceof TooLarge ? 413 : 500).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Posts `chunks` one write each: with a Content-Length when given, else chunked. */
function post(chunks: string[], contentLength?: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({ status: res.statusCode!, text: Buffer.concat(parts).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('a bounded request body', () => {
  it('is read whole up to the limit, chunked or not', async () => {
    expect(await post(['a'.repeat(400), 'b'.repeat(400), 'c'.repeat(200)])).toEqual({
      status: 200,
      text: 'read 1000: aaa',
    });
    expect(await post(['x'.repeat(10)], 10)).toEqual({ status: 200, text: 'read 10: xxx' });
    expect(await post([])).toEqual({ status: 200, text: 'read 0: ' });
  });

  it("is refused with the caller's error past the limit, declared or as it comes", async () => {
    expect(await post(['d'.repeat(LIMIT + 1)], LIMIT + 1)).toEqual({
      status: 413,
      text: 'over 1000 bytes',
    });
    expect(await post(['e'.repeat(400), 'e'.repeat(400), 'e'.repeat(400)])).toEqual({
      status: 413,
      text: 'over 1000 bytes',
    });
  });
});
