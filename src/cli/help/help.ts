/**
 * Help that knows the tool: every command's help lists the global options it
 * inherits, `sign-cli help <command...>` shows that command's help at any
 * depth, defaults read the same everywhere (`(…; default: X)`, commander's
 * form), and help always goes to stdout with exit 0.
 */
import { Command, Help, type Argument, type HelpConfiguration, type Option } from 'commander';
import { UsageError } from '../../core/errors.js';
import { blocks, docOf, plainInline } from './command-doc.js';
import { TOPICS, topicNamed } from './topics.js';

/** Every command of the tree, the program first. */
export function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/**
 * One style for defaults: the description's own trailing parenthetical (if
 * any), then the choices, then `default: X`, all in one parenthetical at the
 * end. Prose defaults ("(default 32)", "(env X; default 5)", "…; default: …")
 * and commander's quoted ones ("(default: \"300\")") all end up as
 * `(…; default: X)`.
 */
export function describeWithDefault(
  description: string,
  extra: { choices?: readonly string[] | undefined; defaultText?: string | undefined } = {},
): string {
  let text = description.trim();
  let parts: string[] = [];
  let proseDefault: string | undefined;
  // "text; default: X" outside any parenthesis.
  const tail = /;\s*default:?\s+([^()]*)$/i.exec(text);
  if (tail) {
    proseDefault = tail[1]!.trim();
    text = text.slice(0, tail.index).trimEnd();
  }
  // The trailing "(a; default X; b)": keep a and b, lift the default out.
  const group = /\s*\(([^()]*)\)$/.exec(text);
  if (group) {
    const inner = group[1]!
      .split(/;\s*/)
      .map((p) => p.trim())
      .filter(Boolean);
    const kept = inner.filter((p) => !/^default\b/i.test(p));
    const found = inner.find((p) => /^default\b/i.test(p));
    if (
      found !== undefined ||
      extra.choices ||
      extra.defaultText !== undefined ||
      proseDefault !== undefined
    ) {
      if (found !== undefined) proseDefault ??= found.replace(/^default:?\s*/i, '');
      parts = kept;
      text = text.slice(0, group.index);
    }
  }
  if (extra.choices?.length) parts.push(`choices: ${extra.choices.join(', ')}`);
  const shown = extra.defaultText ?? proseDefault;
  if (shown !== undefined && shown !== '') parts.push(`default: ${shown}`);
  return parts.length ? `${text}${text ? ' ' : ''}(${parts.join('; ')})` : text;
}

/** A commander default as a person reads it: strings unquoted, arrays comma-separated. */
function defaultText(value: unknown, description: string | undefined): string | undefined {
  if (description) return description;
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length ? value.join(', ') : undefined;
  return JSON.stringify(value);
}

/** An option's description with its default, as help shows it; `withChoices` adds its choices too. */
export function optionDescription(option: Option, withChoices = true): string {
  // A boolean's default (false, or true for --no-x) is for the programmer, not the user.
  const valued = option.required || option.optional;
  return describeWithDefault(option.description, {
    choices: withChoices ? option.argChoices : undefined,
    defaultText: valued ? defaultText(option.defaultValue, option.defaultValueDescription) : undefined,
  });
}

function argumentDescription(argument: Argument): string {
  return describeWithDefault(argument.description, {
    choices: argument.argChoices,
    defaultText: defaultText(argument.defaultValue, argument.defaultValueDescription),
  });
}

/** Paragraphs of command-doc markup, wrapped to the help's width. */
export function formatBlocks(paragraphs: readonly string[], helper: Help, width: number): string[] {
  const wrap = (text: string, indent: number) =>
    helper.boxWrap(plainInline(text), width - indent).replace(/\n/g, `\n${' '.repeat(indent)}`);
  return blocks(paragraphs).flatMap((block) => {
    if (block.kind === 'list') return [...block.items.map((item) => `  - ${wrap(item, 4)}`), ''];
    if (block.kind === 'verbatim') return [...block.lines.map((line) => (line ? `  ${line}` : '')), ''];
    return [wrap(block.text, 0), ''];
  });
}

/**
 * A command's own words first, as gh's help does: usage, summary and details,
 * arguments, then its subcommands and its own options, and the options every
 * command inherits last ("Global options", gh's INHERITED FLAGS), so that a
 * group's commands are on the first screen; then its examples. commander's
 * own order puts the thirteen global options before the commands.
 */
function formatHelp(this: Help, command: Command, helper: Help): string {
  const termWidth = helper.padWidth(command, helper);
  const helpWidth = helper.helpWidth ?? 80;
  const item = (term: string, description: string) => helper.formatItem(term, termWidth, description, helper);
  const section = (title: string, items: string[]) =>
    items.length === 0 ? [] : [helper.styleTitle(title), ...items, ''];
  const description = helper.commandDescription(command);
  const doc = docOf(command);
  const details = formatBlocks(doc?.details ?? [], helper, helpWidth);
  const grouped = helper.visibleCommands(command).some((c) => c.name() !== 'help');
  const lines = [
    `${helper.styleTitle('Usage:')} ${helper.styleUsage(helper.commandUsage(command))}`,
    '',
    ...(description ? [helper.boxWrap(helper.styleCommandDescription(description), helpWidth), ''] : []),
    // A group's commands come first, on the first screen; its details after them.
    ...(grouped ? [] : details),
    ...section(
      'Arguments:',
      helper
        .visibleArguments(command)
        .map((a) =>
          item(
            helper.styleArgumentTerm(helper.argumentTerm(a)),
            helper.styleArgumentDescription(helper.argumentDescription(a)),
          ),
        ),
    ),
    ...section(
      'Commands:',
      helper
        .visibleCommands(command)
        .map((c) =>
          item(
            helper.styleSubcommandTerm(helper.subcommandTerm(c)),
            helper.styleSubcommandDescription(helper.subcommandDescription(c)),
          ),
        ),
    ),
    ...(grouped ? details : []),
    ...section(
      'Help topics:',
      command.parent ? [] : TOPICS.map((topic) => item(`help ${topic.name}`, topic.summary)),
    ),
    ...section(
      command.parent ? 'Options:' : 'Global options:',
      helper
        .visibleOptions(command)
        .map((o) =>
          item(
            helper.styleOptionTerm(helper.optionTerm(o)),
            helper.styleOptionDescription(helper.optionDescription(o)),
          ),
        ),
    ),
    ...section(
      'Global options (sign-cli --help; their env vars: sign-cli help environment):',
      inheritedTerms(
        helper.visibleGlobalOptions(command).map((o) => helper.optionTerm(o)),
        helpWidth,
      ),
    ),
    ...section(
      'Examples:',
      (doc?.examples ?? []).map((example) => `  $ ${example}`),
    ),
  ];
  // One newline at the end, as every line a command prints: the shell's prompt starts on its own line.
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

/**
 * The options a subcommand inherits, short (gh's INHERITED FLAGS): their terms packed into lines
 * of the help's width, so the thirteen of them take three lines instead of a screen. The
 * program's own help describes each; `help environment` the variables behind them.
 */
export function inheritedTerms(terms: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const term of terms) {
    if (line && 2 + line.length + 2 + term.length > width) {
      lines.push(`  ${line}`);
      line = '';
    }
    line = line ? `${line}  ${term}` : term;
  }
  if (line) lines.push(`  ${line}`);
  return lines;
}

/** What the program's help shows of a top-level command (src/cli/help/command-index.ts). */
export interface IndexEntry {
  readonly name: string;
  /** As help lists it: `api [options] <path>`. */
  readonly term: string;
  readonly summary: string;
  readonly hidden: boolean;
}

/** Stand-ins' help terms: a stand-in has no options or arguments of its own to derive one from. */
const standInTerms = new WeakMap<Command, string>();

/**
 * A top-level command whose code was not loaded (program.ts: programFor): its name and help line, so
 * the program's help and commander's "did you mean" are what the whole tree gives. Never run:
 * the command line that names it loads the real one.
 */
export function addStandIn(program: Command, entry: IndexEntry): void {
  const standIn = program
    .command(entry.name, { hidden: entry.hidden })
    .description(entry.summary)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      throw new Error(`internal error: the code of \`${entry.name}\` was not loaded for this command line`);
    });
  standInTerms.set(standIn, entry.term);
}

const HELP: HelpConfiguration = {
  showGlobalOptions: true,
  formatHelp,
  subcommandTerm(this: Help, command: Command): string {
    return standInTerms.get(command) ?? Help.prototype.subcommandTerm.call(this, command);
  },
  optionDescription: (option) => optionDescription(option),
  argumentDescription,
  // The program's options hold in every command; --version is the program's alone.
  visibleGlobalOptions(this: Help, command: Command): Option[] {
    const options: Option[] = [];
    for (let ancestor = command.parent; ancestor; ancestor = ancestor.parent) {
      options.push(...ancestor.options.filter((o) => !o.hidden && o.long !== '--version'));
    }
    return options;
  },
};

/**
 * `help [command...]` on the program and every group, as a real command: it
 * walks the whole path, so `sign-cli help envelopes create` is exactly
 * `sign-cli envelopes create --help` (commander's own help command only
 * looks one level down).
 */
function addHelpCommand(group: Command): void {
  group.helpCommand(false);
  group
    .command('help')
    .description('show help for a command')
    .argument(
      '[command...]',
      `the command, e.g. ${group.parent ? (group.commands[0]?.name() ?? '') : 'envelopes create; or a topic: environment, exit-codes, formatting'}`.trimEnd(),
    )
    .action((words: string[]) => {
      const topic = group.parent || words.length !== 1 ? undefined : topicNamed(words[0]!);
      if (topic) {
        const helper = group.createHelp();
        const width = group.configureOutput().getOutHelpWidth?.() ?? 80;
        helper.helpWidth = width;
        const text = [
          `${topic.summary[0]!.toUpperCase()}${topic.summary.slice(1)}`,
          '',
          ...formatBlocks(topic.details, helper, width),
        ]
          .join('\n')
          .replace(/\n+$/, '\n');
        group.configureOutput().writeOut?.(text);
        return;
      }
      let target = group;
      for (const [i, word] of words.entries()) {
        const next = target.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) {
          const known = target
            .createHelp()
            .visibleCommands(target)
            .map((c) => c.name())
            .filter((name) => name !== 'help');
          const path = [commandPath(group), ...words.slice(0, i + 1)].join(' ');
          throw new UsageError(`unknown command '${path}'`, {
            hint: `${commandPath(target)} has: ${known.join(', ')}`,
          });
        }
        target = next;
      }
      target.outputHelp();
    });
}

export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * Applies the help behaviour to the finished command tree: call once, after
 * every command is registered.
 */
export function finishHelp(program: Command): void {
  for (const command of allCommands(program)) {
    if (command.commands.length > 0) {
      addHelpCommand(command);
      // `sign-cli envelopes` alone shows the group's help: on stdout, exit 0 (commander
      // sends it to stderr as an error).
      const help = command.help.bind(command);
      command.help = () => help();
    }
  }
  for (const command of allCommands(program)) command.configureHelp(HELP);
}
