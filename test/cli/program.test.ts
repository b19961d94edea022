/**
 * The CLI builds only the part of the command tree a command line names
 * (src/cli/program.ts: programFor): the named noun whole; the others, where their help lines
 * may show, as stand-ins with their help line. What a user sees is what the whole tree gives.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { testIo } from '../../src/cli/process/memory-io.js';
import { buildProgram, namedCommands, namedSubcommand, programFor } from '../../src/cli/program.js';
import { rootProgram } from '../../src/cli/root.js';
import { runCommand } from '../helpers/in-process.js';

const state = (argv: string[]) => ({
  signal: new AbortController().signal,
  io: testIo({ columns: 100 }),
  argv,
  exitCode: 0,
});

describe('the command tree a command line needs', () => {
  it('finds the named command past the global options and their values, and after help', () => {
    const program = rootProgram(state([]));
    expect(namedCommands(program, ['keys', 'list', '--local'])).toEqual(['keys']);
    expect(namedCommands(program, ['--profile', 'keys', '--json', 'envelopes', 'get', 'x'])).toEqual([
      'envelopes',
    ]);
    expect(namedCommands(program, ['--base-url=http://x', '-v', 'doctor'])).toEqual(['doctor']);
    expect(namedCommands(program, ['help', 'envelopes', 'create'])).toEqual(['help', 'envelopes']);
    expect(namedCommands(program, ['--help'])).toEqual([]);
    expect(namedCommands(program, ['--', 'keys'])).toEqual([]);
  });

  it('finds the command named within the top-level one, after help too', () => {
    const program = rootProgram(state([]));
    expect(namedSubcommand(program, ['envelopes', 'validate', 'x.json'])).toBe('validate');
    expect(namedSubcommand(program, ['--profile', 'prod', 'envelopes', '--json', 'get', 'env_1'])).toBe(
      'get',
    );
    expect(namedSubcommand(program, ['help', 'envelopes', 'create'])).toBe('create');
    expect(namedSubcommand(program, ['envelopes', '--help'])).toBeUndefined();
    expect(namedSubcommand(program, ['envelopes', '--', 'validate'])).toBeUndefined();
  });

  it('registers the named noun whole, and the others as stand-ins only where their help lines may show', async () => {
    const program = await programFor(state(['keys', 'list']));
    expect(program.commands.map((c) => c.name()).filter((name) => name !== 'help')).toEqual(['keys']);
    expect(program.commands[0]!.commands.map((c) => c.name())).toContain('list');
    for (const argv of [['help', 'keys'], ['kyes', 'list'], ['--help']]) {
      const withStandIns = await programFor(state(argv));
      const envelopes = withStandIns.commands.find((c) => c.name() === 'envelopes')!;
      expect(envelopes.commands, argv.join(' ')).toHaveLength(0);
    }
  });

  it("a command's help is the whole tree's, word for word", async () => {
    const helpOf = (program: Command, path: string[]) => {
      let command = program;
      for (const name of path) command = command.commands.find((c) => c.name() === name)!;
      return command.helpInformation();
    };
    const whole = await buildProgram(state([]));
    for (const path of [['keys', 'list'], ['envelopes', 'validate'], ['envelopes', 'create'], ['keys']])
      expect(helpOf(await programFor(state([...path, '--help'])), path), path.join(' ')).toBe(
        helpOf(whole, path),
      );
  });

  it('registers only the envelopes command a line names; every command otherwise', async () => {
    // Each group also has a `help` command of its own (help.ts), whatever is registered.
    const namesIn = (program: Command) =>
      program.commands
        .find((c) => c.name() === 'envelopes')!
        .commands.map((c) => c.name())
        .filter((name) => name !== 'help');
    const commandsOf = async (argv: string[]) => namesIn(await programFor(state(argv)));
    const whole = namesIn(await buildProgram(state([])));
    expect(whole.length).toBeGreaterThan(5);
    expect(await commandsOf(['envelopes', 'validate', 'x.json'])).toEqual(['validate']);
    expect(await commandsOf(['help', 'envelopes', 'create'])).toEqual(['create']);
    // The group's own help, a word that is none of its commands, and help: every command, in order.
    expect(await commandsOf(['envelopes', '--help'])).toEqual(whole);
    expect(await commandsOf(['envelopes', 'validat'])).toEqual(whole);
    expect(await commandsOf(['envelopes', 'help', 'validate'])).toEqual(whole);
    // Another noun named: envelopes is not there at all.
    const keys = await programFor(state(['keys', 'validate']));
    expect(keys.commands.find((c) => c.name() === 'envelopes')).toBeUndefined();
  });

  it("the program's help is the whole tree's, word for word, with no noun loaded", async () => {
    const render = async (argv: string[]) => {
      const program = argv.length ? await programFor(state(argv)) : await buildProgram(state([]));
      return program.helpInformation();
    };
    const whole = await render([]);
    expect(await render(['--help'])).toBe(whole);
    expect(whole).toContain('api [options] <path>');
    expect(whole).not.toContain('__complete');
  });

  it('help at any depth, suggestions and completion scripts are as before', async () => {
    const help = await runCommand(['help', 'envelopes', 'create']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: sign-cli envelopes create/);
    const typo = await runCommand(['envelope', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean envelopes?)');
    const command = await runCommand(['envelopes', 'validat', 'x.json']);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('(Did you mean validate?)');
    const group = await runCommand(['envelopes', '--help']);
    expect(group.stdout).toMatch(/validate \[options\] \[path\.\.\.\]/);
    expect(group.stdout).toContain('verify');
    const script = await runCommand(['completion', 'bash']);
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('webhooks');
    expect(script.stdout).toContain('--dry-run');
  });
});
