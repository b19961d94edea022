/** `envelopes void`, in process against an in-process sandbox: asking, the reason, idempotent re-runs, 409. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { CTRL_C, fakePrompter } from '../../../helpers/prompter.js';
import { unwrapped } from '../../../helpers/terminal-fit.js';

/** An envelope whose only signer never opens it: it stays `sent` until voided (magic value, sandbox/journey/magic.ts). */
const stuck = (contractId: string) => ({
  ...example(),
  contract_id: contractId,
  signers: [{ name: 'Nadia Noview', email: 'nadia+noview@example.com', channel: 'email', order: 1 }],
});

let sandbox: TestSandbox;
let env: Record<string, string>;
const requests = async () => (await sandbox.control<{ requests: number }>('/_sandbox/state')).requests;

async function createOne(body: unknown): Promise<string> {
  const result = await runCommand(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
    env,
    input: JSON.stringify(body),
  });
  expect(result.code).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  env = sandbox.env;
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes void', () => {
  it('refuses without --yes where it cannot ask, and without --reason; nothing is sent', async () => {
    const id = await createOne(stuck('VOID-ASK'));
    const before = await requests();
    const result = await runCommand(['envelopes', 'void', id, '--reason', 'sent by mistake'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass --yes');
    const missing = await runCommand(['envelopes', 'void', id, '--yes'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--reason is required');
    expect(await requests()).toBe(before + 1);
  });

  it('voids: state voided, an audit entry, envelope.voided delivered; a re-run is answered, not refused', async () => {
    const id = await createOne(stuck('VOID-1'));
    const result = await runCommand(
      ['envelopes', 'void', id, '--reason', 'sent to the wrong signer', '--yes', '--json'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      id,
      status: 'voided',
      void_reason: 'sent to the wrong signer',
    });
    const again = await runCommand(
      ['envelopes', 'void', id, '--reason', 'sent to the wrong signer', '--yes'],
      { env },
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`voided ${id}`);
    const audit = await runCommand(['envelopes', 'audit', id, '--verify', '--json'], { env });
    const trail = JSON.parse(audit.stdout) as {
      entries: { type: string; detail: string }[];
      verification: { valid: boolean };
    };
    expect(trail.verification.valid).toBe(true);
    expect(trail.entries.filter((e) => e.type === 'envelope.voided')).toHaveLength(1);
    expect(trail.entries.at(-1)!.detail).toContain('sent to the wrong signer');
    const deadline = Date.now() + 60_000;
    let types: string[] = [];
    while (!types.includes('envelope.voided') && Date.now() < deadline) {
      types = (
        await sandbox.control<{ data: { event_type: string }[] }>(`/_sandbox/deliveries?envelope_id=${id}`)
      ).data.map((d) => d.event_type);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(types).toContain('envelope.voided');
  });

  it('a final envelope gives one clear 409, not retried', async () => {
    const id = await createOne(stuck('VOID-2'));
    expect((await runCommand(['envelopes', 'void', id, '--reason', 'first', '--yes'], { env })).code).toBe(0);
    const before = await sandbox.control<{ by_status: Record<string, number> }>('/_sandbox/state');
    const result = await runCommand(['envelopes', 'void', id, '--reason', 'second', '--yes'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: void envelope: HTTP 409 envelope_final: the envelope is already voided; .*\(hint: only an envelope still under way can be voided/,
    );
    const after = await sandbox.control<{ by_status: Record<string, number> }>('/_sandbox/state');
    expect((after.by_status['409'] ?? 0) - (before.by_status['409'] ?? 0)).toBe(1);
  });

  it('on a terminal it asks first, and a no sends nothing', async () => {
    const id = await createOne(stuck('VOID-TTY'));
    const before = await requests();
    const declined = await runCommand(['envelopes', 'void', id, '--reason', 'oops'], {
      env,
      tty: true,
      input: 'n\n',
    });
    expect(declined.stdout + declined.stderr).toMatch(/Void/);
    // Only the look at the state itself.
    expect(await requests()).toBe(before + 1);
  });

  it('on a terminal, inquirer itself takes a typed "y" and it is voided', async () => {
    const id = await createOne(stuck('VOID-TTY-YES'));
    const confirmed = await runCommand(['envelopes', 'void', id, '--reason', 'oops'], {
      env,
      tty: true,
      input: 'y\n',
    });
    expect(confirmed.code).toBe(0);
    const shown = confirmed.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(shown).toContain(`Void ${id}? Its signers will no longer be able to sign.`);
    // Inquirer ends the in-memory stdout when its prompt is done (it pipes into it), so what the
    // command prints after is not kept here: the sandbox says what happened.
    const envelope = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(((await envelope.json()) as { status: string }).status).toBe('voided');
  });
});

describe('envelopes void, asked through the injected prompter', () => {
  const question = (id: string) => ({
    kind: 'confirm',
    message: `Void ${id}? Its signers will no longer be able to sign.`,
    default: false,
  });

  it('asks once, "no" by default; a yes voids the envelope', async () => {
    const id = await createOne(stuck('VOID-PROMPT-YES'));
    const prompter = fakePrompter([true]);
    const result = await runCommand(['envelopes', 'void', id, '--reason', 'sent by mistake'], {
      env,
      tty: true,
      prompter,
    });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual([question(id)]);
    expect(result.stdout).toContain(`✓ voided ${id}: sent by mistake`);
    const envelope = await fetch(`${sandbox.baseUrl}/api/v1/envelopes/${id}`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(((await envelope.json()) as { status: string }).status).toBe('voided');
  });

  it('a no leaves it alone: exit 0, said on stderr, nothing sent', async () => {
    const id = await createOne(stuck('VOID-PROMPT-NO'));
    const before = await requests();
    const prompter = fakePrompter([false]);
    const result = await runCommand(['envelopes', 'void', id, '--reason', 'sent by mistake'], {
      env,
      tty: true,
      prompter,
    });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual([question(id)]);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`${id} was not voided`);
    // Only the look at the state itself.
    expect(await requests()).toBe(before + 1);
  });

  it('Ctrl-C at the question is exit 130, nothing sent', async () => {
    const id = await createOne(stuck('VOID-PROMPT-CTRL-C'));
    const before = await requests();
    const result = await runCommand(['envelopes', 'void', id, '--reason', 'sent by mistake'], {
      env,
      tty: true,
      prompter: fakePrompter([CTRL_C]),
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted; nothing was saved or sent');
    expect(await requests()).toBe(before + 1);
  });

  it('is not asked with --yes, nor where nobody can answer (a pipe, --no-input, CI)', async () => {
    const id = await createOne(stuck('VOID-PROMPT-UNASKED'));
    const prompter = fakePrompter();
    const unanswerable: [string[], { tty?: boolean; env?: Record<string, string> }][] = [
      [[], {}],
      [['--no-input'], { tty: true }],
      [[], { tty: true, env: { CI: 'true' } }],
    ];
    for (const [args, options] of unanswerable) {
      const refused = await runCommand(['envelopes', 'void', id, '--reason', 'sent by mistake', ...args], {
        ...options,
        env: { ...env, ...options.env },
        prompter,
      });
      expect(refused.code).toBe(2);
      expect(unwrapped(refused.stderr)).toContain(
        `error: voiding ${id} needs confirmation, and there is no terminal to ask on`,
      );
      expect(unwrapped(refused.stderr)).toContain('pass --yes to void it without asking');
    }
    const yes = await runCommand(['envelopes', 'void', id, '--reason', 'sent by mistake', '--yes'], {
      env,
      tty: true,
      prompter,
    });
    expect(yes.code).toBe(0);
    expect(prompter.asked).toEqual([]);
  });
});
