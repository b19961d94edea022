/**
 * One plain HTTP exchange outside the service's API (an OCSP responder, a CRL distribution point
 * a certificate names), under the rules every request of the CLI follows: the proxies proxyFor()
 * picks (the one dispatcher, proxy-dispatcher.ts), one deadline for the whole exchange, answers
 * read with a bound (answer-body.ts), a caller's abort heard, and errors in one line naming the
 * URL. No key, no pacing, no retry: these servers are not the service, and a status that does not
 * come is reported, not waited for again. The shape matches what core/pades/revocation/online.ts
 * takes (`RevocationFetch`), without this room importing that one.
 */
import { request, type Dispatcher } from 'undici';
import { readBounded, AnswerTooLargeError } from './answer-body.js';
import { createDispatcher } from './proxy-dispatcher.js';
import { describeNetworkError } from './network-errors.js';
import { errorCode } from './wire.js';
import type { ProxySettings } from './proxy.js';

export interface PlainRequest {
  url: string;
  method: 'GET' | 'POST';
  body?: Uint8Array;
  contentType?: string;
  accept: string;
  maxBytes: number;
}

export interface PlainFetcher {
  fetch: (request: PlainRequest) => Promise<Uint8Array>;
  /** Closes the connections it kept. */
  close: () => Promise<void>;
}

export interface PlainFetchOptions {
  proxy: ProxySettings;
  /** The most one exchange may take, connection to last byte. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** A dispatcher of the caller's (tests), instead of the proxies' one. */
  dispatcher?: Dispatcher;
}

/** A fetcher that rejects with an Error whose message says why, in one line; only 2xx answers resolve. */
export function plainFetcher(options: PlainFetchOptions): PlainFetcher {
  const dispatcher =
    options.dispatcher ??
    createDispatcher(options.proxy, {
      connectMs: options.timeoutMs,
      headersMs: options.timeoutMs,
      bodyMs: options.timeoutMs,
    });
  return {
    fetch: async (plain) => {
      const url = new URL(plain.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`${plain.url}: only http and https URLs are fetched`);
      const deadline = AbortSignal.timeout(options.timeoutMs);
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      try {
        const answer = await request(url, {
          dispatcher,
          method: plain.method,
          signal,
          headers: {
            accept: plain.accept,
            ...(plain.contentType ? { 'content-type': plain.contentType } : {}),
          },
          ...(plain.body ? { body: Buffer.from(plain.body) } : {}),
        });
        if (answer.statusCode < 200 || answer.statusCode > 299) {
          await answer.body.dump().catch(() => undefined);
          throw new Error(`${plain.url} answered HTTP ${answer.statusCode}`);
        }
        return new Uint8Array(
          await readBounded(answer.body, answer.headers['content-length'], plain.maxBytes),
        );
      } catch (error) {
        if (error instanceof AnswerTooLargeError)
          throw new Error(`${plain.url}: ${error.message}`, { cause: error });
        if (deadline.aborted && !options.signal?.aborted)
          throw new Error(`${plain.url} did not answer within ${Math.round(options.timeoutMs / 1000)} s`, {
            cause: error,
          });
        if (options.signal?.aborted) throw error;
        if (error instanceof Error && error.message.startsWith(plain.url)) throw error;
        throw new Error(
          `${plain.url}: ${describeNetworkError(errorCode(error), (error as Error).message ?? String(error), plain.url)}`,
          { cause: error },
        );
      }
    },
    close: () => (options.dispatcher ? Promise.resolve() : dispatcher.close()),
  };
}
