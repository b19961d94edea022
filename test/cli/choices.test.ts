/**
 * Usage errors that teach: every choice-valued option and argument of the
 * tree answers a near miss with the choice meant (one path, commander's
 * `.choices()` included), and a required argument left out is answered with
 * the command's usage and an example.
 */
import type { Argument, Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { allCommands, commandPath } from '../../src/cli/help/help.js';
import { runCommand, testIo } from '../helpers/in-process.js';

/** Every option and argument with choices, with the command line that reaches it. */
async function choiceValued(): Promise<{ path: string[]; target: Option | Argument; flag?: string }[]> {
  const program = await buildProgram({ io: testIo(), argv: [], exitCode: 0, main: async () => 0 } as never);
  return allCommands(program).flatMap((command: Command) => {
    const path = commandPath(command).split(' ').slice(1);
    return [
      ...command.options.filter((o) => o.argChoices).map((o) => ({ path, target: o, flag: o.long! })),
      ...command.registeredArguments.filter((a) => a.argChoices).map((a) => ({ path, target: a })),
    ];
  });
}

describe('a value outside the choices', () => {
  it('gets a "did you mean" from every choice-valued option and argument', async () => {
    const targets = await choiceValued();
    expect(targets.length).toBeGreaterThanOrEqual(5);
    const missed: string[] = [];
    for (const { path, target, flag } of targets) {
      const meant = target.argChoices!.at(-1)!;
      // A letter dropped from the middle: `manul` for `manual`.
      const typo = `${meant.slice(0, 2)}${meant.slice(3)}`;
      const args = flag ? [...path, flag, typo] : [...path, typo];
      const result = await runCommand(args);
      if (result.code !== 2 || !result.stderr.includes(`did you mean ${meant}?`))
        missed.push(`${args.join(' ')} → ${result.code}: ${result.stderr.trim()}`);
    }
    expect(missed).toEqual([]);
  });

  it('says which, as in the first hour: sandbox --journey manul', async () => {
    const result = await runCommand(['sandbox', '--journey', 'manul']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: --journey "manul" is not one of auto, manual; did you mean manual? (hint: --journey manual)\n',
    );
  });

  it('and the event type of webhooks trigger', async () => {
    const result = await runCommand([
      'webhooks',
      'trigger',
      'envelope.complete',
      '--to',
      'http://127.0.0.1:9/',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('did you mean envelope.completed?');
    expect(result.stderr).toContain('sign-cli webhooks trigger envelope.completed --to http://127.0.0.1:9/');
  });
});

describe('a required argument left out', () => {
  it('envelopes verify: the usage naming <file|dir...>, and an example', async () => {
    const result = await runCommand(['envelopes', 'verify']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: missing required argument 'file\|dir' \(usage: sign-cli envelopes verify \[options\] <file\|dir\.\.\.>; e\.g\. sign-cli envelopes verify signed\.pdf [^\n]*\)\n$/,
    );
  });
});
