/**
 * `sign-cli webhooks listen --json` under hostile traffic: more than 5,000 bad
 * deliveries (bad, foreign or missing signatures; stale, future and
 * non-numeric timestamps; tampered bodies; malformed JSON; bodies over the
 * limit; wrong methods; duplicated, odd-cased, huge and smuggling headers;
 * chunked and broken chunked bodies; bytes that are not HTTP) with valid
 * deliveries and redeliveries mixed in, 50 slow-loris connections beside
 * them, then 1,000 connections open at once. No bad delivery may be answered
 * 2xx or printed; each valid event is printed once as new (redeliveries as
 * duplicates), and the listener still takes a valid event at the end.
 */
import { Agent, request, type OutgoingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../helpers/fault-proxy.js';
import { startListenerProcess, type ListenerProcess } from '../helpers/listener.js';
import { recordFigures } from './figures.js';
import { seconds, sleep } from './support.js';

const SECTION = 'listener-hostile';
const SECRET = `whsec_${Buffer.from('reliability listener secret 32 b').toString('base64')}`;
const FOREIGN = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
const wh = new Webhook(SECRET);
/** The listener's default body limit (README: `--max-body`, default 1 MiB). */
const MAX_BODY = 1024 * 1024;
const random = seededRandom(5_000);
const REQUEST_TIMEOUT_MS = 20_000;

interface Answer {
  /** null: the connection closed (or timed out) without an answer. */
  status: number | null;
  body: string;
}

interface Case {
  kind: string;
  valid: boolean;
  /** The webhook-id the case carries (for counting answers and printed lines per id). */
  id?: string;
  /** Acceptable outcomes; null = the connection cut without an answer. */
  expect: (number | null)[];
  method?: string;
  path?: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Sent with Transfer-Encoding: chunked, in this many pieces. */
  chunks?: number;
  /** Bytes written as they are on a fresh connection. */
  raw?: string | Buffer;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function eventBody(id: string, type = 'signer.signed', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    type,
    timestamp: new Date().toISOString(),
    data: {
      envelope_id: 'env_rel',
      contract_id: 'REL-L',
      envelope_status: 'sent',
      signer: { id: 'sgn_1', name: 'Layla Haddad', channel: 'email', order: 1, status: 'signed' },
    },
    ...extra,
  });
}

/** Standard Webhooks headers for id/body, signed at `at` (seconds) with `signer`. */
function signed(id: string, body: string | Buffer, at = nowSeconds(), signer = wh): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': signer.sign(
      id,
      new Date(at * 1000),
      typeof body === 'string' ? body : body.toString('utf8'),
    ),
  };
}

const badSignature = () =>
  `v1,${Buffer.from(Array.from({ length: 32 }, () => Math.floor(random() * 256))).toString('base64')}`;

function rawRequest(lines: string[], body = ''): string {
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

function parseStatus(text: string): number | null {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  return match ? Number(match[1]) : null;
}

describe('webhooks listen under hostile traffic', () => {
  let listener: ListenerProcess;
  let port: number;
  let agent: Agent;

  beforeAll(async () => {
    listener = await startListenerProcess(['--json'], { SIGN_WEBHOOK_SECRET: SECRET });
    port = Number(new URL(listener.url).port);
    agent = new Agent({ keepAlive: true, maxSockets: 48 });
  });
  afterAll(async () => {
    agent?.destroy();
    await listener?.stop();
  });

  function httpSend(c: Case, via: Agent | false = agent): Promise<Answer> {
    return new Promise((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined = undefined;
      const finish = (answer: Answer) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(answer);
      };
      let req: ReturnType<typeof request>;
      try {
        req = request(
          {
            host: '127.0.0.1',
            port,
            method: c.method ?? 'POST',
            path: c.path ?? '/hooks',
            headers: c.headers,
            agent: via,
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => finish({ status: res.statusCode ?? null, body: text }));
            res.on('error', () => finish({ status: res.statusCode ?? null, body: text }));
          },
        );
      } catch (error) {
        // node refused to send it (an invalid header): a mistake in the case, shown as an unexpected outcome.
        finish({ status: null, body: `not sent: ${(error as Error).message}` });
        return;
      }
      timer = setTimeout(() => {
        req.destroy();
        finish({ status: null, body: 'timed out' });
      }, REQUEST_TIMEOUT_MS);
      req.on('error', (error: NodeJS.ErrnoException) =>
        finish({ status: null, body: error.code ?? error.message }),
      );
      const body = c.body === undefined ? undefined : Buffer.from(c.body);
      if (body && c.chunks) {
        const size = Math.ceil(body.length / c.chunks);
        for (let at = 0; at < body.length; at += size) req.write(body.subarray(at, at + size));
        req.end();
      } else req.end(body);
    });
  }

  function rawSend(data: string | Buffer): Promise<Answer> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let text = '';
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: parseStatus(text), body: text.slice(0, 200) });
      };
      const timer = setTimeout(finish, REQUEST_TIMEOUT_MS);
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', finish);
      socket.on('close', finish);
      socket.on('connect', () => socket.write(data));
    });
  }

  async function send(c: Case): Promise<Answer & { retried: boolean }> {
    const first = c.raw !== undefined ? await rawSend(c.raw) : await httpSend(c);
    // A connection error where an answer was due (a kept-alive socket closed under us): try once more
    // on a fresh connection, as a sender would; a listener that really drops it will drop it again.
    if (first.status === null && !c.expect.includes(null)) {
      const again = c.raw !== undefined ? await rawSend(c.raw) : await httpSend(c, false);
      return { ...again, retried: true };
    }
    return { ...first, retried: false };
  }

  /** The cases of the main phase: hostile ones and valid deliveries/redeliveries, shuffled. */
  function buildCases(): { cases: Case[]; validIds: string[] } {
    const cases: Case[] = [];
    const validIds: string[] = [];
    const validHeaders = new Map<string, { headers: Record<string, string>; body: string }>();
    const add = (n: number, make: (i: number) => Case) => {
      for (let i = 0; i < n; i++) cases.push(make(i));
    };

    // Valid deliveries, in several legitimate shapes.
    add(300, (i) => {
      const id = `evt_ok_${i}`;
      validIds.push(id);
      const body = eventBody(id, i % 3 === 0 ? 'envelope.completed' : 'signer.signed');
      const headers = signed(id, body);
      validHeaders.set(id, { headers, body });
      if (i < 40)
        return { kind: 'valid (chunked)', valid: true, id, expect: [200], headers, body, chunks: 3 };
      if (i < 80) {
        // Header names in odd casing: names are case-insensitive.
        const odd = {
          'Content-Type': headers['content-type']!,
          'WEBHOOK-ID': id,
          'Webhook-Timestamp': headers['webhook-timestamp']!,
          'webHOOK-signaTURE': headers['webhook-signature']!,
        };
        return { kind: 'valid (odd-cased names)', valid: true, id, expect: [200], headers: odd, body };
      }
      if (i < 110) {
        const svix = {
          'content-type': 'application/json',
          'svix-id': id,
          'svix-timestamp': headers['webhook-timestamp']!,
          'svix-signature': headers['webhook-signature']!,
        };
        return { kind: 'valid (svix-* names)', valid: true, id, expect: [200], headers: svix, body };
      }
      if (i < 130) {
        // A rotation: one stale signature and the right one, space-separated.
        return {
          kind: 'valid (two signatures)',
          valid: true,
          id,
          expect: [200],
          headers: { ...headers, 'webhook-signature': `${badSignature()} ${headers['webhook-signature']}` },
          body,
        };
      }
      if (i < 132) {
        // Exactly at the body limit.
        const padded = eventBody(id, 'signer.signed', { pad: '' });
        const big = padded.replace('"pad":""', `"pad":"${'x'.repeat(MAX_BODY - Buffer.byteLength(padded))}"`);
        return {
          kind: 'valid (body at the limit)',
          valid: true,
          id,
          expect: [200],
          headers: signed(id, big),
          body: big,
        };
      }
      return { kind: 'valid', valid: true, id, expect: [200], headers, body };
    });
    // Redeliveries of valid events: exact replays of the captured request, and fresh signatures.
    add(150, (i) => {
      const id = `evt_ok_${150 + (i % 150)}`;
      const { headers, body } = validHeaders.get(id)!;
      return { kind: 'replay of a valid delivery', valid: true, id, expect: [200], headers, body };
    });
    add(100, (i) => {
      const id = `evt_ok_${i * 3}`;
      const { body } = validHeaders.get(id)!;
      return {
        kind: 'redelivery, fresh signature',
        valid: true,
        id,
        expect: [200],
        headers: signed(id, body),
        body,
        ...(i % 4 === 0 ? { path: `/other/path?attempt=${i}` } : {}),
      };
    });

    // Hostile: signatures.
    add(800, (i) => {
      const id = `evt_bad_sig_${i}`;
      const body = eventBody(id);
      return {
        kind: 'bad signature',
        valid: false,
        id,
        expect: [401],
        headers: { ...signed(id, body), 'webhook-signature': badSignature() },
        body,
      };
    });
    add(400, (i) => {
      const id = `evt_bad_foreign_${i}`;
      const body = eventBody(id);
      return {
        kind: 'signed with another secret',
        valid: false,
        id,
        expect: [401],
        headers: signed(id, body, nowSeconds(), FOREIGN),
        body,
      };
    });
    add(400, (i) => {
      // A captured valid delivery with its body changed.
      const id = `evt_ok_${i % 300}`;
      const { headers, body } = validHeaders.get(id)!;
      const tampered = i % 2 === 0 ? body.replace('Layla Haddad', 'Mallory') : `${body} `;
      return { kind: 'tampered body', valid: false, id, expect: [401], headers, body: tampered };
    });
    add(200, (i) => {
      // A captured valid delivery under another id (to pass as a new event).
      const id = `evt_ok_${i % 300}`;
      const { headers, body } = validHeaders.get(id)!;
      return {
        kind: 'signature moved to another id',
        valid: false,
        id: `evt_bad_moved_${i}`,
        expect: [401],
        headers: { ...headers, 'webhook-id': `evt_bad_moved_${i}` },
        body,
      };
    });
    add(100, (i) => {
      const id = `evt_bad_version_${i}`;
      const body = eventBody(id);
      const good = signed(id, body)['webhook-signature']!.slice(3);
      const forms = [`v2,${good}`, `v1a,${good}`, `V1,${good}`, `v0,${good}`, `,${good}`];
      return {
        kind: 'unsupported signature version',
        valid: false,
        id,
        expect: [401],
        headers: { ...signed(id, body), 'webhook-signature': forms[i % forms.length]! },
        body,
      };
    });
    add(150, (i) => {
      const id = `evt_bad_missing_${i}`;
      const body = eventBody(id);
      const headers: Record<string, string> = signed(id, body);
      delete headers[['webhook-id', 'webhook-timestamp', 'webhook-signature'][i % 3]!];
      return { kind: 'missing header', valid: false, id, expect: [401], headers, body };
    });
    // Hostile: timestamps.
    add(400, (i) => {
      const id = `evt_bad_stale_${i}`;
      const body = eventBody(id);
      return {
        kind: 'stale timestamp (validly signed)',
        valid: false,
        id,
        expect: [401],
        headers: signed(id, body, nowSeconds() - 301 - Math.floor(random() * 86_400)),
        body,
      };
    });
    add(300, (i) => {
      const id = `evt_bad_future_${i}`;
      const body = eventBody(id);
      return {
        kind: 'future timestamp (validly signed)',
        valid: false,
        id,
        expect: [401],
        headers: signed(id, body, nowSeconds() + 301 + Math.floor(random() * 86_400)),
        body,
      };
    });
    const oddTimes = [
      'yesterday',
      '1e9',
      '0x6553F100',
      '-1',
      '12.5',
      '\u00b9\u00b2\u00b3\u00b9\u00b2\u00b3',
      '1234567890123',
      'NaN',
      'Infinity',
      '1700000000 1700000001',
      '+1700000000',
      `${nowSeconds()}s`,
    ];
    add(300, (i) => {
      const id = `evt_bad_time_${i}`;
      const body = eventBody(id);
      return {
        kind: 'non-numeric timestamp',
        valid: false,
        id,
        expect: [400],
        headers: { ...signed(id, body), 'webhook-timestamp': oddTimes[i % oddTimes.length]! },
        body,
      };
    });
    // Hostile: bodies.
    add(300, (i) => {
      const id = `evt_bad_json_${i}`;
      const forms = [
        '{',
        '{"id":',
        'not json',
        '{"a":1}}',
        '\u0000\u0001',
        '[1,2',
        "{'single':'quotes'}",
        '{"a":NaN}',
        '',
        '\ufeff{"bom":true}x',
      ];
      const body = forms[i % forms.length]!;
      return {
        kind: 'malformed JSON (validly signed)',
        valid: false,
        id,
        expect: [400],
        headers: signed(id, body),
        body,
      };
    });
    add(12, (i) => {
      const id = `evt_bad_big_${i}`;
      const body = Buffer.alloc(MAX_BODY + 1 + i * 9_000, 0x78);
      return {
        kind: 'body over the limit',
        valid: false,
        id,
        expect: [413],
        headers: signed(id, body),
        body,
      };
    });
    add(6, (i) => {
      const id = `evt_bad_bigchunked_${i}`;
      const body = Buffer.alloc(MAX_BODY + 200_000, 0x78);
      return {
        kind: 'chunked body over the limit',
        valid: false,
        id,
        expect: [413, null],
        headers: signed(id, body),
        body,
        chunks: 40,
      };
    });
    add(20, (i) => {
      const id = `evt_bad_declared_${i}`;
      const headers = signed(id, '{}');
      const lines = [
        'POST /hooks HTTP/1.1',
        'Host: 127.0.0.1',
        `Content-Length: ${50 * 1024 * 1024 + i}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      return {
        kind: 'declared 50 MB body',
        valid: false,
        id,
        expect: [413, null],
        raw: rawRequest(lines, '{"id":'),
      };
    });
    // Hostile: methods.
    const methods = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];
    add(600, (i) => {
      const id = `evt_ok_${i % 300}`;
      const { headers, body } = validHeaders.get(id)!;
      const method = methods[i % methods.length]!;
      const withBody = method === 'PUT' || method === 'PATCH';
      return {
        kind: 'wrong method',
        valid: false,
        id,
        expect: [405],
        method,
        headers: withBody ? headers : { ...headers, 'content-type': 'application/json' },
        ...(withBody ? { body } : {}),
      };
    });
    // Hostile: header tricks.
    add(200, (i) => {
      const id = `evt_bad_dupsig_${i}`;
      const body = eventBody(id);
      return {
        kind: 'duplicated signature headers',
        valid: false,
        id,
        expect: [401],
        headers: { ...signed(id, body), 'webhook-signature': [badSignature(), badSignature()] },
        body,
      };
    });
    add(100, (i) => {
      const id = `evt_ok_${(i * 7) % 300}`;
      const { headers, body } = validHeaders.get(id)!;
      return {
        kind: 'duplicated timestamp headers',
        valid: false,
        id,
        expect: [400],
        headers: {
          ...headers,
          'webhook-timestamp': [headers['webhook-timestamp']!, String(nowSeconds() + 5)],
        },
        body,
      };
    });
    add(100, (i) => {
      // A captured delivery with a second webhook-id: must not pass as a new event.
      const id = `evt_ok_${(i * 11) % 300}`;
      const { headers, body } = validHeaders.get(id)!;
      return {
        kind: 'duplicated id headers',
        valid: false,
        id,
        expect: [401],
        headers: { ...headers, 'webhook-id': [id, `evt_bad_dupid_${i}`] },
        body,
      };
    });
    add(100, (i) => {
      const id = `evt_bad_case_${i}`;
      const body = eventBody(id);
      const h = signed(id, body);
      return {
        kind: 'odd-cased names, bad signature',
        valid: false,
        id,
        expect: [401],
        headers: {
          'CONTENT-type': 'application/json',
          'WeBhOoK-Id': id,
          'WEBHOOK-TIMESTAMP': h['webhook-timestamp']!,
          'Webhook-Signature': badSignature(),
        },
        body,
      };
    });
    add(100, (i) => {
      const id = `evt_bad_svix_${i}`;
      const body = eventBody(id);
      const h = signed(id, body);
      return {
        kind: 'svix-* names, bad signature',
        valid: false,
        id,
        expect: [401],
        headers: {
          'content-type': 'application/json',
          'svix-id': id,
          'svix-timestamp': h['webhook-timestamp']!,
          'svix-signature': badSignature(),
        },
        body,
      };
    });
    add(40, (i) => {
      const id = `evt_bad_huge_${i}`;
      const body = eventBody(id);
      // Over node's 16 KiB header limit, with a valid signature: refused before any handler runs.
      return {
        kind: 'huge header (20 KiB)',
        valid: false,
        id,
        expect: [431, null],
        headers: { ...signed(id, body), 'x-padding': 'p'.repeat(20 * 1024) },
        body,
      };
    });
    add(40, (i) => {
      const id = `evt_bad_many_${i}`;
      const body = eventBody(id);
      const many = Array.from({ length: 250 }, badSignature).join(' ');
      return {
        kind: '250 bad signatures in one header',
        valid: false,
        id,
        expect: [401],
        headers: { ...signed(id, body), 'webhook-signature': many },
        body,
      };
    });
    add(200, (i) => {
      const id = `evt_bad_chunked_${i}`;
      const body = eventBody(id);
      return {
        kind: 'chunked, bad signature',
        valid: false,
        id,
        expect: [401],
        headers: { ...signed(id, body), 'webhook-signature': badSignature() },
        body,
        chunks: 2 + (i % 7),
      };
    });
    // Hostile: bytes that are not (well-formed) HTTP, each on its own connection.
    add(50, (i) => {
      const id = `evt_bad_brokenchunk_${i}`;
      const body = eventBody(id);
      const lines = [
        'POST /hooks HTTP/1.1',
        'Host: 127.0.0.1',
        'Transfer-Encoding: chunked',
        'Connection: close',
        ...Object.entries(signed(id, body)).map(([k, v]) => `${k}: ${v}`),
      ];
      const broken = [
        'zz\r\n{}\r\n0\r\n\r\n',
        `5\r\n${body}\r\n0\r\n\r\n`,
        '-1\r\nx\r\n0\r\n\r\n',
        `${body.length.toString(16)};${'e'.repeat(20_000)}\r\n${body}\r\n0\r\n\r\n`,
      ][i % 4]!;
      return {
        kind: 'malformed chunked encoding',
        valid: false,
        id,
        expect: [400, 413, null],
        raw: rawRequest(lines, broken),
      };
    });
    add(50, (i) => {
      const id = `evt_bad_smuggle_${i}`;
      const body = eventBody(id);
      const lines = [
        'POST /hooks HTTP/1.1',
        'Host: 127.0.0.1',
        `Content-Length: ${body.length}`,
        'Transfer-Encoding: chunked',
        'Connection: close',
        ...Object.entries(signed(id, body)).map(([k, v]) => `${k}: ${v}`),
      ];
      return {
        kind: 'Content-Length with Transfer-Encoding',
        valid: false,
        id,
        expect: [400, null],
        raw: rawRequest(lines, `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`),
      };
    });
    add(50, (i) => {
      const forms = [
        Buffer.from(Array.from({ length: 200 }, () => Math.floor(random() * 256))),
        'GET\r\n\r\n',
        'POST /hooks HTTP/9.9\r\nHost: x\r\n\r\n',
        'POST /hooks HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n',
        'POST /hooks HTTP/1.1\r\nHost: x\r\nwebhook-id: a\u0000b\r\n\r\n',
        '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
      ];
      return {
        kind: 'not HTTP',
        valid: false,
        id: `evt_bad_raw_${i}`,
        expect: [400, null],
        raw: forms[i % forms.length]!,
      };
    });

    // Seeded shuffle, so valid and hostile deliveries interleave the same way every run.
    for (let i = cases.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [cases[i], cases[j]] = [cases[j]!, cases[i]!];
    }
    return { cases, validIds };
  }

  interface LorisResult {
    kind: string;
    /** ms from connect until the listener closed the connection; null if we had to give up. */
    cutAfterMs: number | null;
    status: number | null;
  }

  /** One slow-loris connection: headers a byte at a time (then, for some, a stall), or a stalled body. */
  function slowLoris(
    kind: 'trickle' | 'trickle then stall' | 'stalled body',
    i: number,
  ): Promise<LorisResult> {
    return new Promise((resolve) => {
      const id = `evt_slow_${i}`;
      const body = eventBody(id);
      const headers = signed(id, body);
      const head = [
        'POST /hooks HTTP/1.1',
        'Host: 127.0.0.1',
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      ];
      const bytes =
        kind === 'stalled body'
          ? rawRequest([...head, `Content-Length: ${body.length}`], body.slice(0, 10))
          : `${head.join('\r\n')}\r\n`;
      const stallAt = kind === 'trickle then stall' ? 20 + (i % 30) : Infinity;
      const socket: Socket = connect(port, '127.0.0.1');
      let started = Date.now();
      let text = '';
      let sent = 0;
      let done = false;
      let ticker: NodeJS.Timeout | undefined;
      const finish = (cut: boolean) => {
        if (done) return;
        done = true;
        clearInterval(ticker);
        clearTimeout(giveUp);
        socket.destroy();
        resolve({ kind, cutAfterMs: cut ? Date.now() - started : null, status: parseStatus(text) });
      };
      const giveUp = setTimeout(() => finish(false), 25_000);
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => finish(true));
      socket.on('close', () => finish(true));
      socket.on('connect', () => {
        started = Date.now();
        if (kind === 'stalled body') {
          socket.write(bytes);
          return;
        }
        ticker = setInterval(() => {
          if (sent >= bytes.length || sent >= stallAt) return; // stall: keep the socket open, send nothing
          socket.write(bytes[sent++]!);
        }, 100);
      });
    });
  }

  /**
   * 1,000 connections opened together; each request is held back by the last byte of its headers
   * (so the listener can neither answer nor close any of them) until all are open.
   */
  async function thousandConnections(
    validIds: string[],
  ): Promise<{ open: number; answers: { c: Case; answer: Answer }[]; peakOpen: number }> {
    const cases: Case[] = [];
    for (let i = 0; i < 1000; i++) {
      if (i < 100) {
        const id = `evt_burst_${i}`;
        const body = eventBody(id);
        cases.push({
          kind: 'valid (burst)',
          valid: true,
          id,
          expect: [200],
          headers: signed(id, body),
          body,
        });
      } else if (i < 200) {
        const id = validIds[i % validIds.length]!;
        const body = eventBody(id);
        cases.push({
          kind: 'redelivery (burst)',
          valid: true,
          id,
          expect: [200],
          headers: signed(id, body),
          body,
        });
      } else {
        const id = `evt_bad_burst_${i}`;
        const body = eventBody(id);
        const variants: Case[] = [
          {
            kind: 'bad signature (burst)',
            valid: false,
            id,
            expect: [401],
            headers: { ...signed(id, body), 'webhook-signature': badSignature() },
            body,
          },
          {
            kind: 'stale timestamp (burst)',
            valid: false,
            id,
            expect: [401],
            headers: signed(id, body, nowSeconds() - 3_600),
            body,
          },
          {
            kind: 'malformed JSON (burst)',
            valid: false,
            id,
            expect: [400],
            headers: signed(id, '{"x":'),
            body: '{"x":',
          },
          {
            kind: 'wrong method (burst)',
            valid: false,
            id,
            expect: [405],
            method: 'PUT',
            headers: signed(id, body),
            body,
          },
        ];
        cases.push(variants[i % variants.length]!);
      }
    }
    let openNow = 0;
    let peakOpen = 0;
    interface Held {
      c: Case;
      socket: Socket;
      text: string;
      connected: boolean;
      rest: string;
      closed: Promise<void>;
    }
    const held: Held[] = [];
    await Promise.all(
      cases.map(
        (c) =>
          new Promise<void>((ready) => {
            const lines = [
              `${c.method ?? 'POST'} /hooks HTTP/1.1`,
              'Host: 127.0.0.1',
              'Connection: close',
              `Content-Length: ${Buffer.byteLength(c.body ?? '')}`,
            ];
            for (const [name, value] of Object.entries(c.headers ?? {}))
              lines.push(`${name}: ${String(value)}`);
            const bytes = rawRequest(lines, String(c.body ?? ''));
            const socket = connect(port, '127.0.0.1');
            const split = bytes.indexOf('\r\n\r\n') + 3;
            const entry: Held = {
              c,
              socket,
              text: '',
              connected: false,
              rest: bytes.slice(split),
              closed: new Promise((done) => socket.once('close', () => done())),
            };
            held.push(entry);
            socket.on('data', (chunk: Buffer) => (entry.text += chunk.toString('latin1')));
            socket.on('error', () => ready());
            socket.once('close', () => {
              if (entry.connected) openNow--;
              ready();
            });
            socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
            socket.on('connect', () => {
              entry.connected = true;
              openNow++;
              peakOpen = Math.max(peakOpen, openNow);
              // Everything up to the last byte of the headers now; the rest once every connection is open.
              socket.write(bytes.slice(0, split));
              ready();
            });
          }),
      ),
    );
    const open = held.filter((h) => h.connected && !h.socket.destroyed).length;
    for (const h of held) if (h.connected && !h.socket.destroyed) h.socket.write(h.rest);
    await Promise.all(held.map((h) => h.closed));
    return {
      open,
      peakOpen,
      answers: held.map((h) => ({
        c: h.c,
        answer: { status: parseStatus(h.text), body: h.text.split('\r\n\r\n')[1] ?? '' },
      })),
    };
  }

  it('refuses every bad delivery, prints each valid event once, and is still alive', async () => {
    const started = Date.now();
    const { cases, validIds } = buildCases();
    const hostileCount = cases.filter((c) => !c.valid).length;
    expect(hostileCount).toBeGreaterThanOrEqual(5000);

    // 50 slow-loris connections beside the main load.
    const lorisKinds = ['trickle', 'trickle then stall', 'stalled body'] as const;
    const loris = Promise.all(
      Array.from({ length: 50 }, (_, i) => slowLoris(lorisKinds[i < 25 ? 0 : i < 40 ? 1 : 2], i)),
    );

    // The main phase: 48 requests at a time over kept-alive connections (raw ones on their own).
    const results: { c: Case; answer: Answer & { retried: boolean } }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 48 }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          results.push({ c, answer: await send(c) });
        }
      }),
    );
    const lorisResults = await loris;
    agent.destroy();
    await sleep(500);

    // 1,000 connections at once.
    const burst = await thousandConnections(validIds);
    // A valid delivery that found no connection slot is sent again, as the service would.
    const resent: { c: Case; answer: Answer }[] = [];
    for (const { c, answer } of burst.answers)
      if (c.valid && answer.status === null) resent.push({ c, answer: await httpSend(c, false) });

    // Alive afterwards: one more valid event, accepted and printed.
    const finalId = 'evt_final_alive';
    const finalBody = eventBody(finalId);
    const final = await httpSend(
      {
        kind: 'final',
        valid: true,
        id: finalId,
        expect: [200],
        headers: signed(finalId, finalBody),
        body: finalBody,
      },
      false,
    );
    const alive = listener.child.exitCode === null && final.status === 200;

    const all: { c: Case; answer: Answer }[] = [
      ...results,
      ...burst.answers.filter(({ c, answer }) => !(c.valid && answer.status === null)),
      ...resent,
    ];
    const ok = (s: number | null) => s !== null && s >= 200 && s < 300;
    const okById = new Map<string, number>([[finalId, 1]]);
    for (const { c, answer } of all)
      if (ok(answer.status) && c.id) okById.set(c.id, (okById.get(c.id) ?? 0) + 1);
    const expectedPrints = [...okById.values()].reduce((a, b) => a + b, 0);
    await listener.waitForStdout((lines) => lines.length >= expectedPrints, 15_000).catch(() => undefined);
    await sleep(300);

    const hostile = all.filter(({ c }) => !c.valid);
    const accepted = hostile.filter(({ answer }) => ok(answer.status));
    const fivexx = all.filter(({ answer }) => answer.status !== null && answer.status >= 500);
    const unexpected = all
      .filter(({ c, answer }) => !c.expect.includes(answer.status))
      .map(({ c, answer }) => `${c.kind} (${c.id}): ${answer.status} ${answer.body.slice(0, 120)}`);
    const byStatus: Record<string, number> = {};
    for (const { answer } of hostile)
      byStatus[answer.status ?? 'cut'] = (byStatus[answer.status ?? 'cut'] ?? 0) + 1;

    // What the listener printed.
    const printed = listener.stdout.map(
      (line) =>
        JSON.parse(line) as {
          id: string;
          type: string;
          timestamp: string;
          duplicate: boolean;
          payload: unknown;
        },
    );
    const validSet = new Set([
      ...validIds,
      ...burst.answers.filter(({ c }) => c.valid).map(({ c }) => c.id!),
      finalId,
    ]);
    const strangers = printed.filter((e) => !validSet.has(e.id)).map((e) => e.id);
    const newById = new Map<string, number>();
    const linesById = new Map<string, number>();
    for (const e of printed) {
      linesById.set(e.id, (linesById.get(e.id) ?? 0) + 1);
      if (!e.duplicate) newById.set(e.id, (newById.get(e.id) ?? 0) + 1);
    }
    const notOnce = [...validSet]
      .filter((id) => newById.get(id) !== 1)
      .map((id) => `${id}: printed new ${newById.get(id) ?? 0} times`);
    const linesVsAnswers = [...okById]
      .filter(([id, n]) => linesById.get(id) !== n)
      .map(([id, n]) => `${id}: ${n} × 2xx, ${linesById.get(id) ?? 0} lines`);

    const lorisCut = lorisResults.filter((r) => r.cutAfterMs !== null);
    const lorisWorst = (kind: string) =>
      Math.max(0, ...lorisResults.filter((r) => r.kind === kind).map((r) => r.cutAfterMs ?? Infinity));

    const stopCode = await listener.stop();
    await sleep(200);
    const statsLine =
      listener.stderr.find((l) => /received \d+, verified \d+, rejected \d+, duplicates \d+/.test(l)) ?? '';
    const stats = /received (\d+), verified (\d+), rejected (\d+), duplicates (\d+)/.exec(statsLine);
    const answered2xx = all.filter(({ answer }) => ok(answer.status)).length + 1;

    recordFigures(SECTION, {
      'hostile requests sent': hostile.length,
      'hostile kinds': new Set(hostile.map(({ c }) => c.kind)).size,
      'hostile accepted (2xx)': accepted.length,
      'hostile printed': strangers.length,
      'hostile answers by status': Object.entries(byStatus)
        .map(([s, n]) => `${s}:${n}`)
        .join(' '),
      'answers not as expected': unexpected.length,
      '5xx answers': fivexx.length,
      'valid events (distinct ids)': validSet.size,
      'valid deliveries answered 2xx': answered2xx,
      'valid ids not printed exactly once as new': notOnce.length,
      'duplicates printed': printed.filter((e) => e.duplicate).length,
      'sends retried after a connection error': results.filter(({ answer }) => answer.retried).length,
      'slow-loris connections': lorisResults.length,
      'slow-loris cut by the listener': lorisCut.length,
      'slow-loris: slowest cut, headers (s)':
        Math.round(Math.max(lorisWorst('trickle'), lorisWorst('trickle then stall')) / 100) / 10,
      'slow-loris: slowest cut, body (s)': Math.round(lorisWorst('stalled body') / 100) / 10,
      'concurrent connections opened': burst.open,
      'concurrent connections open at peak': burst.peakOpen,
      'burst: valid resent (no slot)': resent.length,
      'listener alive afterwards': alive ? 'yes' : 'no',
      'listener stats (on Ctrl-C)': stats
        ? `received ${stats[1]}, verified ${stats[2]}, rejected ${stats[3]}, duplicates ${stats[4]}`
        : 'none',
      'wall time (s)': seconds(started),
    });

    expect(accepted.map(({ c }) => `${c.kind} (${c.id})`)).toEqual([]);
    expect(strangers).toEqual([]);
    expect(fivexx.map(({ c, answer }) => `${c.kind}: ${answer.status}`)).toEqual([]);
    expect(unexpected.slice(0, 20)).toEqual([]);
    expect(notOnce.slice(0, 20)).toEqual([]);
    expect(linesVsAnswers.slice(0, 20)).toEqual([]);
    expect(Object.keys(JSON.parse(listener.stdout[0]!))).toEqual([
      'id',
      'type',
      'timestamp',
      'duplicate',
      'payload',
    ]);
    // Slow clients are cut off by the listener (5 s for headers, 10 s for the request, checked each second).
    expect(lorisCut).toHaveLength(50);
    expect(lorisResults.filter((r) => r.status !== null && r.status < 400)).toEqual([]);
    expect(burst.peakOpen).toBeGreaterThanOrEqual(990);
    expect(burst.open).toBeGreaterThanOrEqual(990);
    expect(alive).toBe(true);
    expect(stopCode).toBe(0);
    expect(stats && Number(stats[2])).toBe(answered2xx);
  });
});
