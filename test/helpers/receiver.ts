import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Waits until `predicate` holds for the deliveries so far (polls; bounded by timeoutMs). */
  waitFor(predicate: (deliveries: Delivery[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A real webhook receiver on loopback; `answer` picks the status for the n-th request (0-based). */
export async function startReceiver(answer: (n: number) => number | 'hang' = () => 200): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const status = answer(deliveries.length);
      deliveries.push({ headers: req.headers, body, answered: status === 'hang' ? 0 : status });
      if (status === 'hang') return;
      res.writeHead(status).end(status < 300 ? 'ok' : 'failed on purpose');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    deliveries,
    async waitFor(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(deliveries)) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out; received: ${deliveries.map((d) => JSON.parse(d.body).type).join(', ')}`,
          );
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const eventTypes = (deliveries: Delivery[]): string[] =>
  deliveries
    .filter((d) => d.answered >= 200 && d.answered < 300)
    .map((d) => JSON.parse(d.body).type as string);
