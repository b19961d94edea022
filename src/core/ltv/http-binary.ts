/**
 * One binary request to a trust service (a TSA, an OCSP responder, a CRL
 * distribution point), with the request rules of the rest of sign-cli: the
 * proxies it is configured with (core/client/proxy.ts), a deadline for the
 * whole attempt, an answer read with a bound, Ctrl-C honoured. No retries: a
 * TSA asked twice makes two tokens, and the caller says what failed.
 */
import { request } from 'undici';
import { InterruptedError, NetworkError } from '../errors.js';
import { AnswerTooLargeError, readBounded } from '../client/answer-body.js';
import { createDispatcher } from '../client/proxy-dispatcher.js';
import { describeNetworkError } from '../client/network-errors.js';
import { errorCode } from '../client/wire.js';
import type { ProxySettings } from '../client/proxy.js';
import { VERSION } from '../version.js';

export interface HttpOptions {
  proxy: ProxySettings;
  /** For the whole attempt: connection, headers and body. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface BinaryAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** A refused or unreadable answer: the service said no, or said something else than asked. */
export class TrustServiceError extends Error {
  override readonly name = 'TrustServiceError';
}

/** GET `url`, or POST `body` as `contentType`; the answer whole, up to `maxBytes`. */
export async function httpBinary(
  url: string,
  send: { body?: Uint8Array; contentType?: string; accept: string },
  maxBytes: number,
  options: HttpOptions,
): Promise<BinaryAnswer> {
  if (options.signal?.aborted)
    throw new InterruptedError(`interrupted: nothing was sent to ${url}`, { sent: false });
  const dispatcher = createDispatcher(options.proxy, {
    connectMs: options.timeoutMs,
    headersMs: options.timeoutMs,
    bodyMs: options.timeoutMs,
  });
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const answer = await request(url, {
      method: send.body ? 'POST' : 'GET',
      headers: {
        accept: send.accept,
        'user-agent': `sign-cli/${VERSION}`,
        ...(send.contentType ? { 'content-type': send.contentType } : {}),
      },
      ...(send.body ? { body: send.body } : {}),
      dispatcher,
      signal,
    });
    const contentType = String(answer.headers['content-type'] ?? '');
    const body = await readBounded(answer.body, answer.headers['content-length'], maxBytes);
    return { status: answer.statusCode, contentType, body };
  } catch (error) {
    if (options.signal?.aborted) throw new InterruptedError(`interrupted: ${url} did not answer`);
    if (error instanceof AnswerTooLargeError)
      throw new TrustServiceError(`${url} answered more than ${maxBytes} bytes: not what was asked for`);
    if (timeout.aborted)
      throw new NetworkError(`${url} did not answer within ${options.timeoutMs / 1000} s`, 'ETIMEDOUT');
    const code = errorCode(error);
    const message = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new NetworkError(`${url}: ${describeNetworkError(code, message, url)}`, code);
  } finally {
    void dispatcher.close();
  }
}
