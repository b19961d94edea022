import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { describeWithDefault } from '../../src/cli/help/help.js';
import { buildProgram } from '../../src/cli/program.js';
import { runCommand, testIo } from '../helpers/in-process.js';

const GROUPS = ['envelopes', 'webhooks', 'keys', 'config'];

/** Every command of the tree (the program first), as built by the CLI. */
async function commands(): Promise<{ path: string[]; command: Command }[]> {
  const program = await buildProgram({
    signal: new AbortController().signal,
    io: testIo(),
    argv: [],
    exitCode: 0,
  });
  const walk = (command: Command, path: string[]): { path: string[]; command: Command }[] => [
    { path, command },
    ...command.commands.flatMap((c) => walk(c, [...path, c.name()])),
  ];
  return walk(program, []);
}

/** Raw control characters (but line feed). */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('help', () => {
  it('a subcommand lists the global options it inherits, --json among them', async () => {
    const result = await runCommand(['envelopes', 'get', '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const globals = result.stdout.slice(
      result.stdout.indexOf('Global options ('),
      result.stdout.indexOf('Examples:'),
    );
    // The command's own options come first, the inherited ones after (gh's INHERITED FLAGS).
    expect(result.stdout.indexOf('Options:')).toBeLessThan(result.stdout.indexOf('Global options ('));
    for (const flag of ['--json', '--base-url <url>', '--profile <name>', '--verbose', '--timeout <seconds>'])
      expect(globals).toContain(flag);
    // Short, as gh shows them: terms only, pointing to where they are described.
    expect(globals).toContain('sign-cli --help');
    expect(globals).toContain('sign-cli help environment');
    expect(globals).not.toContain('per-request timeout');
    // --version is the program's alone.
    expect(globals).not.toContain('--version');
  });

  it('ends with one newline, so the prompt starts on a line of its own', async () => {
    const results = await Promise.all(
      [[], ['envelopes'], ['envelopes', 'create'], ['help', 'environment']].map((path) =>
        runCommand(path[0] === 'help' ? path : [...path, '--help']),
      ),
    );
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/[^\n]\n$/);
    }
  });

  it('`help envelopes create` is `envelopes create --help`, at any depth', async () => {
    const [viaHelp, viaFlag, viaGroup] = await Promise.all([
      runCommand(['help', 'envelopes', 'create']),
      runCommand(['envelopes', 'create', '--help']),
      runCommand(['envelopes', 'help', 'create']),
    ]);
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toMatch(/^Usage: sign-cli envelopes create /);
    for (const result of [viaHelp, viaGroup]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(viaFlag.stdout);
    }
  });

  it('the program and every group have Examples, on stdout with exit 0', async () => {
    const results = await Promise.all(
      [[], ...GROUPS.map((g) => [g])].map((path) => runCommand([...path, '--help'])),
    );
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(/\nExamples:\n {2}\$ .*sign-cli /);
    }
  });

  it('a group alone shows its help on stdout, exit 0', async () => {
    const [alone, flag] = await Promise.all([runCommand(['keys']), runCommand(['keys', '--help'])]);
    expect(alone.code).toBe(0);
    expect(alone.stderr).toBe('');
    expect(alone.stdout).toBe(flag.stdout);
  });

  it('help for a command that does not exist is a usage error naming it', async () => {
    const result = await runCommand(['help', 'envelopes', 'crate']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("unknown command 'sign-cli envelopes crate'");
    expect(result.stderr).toContain('create');
  });
});

// Every command of the tree, built once (the whole tree loads every noun's code).
const all = await commands();

describe('help of every command', () => {
  it('has no raw control characters', () => {
    for (const { command } of all) expect(command.helpInformation()).not.toMatch(CONTROL);
  });

  it('lists the global options in every subcommand, after its own commands and options', () => {
    for (const { path, command } of all.filter((c) => c.path.length > 0)) {
      const text = command.helpInformation();
      expect(text, path.join(' ')).toMatch(/Global options \([^\n]*\n(?: {2}\S[^\n]*\n){1,6}(?:\n|$)/);
      expect(text, path.join(' ')).toMatch(/Global options \([\s\S]*--json/);
      const globalsAt = text.indexOf('Global options (');
      if (text.includes('Commands:'))
        expect(text.indexOf('Commands:'), path.join(' ')).toBeLessThan(globalsAt);
      expect(text.indexOf('\nOptions:'), path.join(' ')).toBeLessThan(globalsAt);
    }
  });

  it("a group's commands are on the first screen (24 rows)", () => {
    for (const { path, command } of all.filter((c) => c.command.commands.length > 0)) {
      const lines = command.helpInformation().split('\n');
      const commandsAt = lines.indexOf('Commands:');
      expect(commandsAt, path.join(' ') || 'sign-cli').toBeGreaterThan(0);
      expect(commandsAt, path.join(' ') || 'sign-cli').toBeLessThan(8);
    }
  });

  it('shows every default one way: `(…; default: X)` at the end, unquoted', () => {
    for (const { path, command } of all) {
      const help = command.createHelp();
      for (const option of command.options) {
        const text = help.optionDescription(option);
        const where = `${path.join(' ')} ${option.flags}: ${text}`;
        if (/\bdefault\b/i.test(text)) expect(text, where).toMatch(/\((?:[^()]*; )?default: [^"()][^()]*\)$/);
        expect(text, where).not.toMatch(/\bdefault\b(?!: )/i);
      }
      for (const argument of command.registeredArguments) {
        const text = help.argumentDescription(argument);
        expect(text, `${path.join(' ')} <${argument.name()}>: ${text}`).not.toMatch(/\bdefault\b(?!: )/i);
      }
    }
  });
});

describe('describeWithDefault', () => {
  it.each([
    ['requests in flight at once (default 32)', {}, 'requests in flight at once (default: 32)'],
    ['retries (env SIGN_RETRIES; default 5)', {}, 'retries (env SIGN_RETRIES; default: 5)'],
    [
      'key to send (one input only); default: derived from the body',
      {},
      'key to send (one input only; default: derived from the body)',
    ],
    [
      'port to listen on; 0 picks a free one',
      { defaultText: '4020' },
      'port to listen on; 0 picks a free one (default: 4020)',
    ],
    [
      'signature scheme (default: config, else standard)',
      { choices: ['standard', 'stripe'] },
      'signature scheme (choices: standard, stripe; default: config, else standard)',
    ],
    ['a header (repeatable)', {}, 'a header (repeatable)'],
    ['secret file (else env SECRET)', { defaultText: 'x' }, 'secret file (else env SECRET; default: x)'],
    ['plain', {}, 'plain'],
  ])('%s', (description, extra, expected) => {
    expect(describeWithDefault(description, extra)).toBe(expected);
  });
});
