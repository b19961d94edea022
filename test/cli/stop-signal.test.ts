/**
 * The stop signal (Ctrl-C, SIGTERM, SIGHUP) is made when a command first asks for it: an
 * AbortController loads Node's abort internals, start-up that a command sending nothing and
 * reading no stdin never needs (issue 27). What does need it still gets it.
 */
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { EXAMPLE, example } from '../helpers/envelopes.js';
import { testIo } from '../helpers/in-process.js';

// Nothing listens here: none of these commands may need the service.
const env = { SIGN_BASE_URL: 'http://127.0.0.1:9' };

/** Runs `sign-cli <args>` in process and counts how often its stop signal was made. */
async function run(args: string[], input?: string): Promise<{ code: number; made: number; stdout: string }> {
  const io = testIo({ env, ...(input !== undefined ? { stdin: input } : {}) });
  let made = 0;
  const code = await main(['node', 'sign-cli', ...args], io, () => {
    made++;
    return new AbortController().signal;
  });
  return { code, made, stdout: io.stdout.text };
}

describe('the stop signal', () => {
  it('is not made by commands that send nothing and read no stdin', async () => {
    for (const args of [
      ['envelopes', 'validate', EXAMPLE],
      ['envelopes', 'create', '-f', EXAMPLE, '--dry-run'],
      ['keys', 'list', '--local'],
      ['config', 'list'],
      ['--help'],
    ]) {
      const result = await run(args);
      expect({ args, code: result.code, made: result.made }).toEqual({ args, code: 0, made: 0 });
    }
  });

  it('is made for a command reading stdin, which Ctrl-C must be able to stop', async () => {
    const result = await run(['envelopes', 'validate', '-', '--json'], JSON.stringify(example()));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ input: '-', valid: true });
    expect(result.made).toBe(1);
  });

  it('is made once by a context, on first use, and is the same signal after', () => {
    const controller = new AbortController();
    let made = 0;
    const ctx = new CommandContext(
      { color: false, input: true, json: false },
      () => {
        made++;
        return controller.signal;
      },
      testIo({ env }),
    );
    expect(made).toBe(0);
    expect(ctx.signal).toBe(controller.signal);
    expect(ctx.signal).toBe(controller.signal);
    expect(made).toBe(1);
  });
});
