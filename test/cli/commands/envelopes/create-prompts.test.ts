/**
 * `envelopes create`'s questions, in process with a prompter of the test's own: the one question
 * before a live run of several envelopes, and the step-by-step envelope. (The step-by-step
 * envelope in a real terminal, through the built binary: test/e2e/interactive.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { CTRL_C, fakePrompter } from '../../../helpers/prompter.js';

let sandbox: TestSandbox;
let live: string;
const work = workspace('sign-cli-create-prompts-');

beforeAll(async () => {
  sandbox = await startTestSandbox();
  live = await sandbox.mintKey({ environment: 'live' });
});
afterAll(async () => {
  await sandbox?.stop();
});

/** How many envelopes the sandbox holds whose contract id starts with `prefix`. */
const count = async (prefix: string) =>
  (await sandbox.control<{ data: { contract_id?: string }[] }>('/_sandbox/envelopes')).data.filter((e) =>
    e.contract_id?.startsWith(prefix),
  ).length;

/** Envelope files of their own: `n` of them, contract ids `<prefix>-1`…. */
const files = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) =>
    work.write(`${prefix}-${i + 1}.json`, { ...example(), contract_id: `${prefix}-${i + 1}` }),
  ).flatMap((file) => ['-f', file]);

describe('a live run of several envelopes', () => {
  const env = () => ({ SIGN_BASE_URL: sandbox.baseUrl, SIGN_API_KEY: live });
  const question = /^Create 2 envelopes in live with sk_live_\*{4}\w{4}\? Their signers will be notified\.$/;

  it('says how many, in live, with which key, and asks once: a no sends nothing', async () => {
    const prompter = fakePrompter([false]);
    const declined = await runCommand(['envelopes', 'create', ...files('LIVE-NO', 2)], {
      env: env(),
      tty: true,
      prompter,
    });
    expect(declined.code).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    expect(prompter.asked[0]).toMatchObject({ kind: 'confirm', default: false });
    expect(prompter.asked[0]!.message).toMatch(question);
    expect(declined.stderr).toContain('nothing was sent (2 envelopes not created in live)');
    expect(await count('LIVE-NO')).toBe(0);
  });

  it('a yes creates them; Ctrl-C at the question is exit 130 with nothing sent', async () => {
    const interrupted = await runCommand(['envelopes', 'create', ...files('LIVE-CTRL-C', 2)], {
      env: env(),
      tty: true,
      prompter: fakePrompter([CTRL_C]),
    });
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toContain('interrupted; nothing was saved or sent');
    expect(await count('LIVE-CTRL-C')).toBe(0);
    const prompter = fakePrompter([true]);
    const confirmed = await runCommand(['envelopes', 'create', ...files('LIVE-YES', 2)], {
      env: env(),
      tty: true,
      prompter,
    });
    expect(confirmed.code).toBe(0);
    expect(prompter.asked).toHaveLength(1);
    expect(confirmed.stderr).toContain('created 2 in live, already created 0, failed 0');
    expect(await count('LIVE-YES')).toBe(2);
  });

  it('is not asked with --yes, in a pipe, with --no-input, of one envelope, or with a test key', async () => {
    const prompter = fakePrompter();
    const runs: [string, string[], { tty?: boolean; key?: string }][] = [
      ['LIVE-FLAG', ['--yes'], { tty: true }],
      ['LIVE-PIPE', [], {}],
      ['LIVE-NO-INPUT', ['--no-input'], { tty: true }],
      ['TEST-KEY', [], { tty: true, key: sandbox.apiKey }],
    ];
    for (const [prefix, flags, options] of runs) {
      const result = await runCommand(['envelopes', 'create', ...files(prefix, 2), ...flags], {
        env: { ...env(), ...(options.key ? { SIGN_API_KEY: options.key } : {}) },
        tty: options.tty === true,
        prompter,
      });
      expect([prefix, result.code]).toEqual([prefix, 0]);
      expect(await count(prefix)).toBe(2);
    }
    const one = await runCommand(['envelopes', 'create', ...files('LIVE-ONE', 1)], {
      env: env(),
      tty: true,
      prompter,
    });
    expect(one.code).toBe(0);
    expect(await count('LIVE-ONE')).toBe(1);
    expect(prompter.asked).toEqual([]);
  });
});

describe('the step-by-step envelope', () => {
  /** The answers, question by question, for an envelope of one e-mail signer. */
  const answers = (contractId: string, send: boolean) => [
    'Lease, step by step',
    contractId,
    'tpl_lease',
    '', // version: the default, 1
    'Layla Haddad',
    'email',
    'layla@example.com',
    '__none__', // no identity verification
    '', // order: the default, 1
    false, // no other signer
    '__none__', // the service's default signature level
    '', // no expiry
    '', // no locale
    '', // no webhook URL
    '', // not saved to a file
    send,
  ];
  const env = () => sandbox.env;

  it('asks every question through the prompter, shows the envelope, and creates it', async () => {
    const prompter = fakePrompter(answers('STEP-1', true));
    const result = await runCommand(['envelopes', 'create'], { env: env(), tty: true, prompter });
    expect(result.code).toBe(0);
    expect(prompter.asked.map((q) => q.message)).toEqual([
      'Title',
      'Contract ID in your system (optional)',
      'Document template ID',
      'Template version',
      'Signer 1: full name',
      'Signer 1: delivery channel',
      'Signer 1: e-mail',
      'Signer 1: identity verification',
      'Signer 1: signing order',
      'Add another signer?',
      'Signature level',
      'Expires in how many days (optional)',
      expect.stringMatching(/^Locale of the signing experience \(optional; seen: /),
      'Webhook URL for signing events (optional)',
      'Save this JSON to a file? (path, or blank to skip)',
      'Send it now?',
    ]);
    // The summary before the question to send.
    expect(result.stdout).toContain('"contract_id": "STEP-1"');
    expect(result.stdout).toMatch(/created env_\w+/);
    expect(await count('STEP-1')).toBe(1);
  });

  it('a no to "Send it now?" sends nothing; no terminal, no questions', async () => {
    const declined = await runCommand(['envelopes', 'create'], {
      env: env(),
      tty: true,
      prompter: fakePrompter(answers('STEP-2', false)),
    });
    expect(declined.code).toBe(0);
    expect(declined.stderr).toContain('not sent.');
    expect(await count('STEP-2')).toBe(0);
    const prompter = fakePrompter();
    const piped = await runCommand(['envelopes', 'create'], { env: env(), prompter });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('no envelope given');
    expect(prompter.asked).toEqual([]);
  });
});
