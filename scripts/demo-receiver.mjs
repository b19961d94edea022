// A minimal webhook receiver for the demo: verifies each delivery's Standard
// Webhooks signature with the built core and prints one line per event.
import { createServer } from 'node:http';
import { safeEqual, standardSignature } from '../dist/core/index.js';

export async function startDemoReceiver(secret, preferred) {
  let verified = 0;
  let rejected = 0;
  const seen = new Set();
  const waiters = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const id = req.headers['webhook-id'] ?? '';
      const timestamp = Number(req.headers['webhook-timestamp']);
      const expected = `v1,${standardSignature(secret, id, timestamp, body)}`;
      const signatures = String(req.headers['webhook-signature'] ?? '').split(' ');
      if (!signatures.some((s) => safeEqual(s, expected)) || Math.abs(Date.now() / 1000 - timestamp) > 300) {
        rejected++;
        console.log(`  ✗ rejected a delivery with a bad signature`);
        res.writeHead(401).end();
        return;
      }
      res.writeHead(204).end();
      if (seen.has(id)) return;
      seen.add(id);
      verified++;
      const event = JSON.parse(body.toString('utf8'));
      const who = event.data.signer ? ` ${event.data.signer.name} (${event.data.signer.channel})` : '';
      console.log(`  ⇢ ${event.timestamp.slice(11, 23)} ${event.type.padEnd(20)}${who}  [signature verified]`);
      for (const waiter of waiters.filter((w) => w.type === event.type)) waiter.resolve();
    });
  });
  const listen = (port, host) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  try {
    await listen(Number(preferred.port), preferred.hostname);
  } catch {
    await listen(0, '127.0.0.1');
  }
  const { port } = server.address();
  const url = Number(preferred.port) === port ? preferred.toString() : `http://127.0.0.1:${port}${preferred.pathname}`;
  return {
    url,
    get verified() {
      return verified;
    },
    get rejected() {
      return rejected;
    },
    waitFor: (type, timeoutMs) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        waiters.push({ type, resolve: () => (clearTimeout(timer), resolve()) });
      }),
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}
