/**
 * How the listener answers: verified deliveries in batches (one write per
 * answer), and the refusals node:http makes before a request reaches it.
 */
import type { ServerResponse } from 'node:http';

// Strings, not Buffers: node writes headers and a string body in one syscall, a Buffer body in two.
export const ANSWER_NEW = JSON.stringify({ received: true, duplicate: false });
export const ANSWER_DUPLICATE = JSON.stringify({ received: true, duplicate: true });

/** Responses queued during one event-loop turn, written in order by a single setImmediate. */
export class AnswerBatch {
  private queue: (ServerResponse | string)[] = [];

  push(res: ServerResponse, body: string): void {
    if (this.queue.length === 0) setImmediate(this.flush);
    this.queue.push(res, body);
  }

  /** Writes every queued answer now; returns the responses written. */
  readonly flush = (): ServerResponse[] => {
    const queue = this.queue;
    this.queue = [];
    const written: ServerResponse[] = [];
    for (let i = 0; i < queue.length; i += 2) {
      const res = queue[i] as ServerResponse;
      const body = queue[i + 1] as string;
      // The answers are ASCII, so their length in characters is their length in bytes.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
      written.push(res);
    }
    return written;
  };
}

/** Resolves when a response has been handed to the OS (or its connection is gone). */
export function sent(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    res.once('finish', resolve);
    res.once('close', resolve);
  });
}

/**
 * Why node:http refused a connection before any request reached the handler,
 * or undefined when the client simply went away.
 */
export function clientErrorRefusal(
  error: NodeJS.ErrnoException,
  headersTimeoutMs: number,
  requestTimeoutMs: number,
): { status: number; reason: string } | undefined {
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        reason: `request not received in time (headers within ${headersTimeoutMs / 1000} s, whole request within ${requestTimeoutMs / 1000} s): a slow or half-open client; connection closed`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'request headers too large; connection closed' };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'chunk extensions too large; connection closed' };
    default:
      return {
        status: 400,
        reason: `malformed HTTP request (${error.code ?? 'parse error'}: ${error.message}); connection closed`,
      };
  }
}
