/**
 * A call to a sandbox's /_sandbox control endpoint on a connection of its own.
 *
 * Not `fetch`: its pool keeps sockets alive between calls, and the sandbox closes an idle
 * one after its keepAliveTimeout (5 s). A call made just as the server closes the socket it
 * would reuse fails with ECONNRESET, and on a loaded machine that moment is often hit (the
 * client's own idle timer runs late). `agent: false` opens a new connection for each call and
 * closes it after the answer, so no call can land on a socket the server has given up.
 */
import { request } from 'node:http';

export function controlCall<T>(baseUrl: string, apiKey: string, path: string, body?: unknown): Promise<T> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = request(
      new URL(path, baseUrl),
      {
        method: payload === undefined ? 'GET' : 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          ...(payload === undefined ? {} : { 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) reject(new Error(`${path}: HTTP ${status} ${text}`));
          else {
            try {
              resolve(JSON.parse(text) as T);
            } catch {
              reject(new Error(`${path}: not JSON: ${text.slice(0, 200)}`));
            }
          }
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
