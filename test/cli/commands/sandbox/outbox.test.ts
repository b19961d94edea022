/**
 * `sandbox outbox`, in process against an in-process sandbox in a manual
 * journey: one block per message, NDJSON with --json, the --envelope filter,
 * --follow printing a message that arrives later until Ctrl-C (exit 0), a
 * refused key, a service that is not the sandbox, and hostile text shown on
 * one line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../../src/core/clock.js';
import { eventually, outboxOf } from '../../../helpers/ceremony.js';
import { example } from '../../../helpers/envelopes.js';
import { json, notFoundHtml, startFakeService } from '../../../helpers/fake-service.js';
import { runCommand, startCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { FOLLOW_INTERVAL_MS } from '../../../../src/cli/commands/sandbox/outbox.js';

let sandbox: TestSandbox;
let first: string;
let second: string;

async function create(title: string): Promise<string> {
  const result = await runCommand(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
    env: sandbox.env,
    input: JSON.stringify({ ...example(), title, locale: 'en' }),
  });
  expect(result.code, result.stderr).toBe(0);
  const id = result.stdout.trim();
  // The first signer is notified once the journey has started.
  await eventually(async () =>
    (await outboxOf(sandbox.baseUrl, sandbox.apiKey, id)).length > 0 ? true : undefined,
  );
  return id;
}

beforeAll(async () => {
  sandbox = await startTestSandbox({ journey: 'manual' });
  first = await create('Lease one');
  second = await create('Lease two');
});
afterAll(async () => {
  await sandbox?.stop();
});

/** --follow's one second between checks, as a few ms (the client's own timers are left as they are). */
const quickClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => systemClock.sleep(ms === FOLLOW_INTERVAL_MS ? 20 : ms, signal),
};

describe('sandbox outbox', () => {
  it('one block per message, oldest first: time, channel, recipient, kind, envelope; subject; link', async () => {
    const result = await runCommand(['sandbox', 'outbox'], { env: sandbox.env });
    expect(result.code, result.stderr).toBe(0);
    const blocks = result.stdout.trimEnd().split('\n\n');
    expect(blocks).toHaveLength(2);
    const [one, two] = blocks.map((block) => block.split('\n'));
    expect(one![0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z  email  to layla\\.haddad@example\\.com  invitation  ${first}$`,
      ),
    );
    expect(one![1]).toBe('  Please sign: Lease one');
    expect(one![2]).toMatch(/^ {2}http:\/\/127\.0\.0\.1:\d+\/s\/[\w-]{32}$/);
    expect(two![0]).toContain(`invitation  ${second}`);
    // The body is for --json: it is several lines.
    expect(result.stdout).not.toContain('you are asked to sign');
  });

  it('--json: one message per line, whole; --envelope keeps one envelope', async () => {
    const result = await runCommand(['sandbox', 'outbox', '--json', '--envelope', second], {
      env: sandbox.env,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      id: expect.stringMatching(/^msg_/),
      envelope_id: second,
      signer_id: expect.stringMatching(/^sgn_/),
      kind: 'invitation',
      channel: 'email',
      to: 'layla.haddad@example.com',
      // The API key that created the envelope: the sandbox's own.
      from: 'sandbox',
      subject: 'Please sign: Lease two',
      text: expect.stringContaining('\n'),
      link: expect.stringMatching(/\/s\//),
      at: expect.any(String),
      // The envelope's expiry: until when the invitation holds.
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
    });
    const kinds = await runCommand(['sandbox', 'outbox', '--query', 'kind'], { env: sandbox.env });
    expect(kinds.stdout).toBe('invitation\ninvitation\n');
  });

  it('no messages: says so on stderr and exits 0', async () => {
    const result = await runCommand(['sandbox', 'outbox', '--envelope', 'env_none'], { env: sandbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('no messages in the outbox for env_none');
  });

  it('another key sees its own account and environment only', async () => {
    const live = await sandbox.mintKey({ environment: 'live' });
    const result = await runCommand(['sandbox', 'outbox'], { env: { ...sandbox.env, SIGN_API_KEY: live } });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
  });

  it('a key the sandbox does not know: exit 3', async () => {
    const result = await runCommand(['sandbox', 'outbox'], {
      env: { ...sandbox.env, SIGN_API_KEY: 'sk_test_unknownunknownunknown' },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('HTTP 401');
  });

  it('--follow prints what arrives later, until Ctrl-C (exit 0)', async () => {
    const run = startCommand(['sandbox', 'outbox', '--follow'], { env: sandbox.env, clock: quickClock });
    await run.waitFor(`invitation  ${second}`);
    const third = await create('Lease three');
    await run.waitFor(`invitation  ${third}`);
    run.interrupt();
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('following the outbox at');
    expect(result.stderr).not.toContain('error');
    // Each message once, in order.
    const heads = result.stdout.split('\n').filter((line) => / {2}to /.test(line));
    expect(heads.map((line) => line.split('  ').at(-1))).toEqual([first, second, third]);
  });

  it('--follow --json: one JSON line per message as it arrives', async () => {
    const run = startCommand(['sandbox', 'outbox', '--follow', '--json', '--envelope', first], {
      env: sandbox.env,
      clock: quickClock,
    });
    await run.waitFor(first);
    // A few more checks, which find nothing new: nothing is printed twice.
    await new Promise((resolve) => setTimeout(resolve, 150));
    run.interrupt();
    const result = await run.done;
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ envelope_id: first, kind: 'invitation' });
    expect(result.stderr).toBe('');
  });
});

describe('sandbox outbox against answers no sandbox of ours gives', () => {
  it('a service that is not the sandbox (404, HTML): exit 1, the outbox exists only in the sandbox', async () => {
    const service = await startFakeService(notFoundHtml);
    try {
      for (const args of [[], ['--follow']]) {
        const result = await runCommand(['sandbox', 'outbox', ...args], {
          env: { SIGN_BASE_URL: service.baseUrl, SIGN_API_KEY: 'sk_test_fake_key_for_outbox' },
          clock: quickClock,
        });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        const errors = result.stderr.split('\n').filter((line) => line.startsWith('error:'));
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain(
          `GET /_sandbox/outbox: HTTP 404: ${service.baseUrl} has no outbox: the outbox exists only in the sandbox (\`sign-cli sandbox\`); real signers receive their messages from the service`,
        );
      }
      expect(service.asked).toEqual(['/_sandbox/outbox', '/_sandbox/outbox']);
    } finally {
      await service.close();
    }
  });

  it('server text is shown on one line, its control and bidi characters escaped', async () => {
    const service = await startFakeService((_request, response) =>
      json(response, 200, {
        data: [
          {
            id: 'msg_1',
            envelope_id: 'env_1',
            signer_id: null,
            kind: 'invitation',
            channel: 'email',
            to: 'a@x.com\nerror: forged line',
            subject: 'Hi\u001b]0;title\u0007 \u202eevil',
            text: 'body',
            link: 'http://127.0.0.1:1/s/x\u001b[2J',
            at: '2027-01-02T03:04:05.000Z',
          },
        ],
      }),
    );
    try {
      const result = await runCommand(['sandbox', 'outbox'], {
        env: { SIGN_BASE_URL: service.baseUrl, SIGN_API_KEY: 'sk_test_fake_key_for_outbox' },
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        [
          '2027-01-02 03:04:05Z  email  to a@x.com\\nerror: forged line  invitation  env_1',
          '  Hi\\u001b]0;title\\u0007 \\u202eevil',
          '  http://127.0.0.1:1/s/x\\u001b[2J',
          '',
        ].join('\n'),
      );
    } finally {
      await service.close();
    }
  });
});
