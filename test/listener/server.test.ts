/**
 * The listener as a library, over real sockets on loopback: shutdown with
 * answers still queued, and clients that are slow, silent or not speaking HTTP.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newStandardSecret, signStandard, WebhookVerifier } from '../../src/core/webhooks/webhooks.js';
import { SeenIds } from '../../src/listener/seen-ids.js';
import {
  startListener,
  type ListenedEvent,
  type Rejection,
  type RunningListener,
} from '../../src/listener/server.js';

const secret = newStandardSecret();
let listener: RunningListener | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await listener?.close();
  listener = undefined;
});

async function start(
  overrides: {
    onEvent?: (event: ListenedEvent) => void;
    headersTimeoutMs?: number;
    requestTimeoutMs?: number;
  } = {},
) {
  const events: ListenedEvent[] = [];
  const rejections: Rejection[] = [];
  listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    verifier: new WebhookVerifier({ secrets: [secret] }),
    seen: new SeenIds(),
    headersTimeoutMs: overrides.headersTimeoutMs,
    requestTimeoutMs: overrides.requestTimeoutMs,
    onEvent: (event) => {
      events.push(event);
      overrides.onEvent?.(event);
    },
    onReject: (rejection) => rejections.push(rejection),
  });
  return { listener, events, rejections, port: Number(new URL(listener.url).port) };
}

function delivery(id: string): string {
  const body = JSON.stringify({ id, type: 'envelope.completed', data: { envelope_id: 'env_1' } });
  const headers = signStandard(secret, id, Math.floor(Date.now() / 1000), body);
  return `POST /hooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${Object.entries(
    headers,
  )
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n${body}`;
}

/** Opens a raw connection; resolves with everything the listener sent once it closes the connection. */
function rawClient(
  port: number,
  write: (socket: Socket) => void,
): { socket: Socket; closed: Promise<{ received: string }> } {
  const socket = connect(port, '127.0.0.1', () => write(socket));
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', () => {});
  return {
    socket,
    closed: new Promise((resolve) => socket.on('close', () => resolve({ received }))),
  };
}

describe('listener shutdown', () => {
  it('sends the answer of a delivery already printed before closing its connection', async () => {
    let closing: Promise<void> | undefined;
    // close() starts while the answer to this delivery is still queued for the end of the turn.
    const {
      port,
      events,
      listener: running,
    } = await start({
      onEvent: () => {
        closing ??= running.close();
      },
    });
    const { closed } = rawClient(port, (socket) => socket.write(delivery('evt_last')));
    const { received } = await closed;
    await closing;
    listener = undefined;
    expect(events.map((e) => e.id)).toEqual(['evt_last']);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toContain('{"received":true,"duplicate":false}');
  });
});

describe('clients that do not send a whole request in time', () => {
  it('closes a silent connection after the headers timeout, answering 408 and saying why', async () => {
    const {
      port,
      rejections,
      listener: running,
    } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const { closed } = rawClient(port, () => {});
    // The client never sends a byte: that the connection ends at all is the timeout at work.
    const { received } = await closed;
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(rejections).toEqual([{ status: 408, reason: expect.stringMatching(/slow or half-open client/) }]);
    expect(running.stats).toMatchObject({ received: 1, rejected: 1, verified: 0 });
  });

  it('cuts a body trickled byte by byte once the request timeout passes, while other senders are served', async () => {
    const { port, rejections, events } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    let timer: NodeJS.Timeout | undefined;
    const slow = rawClient(port, (socket) => {
      socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n');
      timer = setInterval(() => socket.write('x'), 50);
    });
    const fast = rawClient(port, (socket) => socket.end(delivery('evt_fast')));
    expect((await fast.closed).received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const { received } = await slow.closed;
    clearInterval(timer);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(events.map((e) => e.id)).toEqual(['evt_fast']);
    expect(rejections.map((r) => r.status)).toEqual([408]);
  });

  it('answers bytes that are not HTTP with 400 and a reason', async () => {
    const { port, rejections } = await start();
    const { received } = await rawClient(port, (socket) => socket.write('HELLO THERE\r\n\r\n')).closed;
    expect(received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(rejections).toEqual([
      { status: 400, reason: expect.stringMatching(/^malformed HTTP request \(HPE_/) },
    ]);
  });
});
