/**
 * The command tree as shell completion sees it: each command's words, its own
 * options and arguments with their completion hints, and the global options.
 * bash.ts, zsh.ts and fish.ts write a script from it.
 */
import type { Command } from 'commander';
import { completionOf, type Candidate, type Completion } from './hints.js';
import { optionDescription } from '../help/help.js';

export interface Node {
  /** Words of the command path after the program name, e.g. ['envelopes', 'create']. */
  path: string[];
  subcommands: Candidate[];
  /** Only the options this command defines (the program's are global). */
  own: Opt[];
  args: { name: string; variadic: boolean; completion: Completion }[];
}

export interface Opt {
  long: string;
  short?: string | undefined;
  description: string;
  takesValue: boolean;
  /** The value's name: `url` for `--base-url <url>`. */
  placeholder: string;
  completion: Completion;
}

export const HELP_OPTION: Opt = {
  long: '--help',
  short: '-h',
  description: 'display help for command',
  takesValue: false,
  placeholder: '',
  completion: { kind: 'none' },
};

export function walk(command: Command, path: string[] = []): Node[] {
  const own: Opt[] = command.options
    .filter((o) => !o.hidden && o.long)
    .map((o) => ({
      long: o.long!,
      short: o.short,
      // As help shows it, but the choices: the shell offers them.
      description: optionDescription(o, false),
      takesValue: o.required || o.optional,
      placeholder: /[<[]([^>\]]*)[>\]]/.exec(o.flags)?.[1] ?? '',
      completion: completionOf(o),
    }));
  const visible = command
    .createHelp()
    .visibleCommands(command)
    .filter((c) => c.name() !== 'help');
  const node: Node = {
    path,
    subcommands: visible.map((c) => ({ name: c.name(), description: c.description() })),
    own,
    args: command.registeredArguments.map((a) => ({
      name: a.name(),
      variadic: a.variadic,
      completion: completionOf(a),
    })),
  };
  return [node, ...visible.flatMap((c) => walk(c, [...path, c.name()]))];
}

export interface Tree {
  nodes: Node[];
  /** The program's options (but --version) and --help: accepted after any command. */
  globals: Opt[];
  /** Every flag that takes a value, so its value is not taken for a command word. */
  valued: string[];
  /** `parent/child` for every subcommand ('' being the program). */
  pairs: string[];
}

export function tree(program: Command): Tree {
  const nodes = walk(program);
  const globals = [...nodes[0]!.own.filter((o) => o.long !== '--version'), HELP_OPTION];
  const flags = (o: Opt) => [o.long, ...(o.short ? [o.short] : [])];
  const valued = [...new Set(nodes.flatMap((n) => n.own.filter((o) => o.takesValue).flatMap(flags)))];
  const pairs = nodes.flatMap((n) => n.subcommands.map((s) => `${n.path.join(' ')}/${s.name}`));
  return { nodes, globals, valued, pairs };
}

export const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
export const flagsOf = (o: Opt) => [o.long, ...(o.short ? [o.short] : [])];
/** Option values that are offered by name: choices, hints and dynamic lists. */
export const valueOptions = (t: Tree) => {
  const byFlag = new Map<string, Opt>();
  for (const node of t.nodes)
    for (const o of node.own) if (o.takesValue) for (const flag of flagsOf(o)) byFlag.set(flag, o);
  return byFlag;
};

/** `case "$npos"` over a command's positional arguments. */
export function argumentCases(
  node: Node,
  reply: (c: Completion, label: string) => string,
  indent: string,
  pattern: (p: string) => string,
): string {
  const cases = node.args.map(
    (arg, i) => `${indent}  ${pattern(arg.variadic ? '*' : String(i))} ${reply(arg.completion, arg.name)} ;;`,
  );
  const variadic = node.args.at(-1)?.variadic;
  if (!variadic) cases.push(`${indent}  ${pattern('*')} ${reply({ kind: 'none' }, 'no more arguments')} ;;`);
  return `case "$npos" in\n${cases.join('\n')}\n${indent}esac`;
}

/** A description on one line, for the shells that show one beside a candidate. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
