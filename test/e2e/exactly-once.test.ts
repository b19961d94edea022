/**
 * Exactly once, honest outcomes, and an interrupt that stops: the built
 * binary against a real sandbox (and a server that is not the service),
 * re-run the ways a user or a CI job re-runs it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, derivedIdempotencyKey } from '../../src/core/client/idempotency.js';
import { BIN, ROOT, cleanEnv, runCli, tempDir } from '../helpers/cli.js';
import { startSandboxProcess, type SandboxProcess } from '../helpers/sandbox.js';

const BASE = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
const work = tempDir('sign-cli-once-');

function envelope(name: string, i: number): Record<string, unknown> {
  const { webhook_url: _w, ...rest } = structuredClone(BASE);
  return { ...rest, title: `Once ${name} ${i}`, contract_id: `ONCE-${name}-${i}` };
}

function ndjson(name: string, n: number): string {
  const path = join(work, `${name}.ndjson`);
  writeFileSync(
    path,
    `${Array.from({ length: n }, (_, i) => JSON.stringify(envelope(name, i + 1))).join('\n')}\n`,
  );
  return path;
}

function jsonFile(name: string): string {
  const path = join(work, `${name}.json`);
  writeFileSync(path, JSON.stringify(envelope(name, 1), null, 2));
  return path;
}

let sandbox: SandboxProcess;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--rate-limit', '6000'] });
  env = { SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: sandbox.apiKey };
});
afterAll(async () => {
  await sandbox?.stop();
});

const state = () =>
  sandbox.control<{ envelopes: number; created: number; requests: number }>('/_sandbox/state');

describe('the same input is never created twice', () => {
  it('re-runs after success, with another spelling of the base URL, without the journal: still 50; --new makes 100', async () => {
    const file = ndjson('fifty', 50);
    const stateDir = tempDir('sign-cli-state-');
    const run = (extra: Record<string, string>, ...args: string[]) =>
      runCli(['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000', '--json', ...args], {
        env: { ...env, SIGN_STATE_DIR: stateDir, ...extra },
        timeoutMs: 60_000,
      });
    const before = (await state()).envelopes;

    const first = await run({});
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('created 50 in test, already created 0, failed 0');
    expect((await state()).envelopes - before).toBe(50);

    // The same command again: the journal answers, nothing is sent.
    const requests = (await state()).requests;
    const second = await run({});
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      'created 0 in test, already created 50, failed 0; nothing was sent (--new creates them again)',
    );
    const lines = second.stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            status: string;
            already_created: boolean;
            skipped: boolean;
            envelope: { id: string };
          },
      );
    expect(lines).toHaveLength(50);
    expect(
      lines.every(
        (l) => l.status === 'created' && l.already_created && l.skipped && /^env_/.test(l.envelope.id),
      ),
    ).toBe(true);
    expect((await state()).requests).toBe(requests + 1);

    // Another spelling of the base URL (another journal) and then no journal at all (another machine):
    // the keys are derived from the bodies, so the service replays its first answers.
    const localhost = await run({ SIGN_BASE_URL: sandbox.baseUrl.replace('127.0.0.1', 'localhost') });
    expect(localhost.code).toBe(0);
    expect(localhost.stderr).toContain('created 0 in test, already created 50, failed 0');
    rmSync(stateDir, { recursive: true, force: true });
    const elsewhere = await run({});
    expect(elsewhere.code).toBe(0);
    // Requests went out this time: the summary says nothing new was created, not that nothing was sent.
    expect(elsewhere.stderr).toContain(
      'created 0 in test, already created 50, failed 0; nothing new was created (--new creates them again)',
    );
    expect(JSON.parse(elsewhere.stdout.split('\n')[0]!)).toMatchObject({
      status: 'created',
      already_created: true,
      http_status: 201,
    });
    expect((await state()).envelopes - before).toBe(50);

    // Deliberately again: fresh keys, 50 more.
    const again = await run({}, '--new');
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('created 50 in test, already created 0, failed 0');
    expect((await state()).envelopes - before).toBe(100);
  });

  it('a single file run twice says "already created <id>" and names --new; --new creates a second', async () => {
    const file = jsonFile('single');
    const stateDir = tempDir('sign-cli-state-');
    const before = (await state()).envelopes;
    const first = await runCli(['envelopes', 'create', '-f', file], {
      env: { ...env, SIGN_STATE_DIR: stateDir },
    });
    expect(first.code).toBe(0);
    const id = /created (env_\w+)/.exec(first.stdout)?.[1];
    const second = await runCli(['envelopes', 'create', '-f', file], {
      env: { ...env, SIGN_STATE_DIR: stateDir },
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(
      `already created ${id} in test by an earlier run; not sent again (--new creates another)`,
    );
    // From a machine that never saw the journal, the service itself recognises the body.
    const elsewhere = await runCli(['envelopes', 'create', '-f', file], { env });
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stdout).toMatch(
      new RegExp(`already created ${id} in test: .*the service recognised it.*--new creates another`),
    );
    expect((await state()).envelopes - before).toBe(1);
    const fresh = await runCli(['envelopes', 'create', '-f', file, '--new'], {
      env: { ...env, SIGN_STATE_DIR: stateDir },
    });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toMatch(/✓ created env_\w+/);
    expect((await state()).envelopes - before).toBe(2);
  });
});

describe('--idempotency-key is always the key sent', () => {
  it('after a run whose answer was lost, refuses another key (exit 2, naming the key to pass); that key resumes it', async () => {
    const file = jsonFile('lost');
    const stateDir = tempDir('sign-cli-state-');
    const derived = derivedIdempotencyKey(contentHash(envelope('lost', 1)));
    const before = (await state()).envelopes;
    await sandbox.control('/_sandbox/faults', { drop_after_commit: 1 });
    const lost = await runCli(['envelopes', 'create', '-f', file, '--retries', '0'], {
      env: { ...env, SIGN_STATE_DIR: stateDir },
    });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain('may or may not exist');
    expect((await state()).envelopes - before).toBe(1);

    const requests = (await state()).requests;
    const refused = await runCli(['envelopes', 'create', '-f', file, '--idempotency-key', 'my-own-key'], {
      env: { ...env, SIGN_STATE_DIR: stateDir },
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `was sent by an earlier run with Idempotency-Key ${derived} and may exist`,
    );
    expect(refused.stderr).toContain(`pass --idempotency-key ${derived}`);
    expect(refused.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    expect((await state()).requests).toBe(requests + 1);

    const resumed = await runCli(
      ['envelopes', 'create', '-f', file, '--idempotency-key', derived, '--verbose'],
      { env: { ...env, SIGN_STATE_DIR: stateDir } },
    );
    expect(resumed.code).toBe(0);
    expect([...resumed.stderr.matchAll(/> idempotency-key: (\S+)/g)].map((m) => m[1])).toEqual([derived]);
    expect((await state()).envelopes - before).toBe(1);
  });

  it('after a run the service refused (403), sends exactly the key given', async () => {
    const file = jsonFile('refused');
    const stateDir = tempDir('sign-cli-state-');
    const readOnly = await sandbox.control<{ key: string }>('/_sandbox/keys', {
      name: 'read-only',
      scopes: ['envelopes:read'],
    });
    const forbidden = await runCli(['envelopes', 'create', '-f', file], {
      env: { ...env, SIGN_API_KEY: readOnly.key, SIGN_STATE_DIR: stateDir },
    });
    expect(forbidden.code).toBe(3);
    const key = `mine-${Date.now()}`;
    const result = await runCli(
      ['envelopes', 'create', '-f', file, '--idempotency-key', key, '--verbose', '--json'],
      { env: { ...env, SIGN_STATE_DIR: stateDir } },
    );
    expect(result.code).toBe(0);
    expect([...result.stderr.matchAll(/> idempotency-key: (\S+)/g)].map((m) => m[1])).toEqual([key]);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'created', idempotency_key: key });
  });
});

describe('no false success against a server that is not the service', () => {
  let html: Server;
  let htmlUrl: string;
  beforeAll(async () => {
    html = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Welcome</title></head><body>It works!</body></html>');
    });
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    html.closeAllConnections();
    await new Promise((resolve) => html.close(resolve));
  });

  it('create, get, download, audit --verify, keys list and doctor all fail (exit 1), and download writes nothing', async () => {
    const htmlEnv = { SIGN_BASE_URL: htmlUrl, SIGN_API_KEY: 'sk_test_NotTheServiceAtAll0000' };
    const create = await runCli(['envelopes', 'create', '-f', jsonFile('html')], { env: htmlEnv });
    expect(create.code).toBe(1);
    expect(create.stdout).toBe('');
    expect(create.stderr).toMatch(
      /HTTP 200 \(text\/html; charset=utf-8\) with "<!doctype html>.*not an envelope/,
    );
    expect(create.stderr).toContain('check --base-url');
    expect(create.stderr).toMatch(
      /Idempotency-Key sc1-[0-9a-f]{48}: sending it again with that key cannot create a duplicate/,
    );
    expect(create.stderr).toContain('re-run the same command to finish without duplicates');
    // Under --new a re-run of the same command draws fresh keys: the hints say so and name no re-run that would duplicate.
    const fresh = await runCli(['envelopes', 'create', '-f', jsonFile('html-new'), '--new'], {
      env: htmlEnv,
    });
    expect(fresh.code).toBe(1);
    const key =
      /Idempotency-Key ([0-9a-f-]{36}): sending it again with that key cannot create a duplicate/.exec(
        fresh.stderr,
      )?.[1];
    expect(key, fresh.stderr).toBeDefined();
    expect(fresh.stderr).toContain('re-run the same command without --new to finish without duplicates');
    expect(fresh.stderr).not.toMatch(/re-running the same command cannot/);

    const get = await runCli(['envelopes', 'get', 'env_1'], { env: htmlEnv });
    expect(get.code).toBe(1);
    expect(get.stdout).toBe('');

    const pdf = join(tempDir(), 'signed.pdf');
    const download = await runCli(['envelopes', 'download', 'env_1', '-o', pdf], { env: htmlEnv });
    expect(download.code).toBe(1);
    expect(download.stderr).toContain('not a PDF');
    expect(existsSync(pdf)).toBe(false);
    expect(existsSync(`${pdf}.part`)).toBe(false);

    const audit = await runCli(['envelopes', 'audit', 'env_1', '--verify'], { env: htmlEnv });
    expect(audit.code).toBe(1);
    expect(audit.stderr).toContain('not an audit trail');

    const keys = await runCli(['keys', 'list'], { env: htmlEnv });
    expect(keys.code).toBe(1);

    const doctor = await runCli(['doctor', '--json'], { env: htmlEnv });
    expect(doctor.code).toBe(1);
    const checks = JSON.parse(doctor.stdout) as { check: string; status: string }[];
    expect(checks.find((c) => c.check === 'service')).toMatchObject({ status: 'fail' });
    expect(checks.find((c) => c.check === 'accepted')).toMatchObject({ status: 'fail' });
  });

  it('the real sandbox passes the same doctor check', async () => {
    const doctor = await runCli(['doctor', '--json'], { env });
    const checks = JSON.parse(doctor.stdout) as { check: string; status: string; detail: string }[];
    expect(checks.find((c) => c.check === 'service')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('HTTP 401'),
    });
  });
});

describe('Ctrl-C stops sending at once', () => {
  it('during 300 envelopes at --rate 600 against a 200 ms service: only requests in flight land; exit 130; the re-run makes exactly 300', async () => {
    const file = ndjson('interrupted', 300);
    const stateDir = tempDir('sign-cli-state-');
    const before = (await state()).envelopes;
    await sandbox.control('/_sandbox/faults', { latency_ms: 200 });
    try {
      // --verbose traces each attempt as it is sent ("> POST") and each answer ("< HTTP"), in order on stderr.
      const child = spawn(
        process.execPath,
        [BIN, 'envelopes', 'create', '--ndjson', '-f', file, '--rate', '600', '--json', '--verbose'],
        {
          env: cleanEnv({ ...env, SIGN_STATE_DIR: stateDir }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
      let seen = 0;
      // A run that ends before its 20th line says why, instead of leaving this test to its timeout.
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', () => ++seen === 20 && resolve());
        child.on('close', (code) =>
          reject(new Error(`create exited ${code} after ${seen} lines: ${stderr.slice(-800)}`)),
        );
      });
      child.kill('SIGINT');
      // Counted from when the run took the signal (its handler says so, then stops the pacer at
      // once), not from when it was sent: on a loaded machine the signal can wait a pacer tick or
      // two, and a request sent meanwhile was sent before Ctrl-C took effect.
      const deadline = Date.now() + 60_000;
      while (!stderr.includes('interrupting') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 5));
      const atSignal = (await state()).created;
      expect(await exit).toBe(130);
      await new Promise((r) => setTimeout(r, 400)); // anything still arriving would commit after 200 ms
      const landedAfter = (await state()).created - atSignal;
      // Nothing is sent once the signal is taken: no attempt is traced after "interrupting…".
      const [before, after] = [
        stderr.slice(0, stderr.indexOf('interrupting')),
        stderr.slice(stderr.indexOf('interrupting')),
      ];
      expect(after).not.toMatch(/^> POST /m);
      // What lands afterwards was on the wire then: sent, not yet answered. (One request every
      // 101 ms, each taking 200 ms: about 2; more on a loaded machine, where answers come late.)
      const inFlight = (before.match(/^> POST /gm) ?? []).length - (before.match(/^< HTTP /gm) ?? []).length;
      expect(landedAfter).toBeLessThanOrEqual(inFlight);
      expect(stderr).toContain('the rest not sent; re-run the same command to finish without duplicates');
    } finally {
      await sandbox.control('/_sandbox/faults', { latency_ms: 0 });
    }
    const rerun = await runCli(['envelopes', 'create', '--ndjson', '-f', file, '--rate', '6000'], {
      env: { ...env, SIGN_STATE_DIR: stateDir },
      timeoutMs: 60_000,
    });
    expect(rerun.code).toBe(0);
    expect((await state()).envelopes - before).toBe(300);
  });
});

describe('a stopped service', () => {
  it('says nothing was sent when every attempt was refused', async () => {
    const result = await runCli(
      ['envelopes', 'create', '-f', jsonFile('refused-connection'), '--retries', '1'],
      {
        env: { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_API_KEY: sandbox.apiKey },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /could not connect to http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED.*\); nothing was sent \(2 attempts\)/,
    );
    expect(result.stderr).not.toContain('may or may not exist');
  });

  it('shows each retry with --verbose as it happens', async () => {
    const result = await runCli(
      ['envelopes', 'create', '-f', jsonFile('verbose-refused'), '--retries', '2', '--verbose'],
      {
        env: { SIGN_BASE_URL: 'http://127.0.0.1:9', SIGN_API_KEY: sandbox.apiKey },
      },
    );
    expect(result.code).toBe(1);
    expect(
      result.stderr.match(/… attempt \d failed \(ECONNREFUSED: .*\); retrying in \d+\.\d s \(backoff\)/g),
    ).toHaveLength(2);
  });
});

describe('keys add --stdin', () => {
  it('reads exactly one line', async () => {
    const configDir = tempDir('sign-cli-config-');
    const result = await runCli(['keys', 'add', 'one', '--stdin', '--offline'], {
      env: { SIGN_CONFIG_DIR: configDir },
      input: 'sk_test_FirstLineOnly000000\nsk_test_SecondLine0000000\n',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.one.api_key).toBe(
      'sk_test_FirstLineOnly000000',
    );
  });
});
