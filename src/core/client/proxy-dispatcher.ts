/** The dispatcher requests to the service go through (proxy.ts says when a proxy applies). */
import { Agent, Dispatcher, ProxyAgent } from 'undici';
import { proxyFor, type ProxySettings } from './proxy.js';

export interface DispatcherTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

/**
 * Sends each request direct or through its proxy as proxyFor() decides, the
 * same function doctor and --verbose use to say which: what they show is what
 * happens. (undici's EnvHttpProxyAgent matched NO_PROXY by its own rules: it
 * honours `*` only as the whole list, so `NO_PROXY=*` with loopback added, or
 * `example.com,*`, was shown as direct but proxied.) undici's ProxyAgent does
 * the proxying itself: CONNECT, the proxy's credentials from its URL.
 */
class ProxyRouter extends Dispatcher {
  private readonly direct: Agent;
  private readonly viaProxy = new Map<string, ProxyAgent>();

  constructor(
    private readonly settings: ProxySettings,
    private readonly options: Agent.Options,
  ) {
    super();
    this.direct = new Agent(options);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.through(proxyFor(String(options.origin), this.settings)).dispatch(options, handler);
  }

  private through(proxy: string | undefined): Dispatcher {
    if (proxy === undefined) return this.direct;
    let agent = this.viaProxy.get(proxy);
    if (!agent) {
      agent = new ProxyAgent({ ...this.options, uri: proxy });
      this.viaProxy.set(proxy, agent);
    }
    return agent;
  }

  private all(): Dispatcher[] {
    return [this.direct, ...this.viaProxy.values()];
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const closed = Promise.all(this.all().map((d) => d.close())).then(() => undefined);
    if (!callback) return closed;
    void closed.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null);
    const done = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const destroyed = Promise.all(this.all().map((d) => d.destroy(err))).then(() => undefined);
    if (!done) return destroyed;
    void destroyed.then(done, done);
  }
}

/**
 * The dispatcher for requests to the service: a plain Agent when no proxy is
 * set, else one that asks proxyFor() for each request's origin. Settings are
 * passed explicitly, so undici never reads process.env behind the caller's back.
 */
export function createDispatcher(settings: ProxySettings, timeouts: DispatcherTimeouts): Dispatcher {
  const options = {
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
  };
  if (!settings.httpProxy && !settings.httpsProxy) return new Agent(options);
  return new ProxyRouter(settings, options);
}
