/**
 * The command tree as reference pages: which command gets which page and
 * man page, and what each page lists. The renderers (markdown.ts, man.ts)
 * only lay out what this gives them, so the two agree.
 */
import type { Command, Help, Option } from 'commander';
import { docOf, type CommandDoc } from '../help/command-doc.js';
import { allCommands, optionDescription } from '../help/help.js';

export interface Item {
  term: string;
  description: string;
}

export interface Page {
  /** Words after `sign-cli`: [] for the program, ['envelopes', 'create'] for a command. */
  path: string[];
  /** `envelopes-create`; `README` for the program (the index of docs/commands). */
  base: string;
  /** `sign-cli-envelopes-create`; `sign-cli` for the program. */
  manName: string;
  title: string;
  usage: string;
  doc: CommandDoc;
  arguments: Item[];
  options: Item[];
  /** The subcommands of a group, with the pages they are on. */
  commands: (Item & { page: Page | undefined })[];
  parent: Page | undefined;
}

const hidden = (command: Command) => (command as unknown as { _hidden?: boolean })._hidden === true;

function pathOf(command: Command): string[] {
  const words: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) words.unshift(c.name());
  return words;
}

function optionItems(options: readonly Option[], help: Help): Item[] {
  return options
    .filter((o) => !o.hidden)
    .map((o) => ({ term: help.optionTerm(o), description: optionDescription(o) }));
}

/** Every documented command of the program, the program first, parents before their children. */
export function referencePages(program: Command): Page[] {
  const pages = new Map<Command, Page>();
  for (const command of allCommands(program)) {
    const doc = docOf(command);
    if (!doc || hidden(command)) continue;
    const path = pathOf(command);
    const help = command.createHelp();
    pages.set(command, {
      path,
      base: path.length === 0 ? 'README' : path.join('-'),
      manName: ['sign-cli', ...path].join('-'),
      title: ['sign-cli', ...path].join(' '),
      usage: `${['sign-cli', ...path].join(' ')} ${help
        .commandUsage(command)
        .split(' ')
        .slice(1 + path.length)
        .join(' ')}`.trim(),
      doc,
      arguments: help
        .visibleArguments(command)
        .map((a) => ({ term: help.argumentTerm(a), description: help.argumentDescription(a) })),
      options: optionItems(
        command.options.filter((o) => o.long !== '--help'),
        help,
      ),
      commands: [],
      parent: command.parent ? pages.get(command.parent) : undefined,
    });
  }
  for (const [command, page] of pages) {
    page.commands = command.commands
      .filter((c) => !hidden(c) && c.name() !== 'help')
      .map((c) => ({ term: c.name(), description: c.description(), page: pages.get(c) }));
  }
  return [...pages.values()];
}
