/**
 * The inspector's HTTP server, beside the listener (`webhooks listen --inspect`): the pages, the
 * JSON API they use (api.ts), a stream that says when deliveries were kept, and the pages' files.
 * Every request must name the inspector in Host, and every POST must be the inspector's own page
 * or a script's (guard.ts). Loopback unless --inspect names another address.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readShipped } from '../../core/web/shipped-files.js';
import { handleApi, type ApiContext } from './api.js';
import { hostRefusal } from './guard.js';
import { detailPage } from './pages/detail-page.js';
import { SECURITY_HEADERS, sendPage, sendText } from './pages/frame.js';
import { listPage, type ListenerFacts } from './pages/list-page.js';
import { listQuery, targetsFor } from './queries.js';
import type { DeliveryStore } from './records.js';
import type { ReplayContext } from './replay.js';

/** How many deliveries a page of the list shows. */
const PAGE_SIZE = 100;
/** A stream's listener hears of new deliveries at most this often. */
const STREAM_INTERVAL_MS = 250;
/** A comment on an idle stream, so that proxies and browsers keep it open. */
const STREAM_KEEPALIVE_MS = 25_000;

export interface InspectorOptions {
  host: string;
  port: number;
  /** A name given to --inspect (not an IP address), accepted in Host besides IP addresses and localhost. */
  name?: string;
  store: DeliveryStore;
  replay: ReplayContext;
  listener: () => ListenerFacts;
  /** Every secret the run knows (the listener's, the API key): masked in everything sent. */
  secrets: readonly string[];
}

export interface RunningInspector {
  url: string;
  close(): Promise<void>;
}

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d4e89"/><path d="M3 8h3l1.5-3 2 6 1.5-3h2" stroke="#fff" stroke-width="1.5" fill="none"/></svg>`;

const ASSETS: ReadonlyMap<string, { type: string; body: () => Buffer }> = new Map([
  ['icon.svg', { type: 'image/svg+xml', body: () => Buffer.from(ICON) }],
  [
    'inspector.css',
    { type: 'text/css; charset=utf-8', body: () => readShipped('inspector', 'inspector.css') },
  ],
  [
    'inspector.js',
    { type: 'text/javascript; charset=utf-8', body: () => readShipped('inspector', 'inspector.js') },
  ],
]);

export async function startInspector(options: InspectorOptions): Promise<RunningInspector> {
  const { store, secrets } = options;
  const assets = new Map<string, Buffer>();
  const streams = new Set<ServerResponse>();
  let port = options.port;
  const api: ApiContext = { store, replay: options.replay, secrets, scheme: options.replay.verifier.scheme };

  function sendAsset(res: ServerResponse, name: string): void {
    const asset = ASSETS.get(name);
    if (!asset) return notFound(res, 'no such file');
    let body = assets.get(name);
    if (!body) assets.set(name, (body = asset.body()));
    res.writeHead(200, { 'content-type': asset.type, 'content-length': body.length, ...SECURITY_HEADERS });
    res.end(body);
  }

  function notFound(res: ServerResponse, what: string): void {
    sendText(res, 404, 'text/plain; charset=utf-8', `${what}\n`, secrets);
  }

  /**
   * `/api/stream`: an event (`kept`) when deliveries or attempts came, at most every
   * STREAM_INTERVAL_MS; the list the page then asks for keeps them first (store.flushed()).
   */
  function stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...SECURITY_HEADERS });
    res.write('retry: 2000\n\n');
    streams.add(res);
    let timer: NodeJS.Timeout | undefined;
    let newest = 0;
    const unsubscribe = store.onChange((id) => {
      newest = id;
      timer ??= setTimeout(() => {
        timer = undefined;
        res.write(`event: kept\ndata: {"newest":${newest}}\n\n`);
      }, STREAM_INTERVAL_MS);
    });
    const keepalive = setInterval(() => res.write(': idle\n\n'), STREAM_KEEPALIVE_MS);
    keepalive.unref();
    req.on('close', () => {
      unsubscribe();
      clearTimeout(timer);
      clearInterval(keepalive);
      streams.delete(res);
    });
  }

  function pages(res: ServerResponse, url: URL): void {
    if (url.pathname === '/') {
      const query = listQuery(url.searchParams, PAGE_SIZE);
      if (typeof query === 'string')
        return sendText(res, 400, 'text/plain; charset=utf-8', `${query}\n`, secrets);
      const deliveries = store.list(query);
      const older =
        deliveries.length === PAGE_SIZE
          ? `/?${new URLSearchParams([...url.searchParams].filter(([name]) => name !== 'before').concat([['before', String(deliveries.at(-1)!.id)]])).toString()}`
          : undefined;
      const { limit: _limit, ...shown } = query;
      return sendPage(
        res,
        200,
        listPage({
          deliveries,
          query: shown,
          types: store.types(),
          total: store.count(),
          listener: options.listener(),
          ...(older ? { older } : {}),
        }),
        secrets,
      );
    }
    const match = /^\/deliveries\/(\d{1,15})(\/body)?$/.exec(url.pathname);
    const delivery = match ? store.get(Number(match[1])) : undefined;
    if (!delivery)
      return notFound(res, 'no such delivery: it may have been dropped as the oldest, or never kept');
    if (match![2])
      // The bytes as they came (as latin1 text: one character a byte, so masking a secret in it changes nothing else).
      return sendText(res, 200, 'application/octet-stream', delivery.body.toString('latin1'), secrets, {
        'content-disposition': `attachment; filename="delivery-${delivery.id}.bin"`,
      });
    sendPage(
      res,
      200,
      detailPage({
        delivery,
        scheme: api.scheme,
        toleranceSeconds: options.replay.verifier.toleranceSeconds,
        targets: targetsFor(delivery, options.replay.forwardTo),
      }),
      secrets,
    );
  }

  const server = createServer((req, res) => {
    const refused = hostRefusal(req.headers.host, { port, ...(options.name ? { name: options.name } : {}) });
    if (refused) {
      req.resume();
      return sendText(res, refused.status, 'text/plain; charset=utf-8', `${refused.reason}\n`, secrets);
    }
    const url = new URL(req.url ?? '/', 'http://inspector');
    if (url.pathname.startsWith('/api/')) {
      if (url.pathname === '/api/stream' && req.method === 'GET') return stream(req, res);
      return void handleApi(req, res, url, api);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      return sendText(res, 405, 'text/plain; charset=utf-8', 'pages are read with GET\n', secrets, {
        allow: 'GET',
      });
    }
    if (url.pathname.startsWith('/assets/')) return sendAsset(res, url.pathname.slice('/assets/'.length));
    // As the API's list: what was answered before the page was asked for is on it.
    void store.flushed().then(() => pages(res, url));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/`,
    close: async () => {
      for (const res of streams) res.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
