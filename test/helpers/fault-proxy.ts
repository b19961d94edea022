/**
 * A misbehaving network between the CLI and the sandbox: an HTTP proxy on
 * 127.0.0.1 (ephemeral port) that, per request and by a seeded PRNG (so a run
 * is reproducible), passes the request through or injects one fault:
 *
 *   reset            the client connection is reset before anything is forwarded
 *   lostAfterCommit  forwarded, the sandbox answers (commits), then the client socket is destroyed
 *   delay            forwarded, the answer is held back `delayMs` (past the client's timeout)
 *   status429/502/503 answered by the proxy itself, nothing forwarded, half with Retry-After
 *
 * Every decision is counted, and the times of the requests received and of the
 * answers the upstream accepted are kept, for "worst 60-second window" figures.
 */
import {
  Agent,
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultKind = 'reset' | 'lostAfterCommit' | 'delay' | 'status429' | 'status502' | 'status503';

export type FaultRates = Record<FaultKind, number>;

export interface FaultProxyOptions {
  /** Where to forward, e.g. the sandbox's base URL. */
  target: string;
  seed: number;
  /** Probability of each fault per request (their sum must be ≤ 1); the rest pass through. */
  rates?: Partial<FaultRates>;
  /** Faults apply only to requests this returns true for (default: every request). */
  applies?: (req: IncomingMessage) => boolean;
  /** How long a delayed answer is held (ms); make it longer than the client's timeout. */
  delayMs?: number;
  /** The Retry-After value sent on the half of proxy-made 429/502/503 answers that carry one. */
  retryAfter?: string;
}

export interface FaultCounters {
  /** Requests received from the client. */
  requests: number;
  /** Requests sent on to the target. */
  forwarded: number;
  passed: number;
  reset: number;
  lostAfterCommit: number;
  delay: number;
  status429: number;
  status502: number;
  status503: number;
  /** Proxy-made 429/502/503 answers that carried Retry-After. */
  withRetryAfter: number;
  /** Statuses the target answered, by status. */
  upstream: Record<string, number>;
  upstreamErrors: number;
}

export interface FaultProxy {
  url: string;
  counters: FaultCounters;
  /** Arrival time (ms) of every client request. */
  requestTimes: number[];
  /** Time (ms) of every target answer with a status below 400 (what the target accepted). */
  acceptedTimes: number[];
  /** Changes the fault rates from now on (e.g. all zero to let a re-run through untouched). */
  setRates(rates: Partial<FaultRates>): void;
  /** Points the proxy at another target (e.g. a restarted sandbox on a new port). */
  setTarget(target: string): void;
  close(): Promise<void>;
}

const KINDS: FaultKind[] = ['reset', 'lostAfterCommit', 'delay', 'status429', 'status502', 'status503'];
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

/** mulberry32: a small, fast, seeded PRNG; the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The largest number of `times` (ms) within any window of `windowMs`. */
export function worstWindow(times: number[], windowMs = 60_000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let worst = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    worst = Math.max(worst, end - start + 1);
  }
  return worst;
}

function resetSocket(socket: Socket): void {
  // An RST rather than a FIN, as a middlebox dropping the connection would.
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const random = seededRandom(options.seed);
  let rates: FaultRates = {
    reset: 0,
    lostAfterCommit: 0,
    delay: 0,
    status429: 0,
    status502: 0,
    status503: 0,
    ...options.rates,
  };
  let target = new URL(options.target);
  const delayMs = options.delayMs ?? 5_000;
  const retryAfter = options.retryAfter ?? '1';
  const counters: FaultCounters = {
    requests: 0,
    forwarded: 0,
    passed: 0,
    reset: 0,
    lostAfterCommit: 0,
    delay: 0,
    status429: 0,
    status502: 0,
    status503: 0,
    withRetryAfter: 0,
    upstream: {},
    upstreamErrors: 0,
  };
  const requestTimes: number[] = [];
  const acceptedTimes: number[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 128 });
  const timers = new Set<NodeJS.Timeout>();

  function pick(req: IncomingMessage): FaultKind | 'pass' {
    if (options.applies && !options.applies(req)) return 'pass';
    // One draw per request (plus one per proxy-made answer): the decisions depend on the seed and the arrival order only.
    const draw = random();
    let edge = 0;
    for (const kind of KINDS) {
      edge += rates[kind];
      if (draw < edge) return kind;
    }
    return 'pass';
  }

  function answerItself(res: ServerResponse, status: number): void {
    // Half with Retry-After, half without, drawn from the same PRNG.
    const withHint = random() < 0.5;
    if (withHint) counters.withRetryAfter++;
    const body = JSON.stringify({
      code: `proxy_${status}`,
      message: `fault injected by the test proxy (${status})`,
    });
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(withHint ? { 'retry-after': retryAfter } : {}),
    });
    res.end(body);
  }

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    fault: 'pass' | 'lostAfterCommit' | 'delay',
  ): void {
    counters.forwarded++;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers.host = target.host;
    const upstream = request(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
        agent,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', () => res.destroy());
        answer.on('end', () => {
          const status = answer.statusCode ?? 502;
          counters.upstream[status] = (counters.upstream[status] ?? 0) + 1;
          if (status < 400) acceptedTimes.push(Date.now());
          if (fault === 'lostAfterCommit') {
            // The target has done the work and answered; the client never hears of it.
            res.socket?.destroy();
            return;
          }
          const send = () => {
            if (res.destroyed || res.socket?.destroyed) return;
            const out: Record<string, string | string[]> = {};
            for (const [name, value] of Object.entries(answer.headers))
              if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
            out['content-length'] = String(Buffer.concat(chunks).length);
            res.writeHead(status, out);
            res.end(Buffer.concat(chunks));
          };
          if (fault === 'delay') {
            const timer = setTimeout(() => {
              timers.delete(timer);
              send();
            }, delayMs);
            timers.add(timer);
          } else send();
        });
      },
    );
    upstream.on('error', () => {
      counters.upstreamErrors++;
      // The target is down or cut us off: the client sees its connection cut too.
      res.socket?.destroy();
    });
    req.pipe(upstream);
  }

  const server: Server = createServer((req, res) => {
    counters.requests++;
    requestTimes.push(Date.now());
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const fault = pick(req);
    switch (fault) {
      case 'reset':
        counters.reset++;
        resetSocket(req.socket);
        return;
      case 'status429':
      case 'status502':
      case 'status503':
        counters[fault]++;
        req.resume();
        answerItself(res, Number(fault.slice(6)));
        return;
      case 'lostAfterCommit':
      case 'delay':
        counters[fault]++;
        forward(req, res, fault);
        return;
      default:
        counters.passed++;
        forward(req, res, 'pass');
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counters,
    requestTimes,
    acceptedTimes,
    setRates(next) {
      rates = { reset: 0, lostAfterCommit: 0, delay: 0, status429: 0, status502: 0, status503: 0, ...next };
    },
    setTarget(next) {
      target = new URL(next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
