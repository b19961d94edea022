/**
 * A request's body read whole, up to a limit, for the local servers' small requests (the
 * sandbox's API and forms, the webhook inspector's replay). Past the limit nothing more is kept
 * (the rest is left to Node's server, which discards a body unread once it has answered), and the
 * caller's own error says so, in its words and with its status.
 */
import type { IncomingMessage } from 'node:http';

/**
 * The body, at most `limit` bytes; past it (a Content-Length that says so, or the bytes as they
 * come) the promise is rejected with `tooLarge()`, without buffering what is over.
 */
export function readBoundedBody(req: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
