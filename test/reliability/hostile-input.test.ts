/**
 * A hostile world, the text and time part, on the built binary: text that
 * tries to look like output (a signer's name carrying a fake event line,
 * escape sequences that hide or recolour, a bidi override), a server that
 * trickles its answer a byte at a time, and one that answers gigabytes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { startListenerProcess } from '../helpers/listener.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';
import { recordFigures } from './figures.js';
import { baseEnvelope, seconds, spawnCli, sleep } from './support.js';

/** A name that, printed raw, would add a fake event line after the real one. */
const FORGED = 'Omar\n2026-11-23 06:43:00Z  envelope.completed         env_FORGEDFORGEDFORGED0  completed';
/** Conceal, black on black, a bidi override: printed raw, they hide or reverse what follows. */
const HIDING = 'Layla\u001b[8m hidden\u001b[30;40m dark\u202eesrever';
const RAW_ESCAPE = /\u001b\[(?:8|30;40)m|\u202e/;
/** A line that claims an envelope.completed event (what the forged name tries to print). */
const FAKE_EVENT = /^\S*\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+envelope\.completed\s+env_FORGED/m;

let sandbox: SandboxProcess;
const servers: Server[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess();
});
afterAll(async () => {
  await sandbox?.stop();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A local HTTP server answering every request with `handle`; its base URL. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Peak resident memory (MB) of a CLI run, from a preload that records it at exit. */
function rssProbe(): { env: Record<string, string>; peakMb: () => number } {
  const dir = tempDir('sign-cli-rss-');
  const script = join(dir, 'rss.cjs');
  const out = join(dir, 'rss.txt');
  writeFileSync(
    script,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${script}` },
    peakMb: () => Math.round(Number(readFileSync(out, 'utf8')) / 1024),
  };
}

describe('text that tries to look like output', () => {
  it('is refused in envelopes (exit 2, naming the field) and shown escaped, one line per event, wherever it comes from', async () => {
    const dir = tempDir();
    let refused = 0;
    for (const [name, envelope] of [
      [
        'line break',
        {
          ...baseEnvelope(),
          signers: [{ name: FORGED, email: 'omar@example.com', channel: 'email', order: 1 }],
        },
      ],
      ['escape sequences', { ...baseEnvelope(), title: HIDING }],
      ['bidi override', { ...baseEnvelope(), contract_id: 'CTR\u202e1234' }],
    ] as const) {
      const file = join(dir, `${name.replace(/ /g, '-')}.json`);
      writeFileSync(file, JSON.stringify(envelope));
      const validate = await runCli(['envelopes', 'validate', file]);
      const create = await runCli(['envelopes', 'create', '-f', file], {
        env: { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey },
      });
      expect([name, validate.code, create.code]).toEqual([name, 2, 2]);
      expect(create.stderr).toMatch(
        /(signers\[0\]\.name|title|contract_id): contains (a line break|an escape character|a right-to-left override)/,
      );
      expect(create.stderr).not.toMatch(RAW_ESCAPE);
      refused++;
    }

    // A delivery (anyone can send one) carrying the forged name and the hiding sequences, to a listener whose colour is on.
    const secretFile = join(dir, 'secret.txt');
    writeFileSync(secretFile, `${sandbox.webhookSecret}\n`);
    const listener = await startListenerProcess(['--secret-file', secretFile], {
      FORCE_COLOR: '1',
      NO_COLOR: undefined,
    });
    try {
      for (const name of [FORGED, HIDING]) {
        const sent = await runCli([
          'webhooks',
          'trigger',
          'signer.signed',
          '--to',
          listener.url,
          '--secret-file',
          secretFile,
          '--set',
          `data.signer.name=${JSON.stringify(name)}`,
          '--set',
          'data.envelope_id=env_REAL',
        ]);
        expect(sent.code).toBe(0);
      }
      await listener.waitForStdout((lines) => lines.filter((l) => l.includes('signer.signed')).length >= 2);
    } finally {
      await listener.stop();
    }
    const listened = listener.stdout.join('\n');

    // A service (not ours) answering with the same names: get, and watch in a pipe.
    const envelope = {
      id: 'env_HOSTILE',
      status: 'completed',
      title: HIDING,
      contract_id: 'CTR-1',
      created_at: '2026-11-23T06:40:00Z',
      signers: [
        { id: 'sgn_1', name: FORGED, channel: 'email', email: 'o@example.com', status: 'signed', order: 1 },
      ],
    };
    const hostile = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(envelope));
    });
    const env = {
      SIGN_BASE_URL: hostile,
      SIGN_API_KEY: 'sk_test_ForTheHostileService00',
      FORCE_COLOR: '1',
      NO_COLOR: undefined,
    };
    const get = await runCli(['envelopes', 'get', 'env_HOSTILE'], { env });
    const watch = await runCli(['envelopes', 'watch', 'env_HOSTILE'], { env });
    expect([get.code, watch.code]).toEqual([0, 0]);

    const outputs = { listen: listened, get: get.stdout, watch: watch.stdout };
    const forged = Object.values(outputs).filter((text) => FAKE_EVENT.test(text)).length;
    const raw = Object.values(outputs).filter((text) => RAW_ESCAPE.test(text)).length;
    expect(forged).toBe(0);
    expect(raw).toBe(0);
    // One event, one line: each delivery printed exactly one line, the forged name escaped in it.
    expect(listener.stdout.filter((l) => l.includes('signer.signed'))).toHaveLength(2);
    expect(listened).toContain('Omar\\n2026-11-23 06:43:00Z');
    expect(listened).toContain('\\u001b[8m hidden');
    expect(listened).toContain('\u001b[32m'); // sign-cli's own colour still reaches the terminal
    expect(
      watch.stdout
        .trim()
        .split('\n')
        .filter((l) => /^\d{4}-/.test(l)),
    ).toHaveLength(watch.stdout.trim().split('\n').length);
    recordFigures('hostile', {
      'forged inputs refused (exit 2)': `${refused}/3`,
      'forged event lines shown': forged,
      'raw escape sequences shown': raw,
    });
  }, 60_000);
});

describe('a server that takes its time', () => {
  it('one byte every 2 s: --timeout 3 ends the attempt at 3 s; a SIGTERM ends the run within the timeout', async () => {
    // Timed from when the request reaches the server, not from the spawn: on a loaded machine a
    // process may take a second to start, and neither bound is about start-up.
    const arrivals: number[] = [];
    const trickle = await serve((req, res) => {
      arrivals.push(Date.now());
      req.resume();
      res.writeHead(201, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 2_000);
      res.on('close', () => clearInterval(timer));
    });
    const arrived = async (count: number) => {
      while (arrivals.length < count) await sleep(20);
      return arrivals[count - 1]!;
    };
    const dir = tempDir();
    const file = join(dir, 'envelope.json');
    writeFileSync(file, JSON.stringify({ ...baseEnvelope(), contract_id: 'HOSTILE-TRICKLE' }));
    const env = {
      SIGN_BASE_URL: trickle,
      SIGN_API_KEY: 'sk_test_ForTheTrickleService000',
      SIGN_STATE_DIR: tempDir(),
    };
    const once = await runCli(['envelopes', 'create', '-f', file, '--timeout', '3', '--retries', '0'], {
      env,
      timeoutMs: 60_000,
    });
    const onceSeconds = seconds(await arrived(1));
    expect(once.code).toBe(1);
    expect(once.stderr).toMatch(/no complete answer within 3 s/);
    expect(onceSeconds).toBeLessThan(6);

    // With retries, stopped by a CI's SIGTERM one second into its request: what is in flight gets at most the timeout.
    const run = spawnCli(['envelopes', 'create', '-f', file, '--timeout', '3'], { env, timeoutMs: 60_000 });
    await sleep(Math.max(0, (await arrived(2)) + 1_000 - Date.now()));
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    const afterSignal = seconds(signalled);
    expect(stopped.code).toBe(130);
    expect(afterSignal).toBeLessThan(6);
    recordFigures('hostile', {
      'trickle, --timeout 3 --retries 0: seconds from request to exit 1': onceSeconds,
      'trickle, SIGTERM 1 s into the request: seconds to exit 130': afterSignal,
    });
  }, 60_000);
});

describe('a server that answers gigabytes', () => {
  it('a 2 GB answer to `envelopes get` is refused (exit 1) in bounded memory; a 2 GB signed copy is refused before it is read', async () => {
    const huge = await serve((req, res) => {
      if (req.url?.endsWith('/signed-copy')) {
        res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(2 * 1024 ** 3) });
        res.write('%PDF-1.7\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 2048) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = 4096));
      pump();
    });
    const probe = rssProbe();
    const env = { SIGN_BASE_URL: huge, SIGN_API_KEY: 'sk_test_ForTheHugeService000000', ...probe.env };
    const get = await runCli(['envelopes', 'get', 'env_1', '--retries', '0'], { env, timeoutMs: 60_000 });
    expect(get.code).toBe(1);
    expect(get.stderr).toContain('the answer is larger than 16 MiB');
    const peak = probe.peakMb();
    expect(peak).toBeLessThan(300);
    const pdf = join(tempDir(), 'signed.pdf');
    const download = await runCli(['envelopes', 'download', 'env_1', '-o', pdf, '--retries', '0'], {
      env,
      timeoutMs: 60_000,
    });
    expect(download.code).toBe(1);
    expect(download.stderr).toContain('the answer is larger than 512 MiB (it declares 2147483648 bytes)');
    recordFigures('hostile', { 'peak RSS under a 2 GB answer (MB)': peak });
  }, 60_000);
});
