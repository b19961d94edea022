/**
 * `webhooks test`, in process, against real receivers on loopback: reference
 * receivers built on independent libraries pass every check; receivers
 * seeded with one usual bug each fail exactly the checks that bug breaks.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { newEd25519KeyPair } from '../../../../src/core/webhooks/ed25519.js';
import { example, workspace } from '../../../helpers/envelopes.js';
import {
  runCommand,
  startListener,
  startTestSandbox,
  type TestListener,
} from '../../../helpers/in-process.js';
import { tempDir } from '../../../helpers/paths.js';
import { startReceiver } from '../../../helpers/receiver.js';
import {
  startTestReceiver,
  type Fault,
  type ReceiverOptions,
  type TestReceiver,
} from '../../../helpers/webhook-receivers.js';
import { SECRET } from '../../../helpers/webhook-events.js';

const ALL = [
  'accepts-events',
  'rejects-altered-body',
  'rejects-wrong-secret',
  'rejects-bad-signature',
  'rejects-stale-timestamp',
  'tolerates-redelivery',
  'survives-rotation',
  'ignores-unknown',
  'tolerates-order',
  'answers-burst',
  'bounded-body',
];

interface Card {
  url: string;
  scheme: string;
  passed: number;
  failed: number;
  skipped: number;
  checks: { id: string; verdict: string; got: string; attempts: { label: string; status?: number }[] }[];
}

const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function receiver(options: Partial<ReceiverOptions> = {}): Promise<TestReceiver> {
  const started = await startTestReceiver({ secret: SECRET, ...options });
  opened.push(started);
  return started;
}

/**
 * Runs `webhooks test <url> --json` with the service's 10 s answer timeout: a guard a working receiver
 * meets on any machine (a 2 s one failed the reference receivers' burst on a loaded core). The seeded
 * slow receiver never answers once it queues, so it fails the burst whatever the timeout.
 */
async function grade(
  url: string,
  args: string[] = [],
  env: Record<string, string> = { SIGN_WEBHOOK_SECRET: SECRET },
) {
  const result = await runCommand(['webhooks', 'test', url, '--answer-timeout', '10', '--json', ...args], {
    env,
  });
  const card = result.stdout ? (JSON.parse(result.stdout) as Card) : undefined;
  return { ...result, card };
}

const failing = (card: Card | undefined) => card!.checks.filter((c) => c.verdict === 'fail').map((c) => c.id);

describe('webhooks test: reference receivers pass every check', () => {
  it('one built on the standardwebhooks package', async () => {
    const r = await receiver();
    const { code, card, stderr } = await grade(r.url);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(card!.checks.map((c) => c.id)).toEqual(ALL);
    expect(card).toMatchObject({ passed: 11, failed: 0, skipped: 0, scheme: 'standard' });
    // The receiver really acted on the valid deliveries: 13 types, then the rest.
    expect(r.handled).toContain('envelope.voided');
    expect(card!.checks.find((c) => c.id === 'rejects-wrong-secret')!.attempts.map((a) => a.status)).toEqual([
      200, 401,
    ]);
    expect(card!.checks.find((c) => c.id === 'bounded-body')!.attempts[0]!.status).toBe(413);
  });

  it("one built on svix's Webhook", async () => {
    const r = await receiver({ library: 'svix' });
    const { code, card } = await grade(r.url);
    expect(code).toBe(0);
    expect(failing(card)).toEqual([]);
  });

  it("one built on stripe's constructEvent, with --scheme stripe", async () => {
    const r = await receiver({ library: 'stripe', secret: 'whsec_stripe_receiver' });
    const { code, card } = await grade(
      r.url,
      ['--scheme', 'stripe', '--secret', 'whsec_stripe_receiver'],
      {},
    );
    expect(code).toBe(0);
    expect(card).toMatchObject({ scheme: 'stripe', passed: 11, failed: 0 });
  });

  it('a GitHub-style HMAC receiver, with --scheme hmac: no timestamp, one signature, so two checks are skipped', async () => {
    const r = await receiver({
      library: 'hmac',
      secret: 'plain-secret',
      signatureHeader: 'X-Hub-Signature-256',
    });
    const dir = tempDir();
    writeFileSync(join(dir, 'secret'), 'plain-secret\n');
    const { code, card } = await grade(r.url, [
      '--scheme',
      'hmac',
      '--signature-header',
      'X-Hub-Signature-256',
      '--secret-file',
      join(dir, 'secret'),
    ]);
    expect(code).toBe(0);
    expect(card).toMatchObject({ passed: 9, failed: 0, skipped: 2 });
    expect(card!.checks.filter((c) => c.verdict === 'skip').map((c) => [c.id, c.got])).toEqual([
      ['rejects-stale-timestamp', 'skipped: the hmac scheme signs no timestamp'],
      ['survives-rotation', 'skipped: the hmac scheme carries one signature'],
    ]);
  });

  it('a receiver behind webhooks listen --forward-to, and listen alone with an Ed25519 public key', async () => {
    const r = await receiver();
    const listener: TestListener = await startListener(['--forward-to', r.url], {
      SIGN_WEBHOOK_SECRET: SECRET,
    });
    opened.push({ close: () => listener.stop() });
    const behind = await grade(listener.url);
    expect(behind.code).toBe(0);
    expect(failing(behind.card)).toEqual([]);
    expect(r.handled.length).toBeGreaterThan(13);

    const { secretKey, publicKey } = newEd25519KeyPair();
    const ed = await startListener([], { SIGN_WEBHOOK_SECRET: publicKey });
    opened.push({ close: () => ed.stop() });
    const graded = await grade(ed.url, [], { SIGN_WEBHOOK_SECRET: secretKey });
    expect(graded.code).toBe(0);
    expect(graded.card).toMatchObject({ passed: 11, failed: 0 });
  });
});

describe("the sandbox's own deliveries", () => {
  it('verify in both reference receivers', async () => {
    const sandbox = await startTestSandbox();
    opened.push({ close: () => sandbox.stop() });
    const work = workspace();
    for (const library of ['standardwebhooks', 'svix'] as const) {
      const r = await receiver({ library, secret: sandbox.webhookSecret });
      const file = work.write(`${library}.json`, {
        ...example(),
        contract_id: `REF-${library}`,
        webhook_url: r.url,
      });
      expect((await runCommand(['envelopes', 'create', '-f', file], { env: sandbox.env })).code).toBe(0);
      const deadline = Date.now() + 60_000;
      while (!r.handled.includes('envelope.completed') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(r.handled).toEqual([
        'envelope.created',
        'envelope.sent',
        'signer.notified',
        'signer.viewed',
        'signer.verified',
        'signer.signed',
        'signer.notified',
        'signer.viewed',
        'signer.signed',
        'envelope.completed',
      ]);
    }
  });
});

describe('webhooks test: each seeded bug fails its check and passes the rest', () => {
  const cases: [Fault, string[]][] = [
    ['fails-on-voided', ['accepts-events']],
    ['dedupes-before-verifying', ['rejects-altered-body']],
    // Not checking the signature lets every forged signature in: a wrong secret and an altered body alike.
    ['accepts-any-signature', ['rejects-altered-body', 'rejects-wrong-secret']],
    ['signature-optional', ['rejects-bad-signature']],
    ['skips-timestamp', ['rejects-stale-timestamp']],
    ['fails-on-repeat', ['tolerates-redelivery']],
    ['first-signature-only', ['survives-rotation']],
    ['fails-on-unknown-type', ['ignores-unknown']],
    ['fails-after-completed', ['tolerates-order']],
    ['slow-under-burst', ['answers-burst']],
    ['hangs-on-large-body', ['bounded-body']],
  ];
  for (const [fault, fails] of cases) {
    it(`${fault} fails ${fails.join(' and ')}`, async () => {
      const r = await receiver({ fault });
      const { code, card } = await grade(r.url);
      expect(failing(card)).toEqual(fails);
      expect(card!.passed).toBe(ALL.length - fails.length);
      expect(code).toBe(1);
    });
  }

  it('every check is failed by one of the seeded receivers', () => {
    expect(new Set(cases.flatMap(([, fails]) => fails))).toEqual(new Set(ALL));
  });
});

describe('webhooks test: the report and the exit codes', () => {
  it("writes JUnit XML of the schema's shape: counts that match, a failure per failing check, its message saying what came back", async () => {
    const r = await receiver({ fault: 'accepts-any-signature' });
    const file = join(tempDir(), 'webhooks-test.xml');
    const { code } = await grade(r.url, ['--junit', file]);
    expect(code).toBe(1);
    const xml = readFileSync(file, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (name) => name === 'testcase',
    }).parse(xml);
    const suite = parsed.testsuites.testsuite;
    expect(parsed.testsuites).toMatchObject({ tests: '11', failures: '2', errors: '0', skipped: '0' });
    expect(suite).toMatchObject({
      tests: '11',
      failures: '2',
      errors: '0',
      skipped: '0',
      package: 'sign-cli',
    });
    expect(suite.hostname).toBeTruthy();
    expect(suite.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const cases = suite.testcase as {
      name: string;
      classname: string;
      time: string;
      failure?: { message: string; type: string };
    }[];
    expect(cases).toHaveLength(11);
    expect(cases.every((c) => /^\d+\.\d{3}$/.test(c.time))).toBe(true);
    const failures = cases.filter((c) => c.failure);
    expect(failures.map((c) => c.classname)).toEqual([
      'webhooks-test.rejects-altered-body',
      'webhooks-test.rejects-wrong-secret',
    ]);
    expect(failures[1]!.failure!.message).toBe('expected 4xx, never 2xx; got another secret → 200');
    expect(failures[1]!.failure!.type).toBe('rejects-wrong-secret');
  });

  it('prints a scorecard on a terminal, with why each check matters', async () => {
    const r = await receiver({ fault: 'skips-timestamp' });
    const result = await runCommand(
      ['webhooks', 'test', r.url, '--only', 'rejects-stale-timestamp', '--only', 'accepts-events'],
      {
        env: { SIGN_WEBHOOK_SECRET: SECRET },
        tty: true,
        columns: 250,
      },
    );
    expect(result.code).toBe(1);
    const lines = result.stdout.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
    expect(lines[0]).toMatch(/^CHECK\s+SENT\s+EXPECTED\s+GOT\s+VERDICT\s+WHY IT MATTERS$/);
    expect(lines[1]).toMatch(/^accepts each event .* 13 × 200 .* pass/);
    expect(lines[2]).toMatch(
      /^rejects a stale or future timestamp .*4xx, never 2xx .* 360 s old → 200; 360 s ahead → 200 .*FAIL .*replayed forever/,
    );
    expect(lines.at(-2)).toMatch(
      /^1 passed, 1 failed in \d+\.\d s: http:\/\/127\.0\.0\.1:\d+\/webhooks \(standard scheme\)$/,
    );
  });

  it('exit 3 when nothing answers at the URL, and nothing else is tried', async () => {
    const port = await closedPort();
    const result = await runCommand(['webhooks', 'test', `http://127.0.0.1:${port}/hooks`], {
      env: { SIGN_WEBHOOK_SECRET: SECRET },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /could not reach http:\/\/127\.0\.0\.1:\d+\/hooks: connect ECONNREFUSED 127\.0\.0\.1:\d+ .*is the receiver running/,
    );
    expect(result.stdout).toBe('');
  });

  it('exit 3 when the receiver takes connections and never answers: no check waits more than once', async () => {
    // A real TCP server that accepts and reads, and never writes a byte back.
    let requests = 0;
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        requests += chunk.toString('latin1').match(/^POST \/hooks HTTP\/1\.1\r$/gm)?.length ?? 0;
      });
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    opened.push({
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          silent.close(() => resolve());
        }),
    });
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}/hooks`;
    const file = join(tempDir(), 'silent.xml');
    const { code, stdout, stderr } = await grade(url, [
      '--burst',
      '3',
      '--junit',
      file,
      '--answer-timeout',
      '2',
    ]);
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /no answer from http:\/\/127\.0\.0\.1:\d+\/hooks: it took the connections of 13 deliveries and answered none within 2 s .*answer each delivery within the answer timeout/,
    );
    // The first check's first delivery, then each other check's first at once (the burst's 3 at once):
    // every check waited once, where it used to send all 41 deliveries one after the other.
    expect(requests).toBe(1 + 9 + 3);
    const suites = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      readFileSync(file, 'utf8'),
    ).testsuites;
    expect(suites.testsuite.testcase.error.message).toMatch(/answered none within 2 s/);
  });

  it('exit 1 naming every check a delivery of which went unanswered; the others graded as usual', async () => {
    const r = await receiver({ fault: 'hangs-on-signed' });
    const { code, card } = await grade(r.url, ['--burst', '5', '--answer-timeout', '2']);
    expect(code).toBe(1);
    const unanswered = [
      'accepts-events',
      'tolerates-redelivery',
      'survives-rotation',
      'ignores-unknown',
      'tolerates-order',
    ];
    expect(failing(card)).toEqual(unanswered);
    for (const check of card!.checks.filter((c) => c.verdict === 'fail'))
      expect([check.id, check.got]).toEqual([check.id, expect.stringMatching(/→ no answer within 2 s/)]);
    expect(card!.checks[0]!.got).toMatch(
      /^signer\.signed → no answer within 2 s; before it \d+ × 200; the check's other deliveries not sent$/,
    );
    // One unanswered delivery per check: none sent its next one into a receiver that had stopped answering.
    expect(r.unanswered).toBe(unanswered.length);
  });

  it('refuses a public host without --allow-remote (exit 2, nothing sent)', async () => {
    const result = await runCommand(['webhooks', 'test', 'http://203.0.113.7/hooks'], {
      env: { SIGN_WEBHOOK_SECRET: SECRET },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /203\.0\.113\.7 \(203\.0\.113\.7\) is not this machine or a private network.*--allow-remote/,
    );
  });

  it.each([
    ['an unknown check', ['--only', 'everything'], /--only "everything" is not one of .*accepts-events/],
    [
      'two secrets',
      ['--secret', SECRET, '--secret-file', '/dev/null'],
      /--secret or --secret-file, not both/,
    ],
    ['no burst', ['--burst', '0'], /--burst must be a whole number from 1 to 1000/],
    [
      'only a check the scheme cannot run',
      ['--scheme', 'hmac', '--only', 'survives-rotation'],
      /no check to run \(survives-rotation: the hmac scheme carries one signature\)/,
    ],
    [
      'only a check --tolerance 0 turns off',
      ['--tolerance', '0', '--only', 'rejects-stale-timestamp'],
      /with a tolerance of 0 the timestamp is not checked/,
    ],
    [
      'an answer timeout below 0.1 s',
      ['--answer-timeout', '0.01'],
      /--answer-timeout must be from 0\.1 to 600 seconds/,
    ],
    [
      'an answer timeout over 600 s',
      ['--answer-timeout', '3000000'],
      /--answer-timeout must be from 0\.1 to 600 seconds/,
    ],
    ['a report that is a directory', ['--junit', '/tmp'], /--junit \/tmp is a directory/],
    [
      'a report nowhere',
      ['--junit', '/no/such/dir/report.xml'],
      /--junit \/no\/such\/dir\/report\.xml: its directory does not exist/,
    ],
  ])('usage errors exit 2 before anything is sent: %s', async (_name, args, message) => {
    const r = await receiver();
    const result = await runCommand(['webhooks', 'test', r.url, ...args], {
      env: { SIGN_WEBHOOK_SECRET: SECRET },
    });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    expect(r.requests).toBe(0);
  });

  it('fails the forgery checks of a receiver that refuses everything: a refusal proves nothing then', async () => {
    const wrongPath = await startReceiver(() => 404);
    opened.push(wrongPath);
    const { code, card } = await grade(wrongPath.url, [
      '--only',
      'rejects-altered-body',
      '--only',
      'rejects-wrong-secret',
      '--only',
      'rejects-bad-signature',
      '--only',
      'rejects-stale-timestamp',
    ]);
    expect(code).toBe(1);
    expect(card!.checks.map((c) => [c.verdict, c.got])).toEqual(
      Array(4).fill(['fail', 'the valid delivery → 404 too: a refusal proves nothing']),
    );
  });

  it('grades a receiver that crashes on its first delivery (exit 1 and a scorecard), not "unreachable"', async () => {
    let server: Server | undefined = undefined;
    server = createHttpServer((req) => {
      req.socket.destroy();
      server!.close();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
    const { code, card } = await grade(url, ['--only', 'accepts-events']);
    expect(code).toBe(1);
    expect(card!.checks[0]!.got).toMatch(/^envelope\.created → .*(socket|closed|reset)/i);
  });

  it('writes a JUnit report with an error when nothing answers, so CI keeps why', async () => {
    const port = await closedPort();
    const file = join(tempDir(), 'unreachable.xml');
    const result = await runCommand(['webhooks', 'test', `http://127.0.0.1:${port}/hooks`, '--junit', file], {
      env: { SIGN_WEBHOOK_SECRET: SECRET },
    });
    expect(result.code).toBe(3);
    const xml = readFileSync(file, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites;
    expect(suites).toMatchObject({ tests: '1', failures: '0', errors: '1' });
    expect(suites.testsuite.testcase.error.message).toMatch(/could not reach .*ECONNREFUSED/);
  });

  it('masks the user, password and query values of the URL it shows', async () => {
    const r = await receiver();
    const url = new URL(r.url);
    const { card } = await grade(`http://hook:pa55word@127.0.0.1:${url.port}/webhooks?token=t0ken&x=1`, [
      '--only',
      'accepts-events',
    ]);
    expect(card!.url).toBe(`http://****:****@127.0.0.1:${url.port}/webhooks?token=****&x=****`);
    expect(r.handled).toHaveLength(13);
  });

  it('never shows a secret typed where the URL goes, or after a misspelt flag', async () => {
    const swapped = await runCommand(['webhooks', 'test', '--secret', 'http://127.0.0.1:9/hooks', SECRET], {
      env: {},
    });
    expect(swapped.code).toBe(2);
    const typo = await runCommand(['webhooks', 'test', 'http://127.0.0.1:9/hooks', `--secrte=${SECRET}`], {
      env: {},
    });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown option '--secrte=/);
    const secretPart = SECRET.slice('whsec_'.length);
    for (const result of [swapped, typo])
      expect(result.stdout + result.stderr).not.toContain(secretPart.slice(0, 12));
  });

  it('refuses a whpk_ public key (it cannot sign) and a URL that is not http(s)', async () => {
    const { publicKey } = newEd25519KeyPair();
    const r = await receiver();
    const key = await runCommand(['webhooks', 'test', r.url], { env: { SIGN_WEBHOOK_SECRET: publicKey } });
    expect(key.code).toBe(2);
    expect(key.stderr).toMatch(/whpk_ public key verifies but cannot sign/);
    const ftp = await runCommand(['webhooks', 'test', 'ftp://127.0.0.1/x'], {
      env: { SIGN_WEBHOOK_SECRET: SECRET },
    });
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toMatch(/must be an http\(s\) URL/);
  });

  it('never shows the secret given with --secret, even with --verbose', async () => {
    const r = await receiver();
    const result = await runCommand(
      ['webhooks', 'test', r.url, '--secret', SECRET, '--only', 'accepts-events', '--verbose'],
      { env: {} },
    );
    expect(result.code).toBe(0);
    const secretPart = SECRET.slice('whsec_'.length);
    expect(result.stdout + result.stderr).not.toContain(secretPart);
  });
});

/** A port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
