/**
 * Sends `webhooks test`'s deliveries over HTTP as the service does: POST,
 * JSON, one attempt cut at the delivery timeout, redirects not followed.
 * With `localOnly`, every connection's address is checked as it is made
 * (local-connector.ts), so a name that resolves elsewhere after the first
 * check (DNS rebinding) is refused, not sent to.
 */
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { InterruptedError } from '../errors.js';
import { errorCode } from '../client/wire.js';
import { VERSION } from '../version.js';
import { localOnlyConnector } from './local-connector.js';
import type { DeliverySend } from './run.js';

/** undici's own timeouts, set to the same bound as the signal's: whichever fires first, no answer in time. */
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface HttpSenderOptions {
  url: string;
  timeoutMs: number;
  /** Connect only to loopback and private addresses. */
  localOnly: boolean;
  /** Ctrl-C: the delivery in flight is abandoned and the run ends. */
  signal?: AbortSignal;
}

export function httpSender(options: HttpSenderOptions): { send: DeliverySend; close(): Promise<void> } {
  // The connection gets most of the time, not all: a connect timeout then comes first, with its own
  // code, and says "nothing there" (unreachable) rather than "no answer in time".
  const connectTimeout = Math.max(50, Math.floor(options.timeoutMs * 0.8));
  const agent = new Agent({
    connect: options.localOnly ? localOnlyConnector(connectTimeout) : { timeout: connectTimeout },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const send: DeliverySend = async (body, headers) => {
    if (options.signal?.aborted) throw new InterruptedError();
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const started = performance.now();
    try {
      const response = await request(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `sign-cli/${VERSION} (webhooks test)`,
          ...headers,
        },
        body,
        dispatcher: agent,
        signal,
      });
      const ms = performance.now() - started;
      // The answer's body says nothing the grade needs; read (a bounded part of) it so the connection is reused.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      return { status: response.statusCode, ms: Math.round(ms) };
    } catch (error) {
      if (options.signal?.aborted) throw new InterruptedError();
      const ms = Math.round(performance.now() - started);
      const code = errorCode(error);
      if (timeout.aborted || TIMEOUTS.has(code ?? '')) return { ms, timedOut: true };
      // undici wraps the socket's error: its message says more than the wrapper's.
      const message = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      return {
        ms,
        error: code && !message.includes(code) ? `${code}: ${message}` : message,
        ...(code ? { code } : {}),
      };
    }
  };
  return { send, close: () => agent.close() };
}
