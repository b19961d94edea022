/** `envelopes watch`, in process against an in-process sandbox: lines per change, JSON, exit codes, Ctrl-C. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example } from '../../../helpers/envelopes.js';
import { signWhenTurn } from '../../../helpers/ceremony.js';
import { runCommand, startCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

const stuck = (contractId: string) => ({
  ...example(),
  contract_id: contractId,
  signers: [{ name: 'Nadia Noview', email: 'nadia+noview@example.com', channel: 'email', order: 1 }],
});
let sandbox: TestSandbox;
let env: Record<string, string>;

async function createOne(body: unknown): Promise<string> {
  return (
    await runCommand(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
      env,
      input: JSON.stringify(body),
    })
  ).stdout.trim();
}

beforeAll(async () => {
  // Speed 2: a two-signer journey completes in about three seconds, long enough to see each step.
  sandbox = await startTestSandbox({ speed: 2, faults: { rate_limit: 100_000 } });
  env = sandbox.env;
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('envelopes watch', () => {
  it('piped: one line per change, exit 0 when completed', async () => {
    const id = await createOne(example());
    const result = await runCommand(['envelopes', 'watch', id, '--interval', '0.2'], { env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z  ${id}  sent  "Office lease renewal 2027", 2 signer\\(s\\)$`,
      ),
    );
    const signed1 = lines.findIndex((l) => /signer 1\. Layla Haddad: (\S+ → )?signed$/.test(l));
    const signed2 = lines.findIndex((l) => /signer 2\. Omar Khalil: \S+ → signed$/.test(l));
    expect(signed1).toBeGreaterThan(0);
    expect(signed2).toBeGreaterThan(signed1);
    expect(lines.at(-1)).toMatch(new RegExp(`${id}  sent → completed$`));
    expect(new Set(lines.map((l) => l.slice(22))).size).toBe(lines.length);
    expect(result.stderr).toContain(`${id} is completed`);
  });

  it('on a terminal: one block redrawn in place', async () => {
    // A journey that waits for people: the first signature comes only once the first block is on
    // screen, so there is a change to redraw whatever the machine's speed.
    const people = await startTestSandbox({ journey: 'manual' });
    try {
      const body = example() as { signers: Record<string, unknown>[] };
      for (const signer of body.signers) delete signer.verification;
      const id = (
        await runCommand(['envelopes', 'create', '-f', '-', '--new', '--query', 'envelope.id'], {
          env: people.env,
          input: JSON.stringify(body),
        })
      ).stdout.trim();
      const run = startCommand(['envelopes', 'watch', id, '--interval', '0.2'], {
        env: people.env,
        tty: true,
        columns: 100,
      });
      await run.waitFor('0 of 2 signed');
      await signWhenTurn(people.baseUrl, people.apiKey, id, 'Layla Haddad');
      await run.waitFor('1 of 2 signed');
      await signWhenTurn(people.baseUrl, people.apiKey, id, 'Omar Khalil');
      const result = await run.done;
      expect(result.code).toBe(0);
      // Redrawn: the cursor goes back up over the block instead of adding lines.
      expect(result.stdout).toMatch(/\u001b\[\d+F\u001b\[2K/);
      expect(result.stdout).toContain('completed');
    } finally {
      await people.stop();
    }
  });

  it('--json: one JSON line per change; voided while watched is exit 1 with the reason', async () => {
    const id = await createOne(stuck('WATCH-VOID'));
    const watch = startCommand(['envelopes', 'watch', id, '--interval', '0.2', '--json'], { env });
    await watch.waitFor('\n');
    expect(
      (await runCommand(['envelopes', 'void', id, '--reason', 'duplicate', '--yes'], { env })).code,
    ).toBe(0);
    const result = await watch.done;
    expect(result.code).toBe(1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; status: string });
    expect(lines[0]).toMatchObject({ id, status: 'sent' });
    expect(lines.at(-1)).toMatchObject({ id, status: 'voided' });
    expect(result.stderr).toMatch(
      new RegExp(`^error: ${id} ended voided \\(duplicate\\) \\(hint: .*envelopes audit ${id}`),
    );
  });

  it('Ctrl-C stops watching: exit 130', async () => {
    const id = await createOne(stuck('WATCH-INT'));
    const watch = startCommand(['envelopes', 'watch', id, '--interval', '0.2'], { env });
    await watch.waitFor(id);
    watch.interrupt();
    expect((await watch.done).code).toBe(130);
  });

  it('a bad --interval is exit 2', async () => {
    expect((await runCommand(['envelopes', 'watch', 'env_x', '--interval', '0'], { env })).code).toBe(2);
  });
});
