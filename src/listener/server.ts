/**
 * The webhook listener: accepts POSTs on any path, verifies each delivery's
 * signature over the raw bytes, answers 2xx only to verified deliveries, marks
 * redeliveries as duplicates, and can forward verified deliveries to a local
 * app. It reports through callbacks and does no terminal output itself.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock } from '../core/clock.js';
import { deliveryId, type HeaderBag, type SchemeSuggestion } from '../core/webhooks/webhook-parsing.js';
import { ANSWER_DUPLICATE, ANSWER_NEW, AnswerBatch, clientErrorRefusal, sent } from './answers.js';
import { answerFromApps, deliveryHeaders, forwardAgent, postDelivery, reported } from './forwarding.js';
import type { ForwardTarget } from './routes.js';
import type {
  ForwardOutcome,
  ListenedEvent,
  ObservedDelivery,
  ListenerOptions,
  ListenerStats,
  RunningListener,
} from './types.js';

export type {
  DeliveryObserver,
  ForwardOutcome,
  ListenedEvent,
  ObservedDelivery,
  ListenerOptions,
  ListenerStats,
  Rejection,
  RunningListener,
} from './types.js';

export const DEFAULT_LISTEN_PORT = 4020;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** Refused bodies up to this size are read and dropped; larger ones cost the client its connection. */
const DRAIN_LIMIT = 16 * 1024 * 1024;
const SAVE_EVERY_MS = 5_000;
/** At Ctrl-C, answers already queued get this long to reach their senders before connections are cut. */
const CLOSE_GRACE_MS = 1_000;
export { HOP_BY_HOP } from './forwarding.js';

function field(payload: unknown, ...path: string[]): unknown {
  let value = payload;
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const { verifier, seen } = options;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const stats: ListenerStats = { received: 0, verified: 0, rejected: 0, duplicates: 0, filtered: 0 };
  const targets = options.forwardTo ?? [];
  const headersTimeoutMs = options.headersTimeoutMs ?? 5_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  /** Set at close(): deliveries still arriving are refused with 503, so the sender retries them later. */
  let closing = false;
  const agent = targets.length > 0 ? forwardAgent(options.forwardInsecure === true) : undefined;
  const observer = options.observer;

  function reject(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    reason: string,
    headers: Record<string, string> = {},
    suggestion?: SchemeSuggestion,
  ): void {
    stats.rejected++;
    const body = JSON.stringify({ error: reason });
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...headers,
    });
    res.end(body);
    options.onReject({
      status,
      reason,
      method: req.method,
      path: req.url,
      ...(suggestion ? { suggestion } : {}),
    });
  }

  /** Forwards to every matching target at once; the sender gets what the apps answered (forwarding.ts). */
  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    matching: readonly ForwardTarget[],
  ): Promise<{ outcomes: ForwardOutcome[]; answered: number }> {
    const headers = deliveryHeaders(req.headers, options.forwardHeaders);
    const outcomes = await Promise.all(
      matching.map((target) => postDelivery(target.url, headers, body, agent!, now)),
    );
    return { answered: answerFromApps(res, outcomes), outcomes: reported(outcomes) };
  }

  /**
   * 2xx answers wait for the end of the event-loop turn and go out together:
   * every delivery that arrived in this turn is read and verified first, then
   * all answers are written. Under load this measurably raises throughput
   * (bench/listener.mjs: about +15 %), since the sender is woken once per
   * batch rather than once per answer; no answer waits longer than one turn.
   */
  const answers = new AnswerBatch();

  /**
   * Reads the body with a size cap and verifies it in the request's 'end'
   * callback: callbacks rather than await here measurably lower the cost per
   * delivery (see bench/listener.mjs).
   */
  function handle(req: IncomingMessage, res: ServerResponse): void {
    stats.received++;
    if (req.method !== 'POST') {
      req.resume();
      reject(req, res, 405, `method ${req.method} not allowed; deliveries are POSTed`, { allow: 'POST' });
      return;
    }
    // node:http has already built req.headers for its own checks (Host, Expect), so reading it is free.
    const headers = req.headers;
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      // Answer at once. A body a little over the limit is drained so the client reads the 413 rather
      // than a reset; a huge one gets its connection cut once the answer is out.
      reject(req, res, 413, `body of ${declared} bytes is over the ${maxBody}-byte limit`, {
        connection: 'close',
      });
      if (declared > DRAIN_LIMIT) res.on('finish', () => req.destroy());
      else req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBody) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.resume();
      reject(req, res, 413, `body is over the ${maxBody}-byte limit`, { connection: 'close' });
    };
    req.on('data', onData);
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (size > maxBody) return;
      deliver(req, res, headers, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
  }

  function deliver(req: IncomingMessage, res: ServerResponse, headers: HeaderBag, body: Buffer): void {
    if (closing) {
      reject(req, res, 503, 'the listener is shutting down; the sender will retry this delivery', {
        connection: 'close',
      });
      return;
    }
    const receivedAt = now();
    const result = verifier.verify(headers, body, receivedAt);
    // What --save-dir and the inspector keep: the request as it came (built only when one of them asks).
    const request =
      options.onReceived || observer
        ? {
            method: req.method ?? 'POST',
            url: req.url ?? '/',
            httpVersion: req.httpVersion,
            rawHeaders: req.rawHeaders,
            body,
            id: result.id,
          }
        : undefined;
    let saved: string | undefined;
    if (options.onReceived) {
      try {
        saved = options.onReceived(request!, result.ok);
      } catch {
        // The callback reports its own failure (a full disk); the delivery is still verified and answered.
      }
    }
    const observe = (seen: Omit<ObservedDelivery, 'receivedAt' | 'request' | 'verdict'>): number =>
      observer!.arrived({ receivedAt, request: request!, verdict: result, ...seen });
    if (!result.ok) {
      if (observer) observe({ answered: result.status, refusal: result.reason });
      reject(
        req,
        res,
        result.status,
        `${result.reason}${result.id ? ` (id ${result.id})` : ''}${saved ? `; saved as ${saved}` : ''}`,
        {},
        result.suggestion,
      );
      return;
    }
    let payload: unknown;
    const text = body.toString('utf8');
    try {
      payload = JSON.parse(text);
    } catch {
      const reason = `signature valid but the body is not JSON (${body.length} bytes)`;
      if (observer) observe({ answered: 400, refusal: reason });
      reject(req, res, 400, reason);
      return;
    }
    stats.verified++;
    const id = deliveryId(result.id, payload, body);
    const delivery = seen.record(id);
    if (delivery > 1) stats.duplicates++;
    const type = field(payload, 'type') ?? field(payload, 'event') ?? field(payload, 'event_type');
    const eventTime = field(payload, 'timestamp') ?? field(payload, 'created_at');
    const event: ListenedEvent = {
      id,
      type: typeof type === 'string' ? type : 'unknown',
      timestamp:
        typeof eventTime === 'string'
          ? eventTime
          : result.timestampSeconds !== undefined
            ? new Date(result.timestampSeconds * 1000).toISOString()
            : null,
      duplicate: delivery > 1,
      delivery,
      payload,
      rawBody: text,
      ...(saved ? { saved } : {}),
    };
    const answer = delivery > 1 ? ANSWER_DUPLICATE : ANSWER_NEW;
    // Outside --events: verified and answered, so the sender does not retry, but not shown or forwarded.
    if (options.events && !options.events(event.type)) {
      stats.filtered++;
      if (observer) observe({ answered: 200, event, filtered: true });
      answers.push(res, answer);
      return;
    }
    const matching = targets.length === 0 ? targets : targets.filter((t) => t.matches(event.type));
    if (matching.length > 0) {
      const key = observer ? observe({ event }) : 0;
      void forward(req, res, body, matching).then(({ outcomes, answered }) => {
        event.forwards = outcomes;
        observer?.forwarded(key, outcomes, answered);
        options.onEvent(event);
      });
      return;
    }
    if (observer) observe({ answered: 200, event });
    answers.push(res, answer);
    options.onEvent(event);
  }

  // A slow, silent or half-open client gets a few seconds, then its socket is closed. node enforces
  // these two timeouts only when it checks its connections, every 30 s by default: checked every
  // second here, so such clients cannot hold the connection slots for long.
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 2)),
    },
    handle,
  );
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 1_000;
  // What node refuses before the handler sees a request (timeouts, unparsable HTTP) is reported
  // and counted like any other rejection, then answered as node itself would.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const refusal = clientErrorRefusal(error, headersTimeoutMs, requestTimeoutMs);
    if (refusal) {
      stats.received++;
      stats.rejected++;
      options.onReject(refusal);
      // As node's default: answer only if no response has started on this connection.
      const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (socket.writable && !inFlight?.headersSent) {
        socket.write(
          `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        );
      }
    }
    socket.destroy();
  });

  // The seen ids reach --state every few seconds, not only on a clean exit, so a kill loses little.
  const saver = setInterval(() => seen.save(), SAVE_EVERY_MS);
  saver.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    stats,
    close: async () => {
      clearInterval(saver);
      closing = true;
      // Events already printed and counted as verified must not leave their senders without the
      // answer: the queued answers go out before connections are cut (bounded, for stuck clients).
      const last = answers.flush();
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(last.map(sent)),
        new Promise((resolve) => (grace = setTimeout(resolve, CLOSE_GRACE_MS))),
      ]);
      clearTimeout(grace);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Forwards still waiting on a silent app must not hold up Ctrl-C.
      await agent?.destroy();
      seen.save();
    },
  };
}
