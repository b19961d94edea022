/**
 * Webhook receivers as integrators write them, for `webhooks test`: reference
 * receivers built on independent libraries (the standardwebhooks package,
 * svix's Webhook, stripe's constructEvent, node:crypto for a GitHub-style
 * HMAC), and faulty ones, each seeded with one of the usual bugs. Real HTTP
 * servers on 127.0.0.1, ephemeral ports.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { EVENT_TYPES } from '../../src/core/webhooks/events.js';
import { Webhook as SvixWebhook } from 'svix';

/** The bugs a faulty receiver can be seeded with; each is named after what it does wrong. */
export type Fault =
  /** Checks the headers are there and look right, never the signature itself. */
  | 'accepts-any-signature'
  /** Answers 200 to an id it has already handled, before verifying (a captured id with a new body passes). */
  | 'dedupes-before-verifying'
  /** Verifies only when a signature header is present. */
  | 'signature-optional'
  /** Verifies the HMAC but not the timestamp's age. */
  | 'skips-timestamp'
  /** Throws (500) on an event id it has seen: a unique-key violation. */
  | 'fails-on-repeat'
  /** 500 on an event type its switch does not know. */
  | 'fails-on-unknown-type'
  /** Verifies only the first signature of the header. */
  | 'first-signature-only'
  /** Takes longer than the timeout when more than five deliveries are in flight. */
  | 'slow-under-burst'
  /** Its envelope.voided handler throws. */
  | 'fails-on-voided'
  /** 500 on a signer event for an envelope it has marked completed. */
  | 'fails-after-completed'
  /** Stops reading a body over 1 MiB and never answers. */
  | 'hangs-on-large-body'
  /** Never answers a valid signer.signed delivery (its handler awaits something that never comes). */
  | 'hangs-on-signed';

export type Library = 'standardwebhooks' | 'svix' | 'stripe' | 'hmac';

export interface ReceiverOptions {
  library?: Library;
  secret: string;
  fault?: Fault;
  /** hmac library: the header carrying the hex HMAC-SHA256. */
  signatureHeader?: string;
}

export interface TestReceiver {
  url: string;
  /** The events each receiver acted on (verified, first time), by type. */
  handled: string[];
  /** Every request it was sent, forged or not. */
  readonly requests: number;
  /** The requests it never answered (hangs-on-signed). */
  readonly unanswered: number;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
/** The types its switch handles: the service's, as src/core/webhooks/events.ts lists them. */
const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Reads the body with the usual bound: over 1 MiB is a 413, as body-parser's limit gives. */
function readBody(req: IncomingMessage, fault: Fault | undefined): Promise<Buffer | 'hang'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        if (fault === 'hangs-on-large-body') {
          req.pause();
          resolve('hang');
          return;
        }
        req.resume();
        reject(new Refused(413, 'body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers[name] = value;
  return headers;
}

/** The verification step of each library: throws Refused(401) when the delivery is not the service's. */
function verifier(
  options: ReceiverOptions,
): (
  body: string,
  headers: Record<string, string>,
) => { id: string; type: string; data: { envelope_id: string } } {
  const library = options.library ?? 'standardwebhooks';
  if (library === 'standardwebhooks' || library === 'svix') {
    const wh = library === 'svix' ? new SvixWebhook(options.secret) : new Webhook(options.secret);
    const signer = new Webhook(options.secret);
    return (body, headers) => {
      const fault = options.fault;
      const signature = headers['webhook-signature'];
      if (fault === 'signature-optional' && !signature) return JSON.parse(body);
      if (fault === 'accepts-any-signature') {
        // The timestamp's window is checked; the signature only for its look ("verify later").
        const age = Math.abs(Date.now() / 1000 - Number(headers['webhook-timestamp']));
        if (!headers['webhook-id'] || !(age <= 300) || !/^v1,[A-Za-z0-9+/=]{40,}/.test(signature ?? ''))
          throw new Refused(401, 'missing, stale or malformed signature');
        return JSON.parse(body);
      }
      if (fault === 'skips-timestamp') {
        const expected = signer.sign(
          headers['webhook-id'] ?? '',
          new Date(Number(headers['webhook-timestamp']) * 1000),
          body,
        );
        if (!(signature ?? '').split(' ').includes(expected)) throw new Refused(401, 'bad signature');
        return JSON.parse(body);
      }
      const checked =
        fault === 'first-signature-only'
          ? { ...headers, 'webhook-signature': (signature ?? '').split(' ')[0]! }
          : headers;
      try {
        return wh.verify(body, checked) as ReturnType<ReturnType<typeof verifier>>;
      } catch (error) {
        throw new Refused(401, (error as Error).message);
      }
    };
  }
  if (library === 'stripe') {
    const stripe = new Stripe('sk_test_unused');
    return (body, headers) => {
      try {
        return stripe.webhooks.constructEvent(
          body,
          headers['stripe-signature'] ?? '',
          options.secret,
        ) as never;
      } catch (error) {
        throw new Refused(401, (error as Error).message);
      }
    };
  }
  const name = (options.signatureHeader ?? 'x-signature').toLowerCase();
  return (body, headers) => {
    const given = Buffer.from((headers[name] ?? '').replace(/^sha256=/, ''), 'hex');
    const expected = createHmac('sha256', options.secret).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new Refused(401, 'bad signature');
    return JSON.parse(body);
  };
}

export async function startTestReceiver(options: ReceiverOptions): Promise<TestReceiver> {
  const verify = verifier(options);
  const seen = new Set<string>();
  const completed = new Set<string>();
  const handled: string[] = [];
  let inFlight = 0;
  let requests = 0;
  let unanswered = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    inFlight++;
    void (async () => {
      try {
        const body = await readBody(req, options.fault);
        if (body === 'hang') return; // never answers: the bug under test
        const headers = headerMap(req);
        const id = headers['webhook-id'] ?? '';
        if (options.fault === 'dedupes-before-verifying' && seen.has(id)) {
          res.writeHead(200).end('already handled');
          return;
        }
        const event = verify(body.toString('utf8'), headers);
        const eventId = id || event.id;
        if (seen.has(eventId)) {
          if (options.fault === 'fails-on-repeat')
            throw new Error('duplicate key value violates unique constraint');
          res.writeHead(200).end('duplicate');
          return;
        }
        seen.add(eventId);
        if (options.fault === 'hangs-on-signed' && event.type === 'signer.signed') {
          unanswered++;
          return; // never answers: the bug under test
        }
        if (options.fault === 'fails-on-unknown-type' && !KNOWN.has(event.type))
          throw new Error(`unhandled event type ${event.type}`);
        if (options.fault === 'fails-on-voided' && event.type === 'envelope.voided')
          throw new TypeError("cannot read properties of undefined (reading 'reason')");
        if (
          options.fault === 'fails-after-completed' &&
          event.type.startsWith('signer.') &&
          completed.has(event.data.envelope_id)
        )
          throw new Error('envelope already completed');
        if (event.type === 'envelope.completed') completed.add(event.data.envelope_id);
        if (options.fault === 'slow-under-burst') {
          // A 20 ms database write, then a lock that is never released once more than five are waiting:
          // the burst's queued deliveries are never answered, whatever the answer timeout.
          await new Promise((r) => setTimeout(r, 20));
          if (inFlight > 5) {
            unanswered++;
            return;
          }
        }
        handled.push(event.type);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
      } catch (error) {
        const status = error instanceof Refused ? error.status : 500;
        if (!res.headersSent) res.writeHead(status).end(error instanceof Error ? error.message : 'error');
      } finally {
        inFlight--;
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    handled,
    get requests() {
      return requests;
    },
    get unanswered() {
      return unanswered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
