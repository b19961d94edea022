/**
 * A tiny HTTP server on 127.0.0.1 for answers no sandbox gives: a service
 * that is not the sandbox (404 HTML for its /_sandbox/ paths), or a
 * sandbox-shaped answer with hostile text in it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface FakeService {
  baseUrl: string;
  /** The paths asked for, with their query, in order. */
  readonly asked: string[];
  close(): Promise<void>;
}

export async function startFakeService(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<FakeService> {
  const asked: string[] = [];
  const server = createServer((request, response) => {
    asked.push(request.url ?? '');
    request.resume();
    request.on('end', () => answer(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    asked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A web server's 404 page, as a service or a site that is not the sandbox answers an unknown path. */
export function notFoundHtml(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(404, { 'content-type': 'text/html;charset=utf-8' });
  response.end(
    '<!DOCTYPE html><html><head><title>Not Found</title></head><body><h1>Not Found</h1></body></html>',
  );
}

/** A JSON answer. */
export function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
