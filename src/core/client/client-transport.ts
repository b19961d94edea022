/**
 * How SignClientOptions become the transport a SignClient sends through: the
 * dispatcher (the caller's, or one of the client's own, through the proxy the
 * settings name), the pacer, the retry policy and the defaults of the rest.
 * Apart from the class, which keeps to the resources it sends for.
 */
import type { Dispatcher } from 'undici';
import type { SignClientOptions } from './client-types.js';
import { systemClock, type Clock } from '../clock.js';
import { maskKey } from '../keys.js';
import { RatePacer } from '../pacing/pacing.js';
import { proxyFor, proxyVariable, showProxyUrl } from './proxy.js';
import { createDispatcher } from './proxy-dispatcher.js';
import { DEFAULT_RETRY_POLICY } from '../pacing/retry.js';
import { Transport } from './transport.js';
import { USER_AGENT } from '../version.js';

/** What a SignClient holds of its options. */
export interface ClientTransport {
  transport: Transport;
  dispatcher: Dispatcher;
  /** True when the client made the dispatcher, so closes it. */
  ownsDispatcher: boolean;
  clock: Clock;
}

/** The transport for `options`; a proxy in use is named to `onTrace`. */
export function clientTransport(options: SignClientOptions): ClientTransport {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const clock = options.clock ?? systemClock;
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    createDispatcher(options.proxy ?? {}, {
      connectMs: timeoutMs,
      headersMs: timeoutMs,
      bodyMs: timeoutMs,
    });
  const transport = new Transport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    keyLabel: options.keyLabel ?? (options.apiKey ? maskKey(options.apiKey) : '(none)'),
    timeoutMs,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    pacer:
      options.pacer ??
      new RatePacer({
        ratePerMinute: options.ratePerMinute,
        clock,
        shared: options.sharedBudget,
      }),
    clock,
    random: options.random ?? Math.random,
    paths: options.paths ?? {},
    userAgent: options.userAgent ?? USER_AGENT,
    dispatcher,
    onTrace: options.onTrace ?? (() => {}),
  });
  const proxy = options.dispatcher ? undefined : proxyFor(options.baseUrl, options.proxy ?? {});
  if (proxy)
    options.onTrace?.({
      type: 'note',
      message: `requests go through the proxy ${showProxyUrl(proxy)} (${proxyVariable(options.baseUrl)})`,
    });
  return { transport, dispatcher, ownsDispatcher, clock };
}
