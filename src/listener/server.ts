/**
 * The webhook listener: accepts POSTs on any path, verifies each delivery's
 * signature over the raw bytes, answers 2xx only to verified deliveries, marks
 * redeliveries as duplicates, and can forward verified deliveries to a local
 * app. It reports through callbacks and does no terminal output itself.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { deliveryId, type WebhookVerifier } from '../core/webhooks.js';
import type { SeenIds } from './seen-ids.js';

export const DEFAULT_LISTEN_PORT = 4020;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const FORWARD_TIMEOUT_MS = 30_000;
/** Refused bodies up to this size are read and dropped; larger ones cost the client its connection. */
const DRAIN_LIMIT = 16 * 1024 * 1024;
/** Headers that describe one hop, not the delivery; never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length', 'upgrade', 'proxy-connection', 'te', 'trailer']);

export interface ListenedEvent {
  id: string;
  type: string;
  /** The event's own timestamp when the payload has one, else the signed time. */
  timestamp: string | null;
  duplicate: boolean;
  /** 1 for the first delivery of this id, 2 for the first redelivery… */
  delivery: number;
  payload: unknown;
  forward?: { status: number; durationMs: number } | { error: string };
}

export interface Rejection {
  status: number;
  reason: string;
  method: string;
  path: string;
}

export interface ListenerStats {
  received: number;
  verified: number;
  rejected: number;
  duplicates: number;
}

export interface ListenerOptions {
  host: string;
  port: number;
  verifier: WebhookVerifier;
  seen: SeenIds;
  maxBodyBytes?: number;
  forwardTo?: string | undefined;
  now?: () => number;
  onEvent(event: ListenedEvent): void;
  onReject(rejection: Rejection): void;
}

export interface RunningListener {
  url: string;
  stats: ListenerStats;
  close(): Promise<void>;
}

class TooLarge extends Error {}

const ANSWER_NEW = Buffer.from(JSON.stringify({ received: true, duplicate: false }));
const ANSWER_DUPLICATE = Buffer.from(JSON.stringify({ received: true, duplicate: true }));

function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new TooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function field(payload: unknown, ...path: string[]): unknown {
  let value = payload;
  for (const key of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const { verifier, seen } = options;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const now = options.now ?? Date.now;
  const stats: ListenerStats = { received: 0, verified: 0, rejected: 0, duplicates: 0 };
  const agent = options.forwardTo ? new Agent({ headersTimeout: FORWARD_TIMEOUT_MS, bodyTimeout: FORWARD_TIMEOUT_MS }) : undefined;

  function reject(req: IncomingMessage, res: ServerResponse, status: number, reason: string, headers: Record<string, string> = {}): void {
    stats.rejected++;
    const body = JSON.stringify({ error: reason });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
    options.onReject({ status, reason, method: req.method ?? '?', path: req.url ?? '/' });
  }

  async function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<ListenedEvent['forward']> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const started = now();
    try {
      const response = await request(options.forwardTo!, { method: 'POST', headers, body, dispatcher: agent });
      const answer = Buffer.from(await response.body.arrayBuffer());
      const contentType = response.headers['content-type'];
      // The sender gets the app's answer, so its retries follow the app's success or failure.
      res.writeHead(response.statusCode, {
        ...(typeof contentType === 'string' ? { 'content-type': contentType } : {}),
        'content-length': answer.length,
      });
      res.end(answer);
      return { status: response.statusCode, durationMs: now() - started };
    } catch (error) {
      const message = `${(error as { code?: string }).code ?? 'error'}: ${(error as Error).message}`;
      const text = JSON.stringify({ error: `forwarding to ${options.forwardTo} failed: ${message}` });
      res.writeHead(502, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return { error: message };
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.received++;
    if (req.method !== 'POST') {
      req.resume();
      reject(req, res, 405, `method ${req.method} not allowed; deliveries are POSTed`, { allow: 'POST' });
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      // Answer at once. A body a little over the limit is drained so the client reads the 413 rather
      // than a reset; a huge one gets its connection cut once the answer is out.
      reject(req, res, 413, `body of ${declared} bytes is over the ${maxBody}-byte limit`, { connection: 'close' });
      if (declared > DRAIN_LIMIT) res.on('finish', () => req.destroy());
      else req.resume();
      return;
    }
    let body: Buffer;
    try {
      body = await readLimited(req, maxBody);
    } catch (error) {
      if (error instanceof TooLarge) reject(req, res, 413, `body is over the ${maxBody}-byte limit`, { connection: 'close' });
      else res.destroy();
      return;
    }
    const result = verifier.verify(req.headers, body, now());
    if (!result.ok) {
      reject(req, res, result.status, `${result.reason}${result.id ? ` (id ${result.id})` : ''}`);
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      reject(req, res, 400, `signature valid but the body is not JSON (${body.length} bytes)`);
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
      timestamp: typeof eventTime === 'string' ? eventTime : result.timestampSeconds !== undefined ? new Date(result.timestampSeconds * 1000).toISOString() : null,
      duplicate: delivery > 1,
      delivery,
      payload,
    };
    if (options.forwardTo) event.forward = await forward(req, res, body);
    else {
      const answer = delivery > 1 ? ANSWER_DUPLICATE : ANSWER_NEW;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    }
    options.onEvent(event);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  // A slow or half-open client gets a few seconds, then its socket is closed.
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 1_000;

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
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await agent?.close();
      seen.save();
    },
  };
}
