/** `envelopes void`, in process against an in-process sandbox: asking, the reason, idempotent re-runs, 409. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

/** An envelope whose only signer never opens it: it stays `sent` until voided (magic value, sandbox/magic.ts). */
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
    const deadline = Date.now() + 5000;
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
});
