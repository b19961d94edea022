/** The dispatcher requests to the service go through (proxy.ts says when a proxy applies). */
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { LOOPBACK_HOSTS, type ProxySettings } from './proxy.js';

export interface DispatcherTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/**
 * The dispatcher for requests to the service: undici's EnvHttpProxyAgent
 * when a proxy is set (its NO_PROXY with loopback added), else a plain Agent.
 * Settings are passed explicitly ('' for unset), so undici never reads
 * process.env behind the caller's back.
 */
export function createDispatcher(settings: ProxySettings, timeouts: DispatcherTimeouts): Dispatcher {
  const options = { connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.headersMs, bodyTimeout: timeouts.bodyMs };
  if (!settings.httpProxy && !settings.httpsProxy) return new Agent(options);
  return new EnvHttpProxyAgent({
    ...options,
    httpProxy: settings.httpProxy ?? '',
    httpsProxy: settings.httpsProxy ?? settings.httpProxy ?? '',
    noProxy: [settings.noProxy ?? '', ...LOOPBACK_HOSTS].filter(Boolean).join(','),
  });
}
