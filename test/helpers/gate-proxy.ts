/**
 * A proxy on 127.0.0.1 that forwards everything to a target and, once closed, holds the
 * requests it is told to hold until it is opened again. A test that must see a command in
 * a given state (a progress line on screen mid-run) closes the gate: the command cannot
 * get past that point, however fast or slow the machine, until the test has looked.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';

export interface GateProxy {
  url: string;
  /** Requests `holds` matched so far, held or not. */
  readonly matched: number;
  /** Holds every matching request from the `n`-th (1-based) on, until open(). */
  closeAt(n: number): void;
  /** Resolves once a request is being held. */
  held(): Promise<void>;
  /** Lets the held requests through, and every later one (until closeAt again). */
  open(): void;
  close(): Promise<void>;
}

export async function startGateProxy(
  target: string,
  holds: (req: IncomingMessage) => boolean,
): Promise<GateProxy> {
  let matched = 0;
  let closedFrom = Number.POSITIVE_INFINITY;
  let waiting: (() => void)[] = [];
  const onHeld: (() => void)[] = [];
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const upstream = request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: { ...req.headers, host: new URL(target).host }, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (holds(req) && ++matched >= closedFrom) {
        waiting.push(() => forward(req, res, body));
        for (const tell of onHeld.splice(0)) tell();
      } else forward(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get matched() {
      return matched;
    },
    closeAt(n) {
      closedFrom = n;
    },
    held: () => (waiting.length > 0 ? Promise.resolve() : new Promise<void>((r) => onHeld.push(r))),
    open() {
      closedFrom = Number.POSITIVE_INFINITY;
      const release = waiting;
      waiting = [];
      for (const go of release) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
