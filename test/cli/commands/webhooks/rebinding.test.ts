/**
 * DNS rebinding against `webhooks trigger --local-only` and `webhooks test`,
 * in process: a name flips between 127.0.0.1 and a non-local address at every
 * lookup (test/helpers/rebinding.cjs). The address is checked as each
 * connection is made (one lookup per connection, by the connection), so the
 * non-local answer is refused and never handed to a socket. A tripwire counts
 * what would have been connected to, and stops it before any packet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../helpers/in-process.js';
import { startReceiver, type Receiver } from '../../../helpers/receiver.js';
import { NOT_LOCAL_ADDRESS, REBINDING_NAME, stageRebinding } from '../../../helpers/rebinding.js';
import { startTestReceiver } from '../../../helpers/webhook-receivers.js';
import { SECRET, env } from '../../../helpers/webhook-events.js';

const CALLS = 80;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

function staged() {
  const rebinding = stageRebinding();
  cleanups.push(() => rebinding.restore());
  return rebinding.counts;
}

/** The receiver's URL under the flipping name. */
const flipping = (r: Receiver) => r.url.replace('127.0.0.1', REBINDING_NAME);

describe('DNS rebinding', () => {
  it(`webhooks trigger --local-only: ${CALLS} calls, one lookup each, none reaches the non-local address`, async () => {
    const r = await receiver();
    const counts = staged();
    const codes: (number | null)[] = [];
    const refusals: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      const result = await runCommand(
        ['webhooks', 'trigger', 'signer.signed', '--to', flipping(r), '--local-only', '--json'],
        { env },
      );
      codes.push(result.code);
      if (result.code !== 0) refusals.push(result.stderr);
    }
    // One resolution per connection, made by the connection: every other one answered the non-local address.
    expect(counts.lookups).toBe(CALLS);
    expect(counts.answered).toEqual({ '127.0.0.1': CALLS / 2, [NOT_LOCAL_ADDRESS]: CALLS / 2 });
    expect(counts.reached).toEqual({});
    expect(counts.handed).toEqual({ '127.0.0.1': CALLS / 2 });
    expect(r.deliveries).toHaveLength(CALLS / 2);
    expect(codes.filter((code) => code === 0)).toHaveLength(CALLS / 2);
    // Each refusal: exit 2, saying where the name led, nothing sent.
    expect(codes.filter((code) => code === 2)).toHaveLength(CALLS / 2);
    for (const refusal of refusals)
      expect(refusal).toMatch(
        new RegExp(
          `refused to connect: ${REBINDING_NAME} resolves to 93\\.184\\.216\\.34, not to this machine or a private network \\(--local-only\\); nothing was sent`,
        ),
      );
  });

  it('webhooks trigger --local-only refuses a non-local literal address before any packet', async () => {
    const counts = staged();
    const result = await runCommand(
      ['webhooks', 'trigger', 'signer.signed', '--to', `http://${NOT_LOCAL_ADDRESS}/hooks`, '--local-only'],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/93\.184\.216\.34 is not this machine or a private network/);
    expect(counts.handed).toEqual({});
  });

  it('webhooks trigger without --local-only sends where the name leads (the tripwire stops it here)', async () => {
    // The CLI's choice (docs/assumptions.md): a person's own handler may be anywhere. This also shows the
    // tripwire sees a connection to the non-local address when one is attempted.
    const r = await receiver();
    const counts = staged();
    const results = [];
    for (let i = 0; i < 2; i++)
      results.push(
        await runCommand(['webhooks', 'trigger', 'signer.signed', '--to', flipping(r), '--json'], { env }),
      );
    expect(results.map((result) => result.code)).toEqual([0, 1]);
    expect(results[1]!.stderr).toMatch(/ETRIPWIRE|tripwire/);
    expect(counts.reached).toEqual({ [NOT_LOCAL_ADDRESS]: 1 });
  });

  it('webhooks test: a name that flips after its first check is refused at the connection, not sent to', async () => {
    const r = await startTestReceiver({ secret: SECRET });
    cleanups.push(() => r.close());
    const counts = staged();
    const result = await runCommand(
      ['webhooks', 'test', r.url.replace('127.0.0.1', REBINDING_NAME), '--only', 'accepts-events', '--json'],
      { env },
    );
    // The first check of the name (127.0.0.1) lets the run start; the connection's own lookup gets the other address.
    expect(counts.lookups).toBeGreaterThanOrEqual(2);
    expect(counts.answered[NOT_LOCAL_ADDRESS]).toBeGreaterThan(0);
    expect(counts.reached).toEqual({});
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/ENOTLOCAL/);
  });
});
