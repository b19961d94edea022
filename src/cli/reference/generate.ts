/**
 * The generated reference, as files: docs/commands/*.md (one page per
 * command, one per help topic, README.md the index) and man/*.1, plus the
 * package.json `man` list. `npm run docs` writes them (scripts/gen-docs.mjs);
 * a test fails when what is committed differs from what this renders.
 */
import { Command } from 'commander';
import { VERSION } from '../../core/version.js';
import { testIo } from '../process/memory-io.js';
import { buildProgram } from '../program.js';
import { TOPICS } from '../help/topics.js';
import { manPage } from './man.js';
import { markdownPage, markdownTopic } from './markdown.js';
import { referencePages, type Item } from './tree.js';
import { optionDescription } from '../help/help.js';

export const DOCS_DIR = 'docs/commands';
export const MAN_DIR = 'man';
/** The top-level commands as the program's help lists them (src/cli/program.ts's programFor reads it). */
export const COMMAND_INDEX_FILE = 'src/cli/help/command-index.ts';

/** src/cli/help/command-index.ts: each top-level command's name, help term and summary, in help's order. */
function commandIndex(program: Command): string {
  const help = program.createHelp();
  const entries = program.commands
    .filter((c) => c.name() !== 'help')
    .map(
      (c) =>
        `  { name: ${JSON.stringify(c.name())}, term: ${JSON.stringify(help.subcommandTerm(c))}, summary: ${JSON.stringify(c.description())}, hidden: ${JSON.stringify(Boolean((c as unknown as { _hidden?: boolean })._hidden))} },`,
    );
  return [
    '// Written by `npm run docs` from the command tree (src/cli/program.ts); test/cli/reference.test.ts',
    "// fails when it is stale. The program's help lists these without loading their code.",
    "import type { IndexEntry } from './help.js';",
    '',
    'export const COMMAND_INDEX: readonly IndexEntry[] = [',
    ...entries,
    '];',
    '',
  ].join('\n');
}

/** Path (from the repository root) -> content, for every generated file. */
export async function renderReference(): Promise<Map<string, string>> {
  const program: Command = await buildProgram({
    signal: new AbortController().signal,
    io: testIo(),
    argv: [],
    exitCode: 0,
  });
  const help = program.createHelp();
  const globalOptions: Item[] = program.options
    .filter((o) => !o.hidden)
    .map((o) => ({ term: help.optionTerm(o), description: optionDescription(o) }));
  const files = new Map<string, string>();
  for (const page of referencePages(program)) {
    files.set(`${DOCS_DIR}/${page.base}.md`, markdownPage(page, globalOptions));
    files.set(`${MAN_DIR}/${page.manName}.1`, manPage(page, VERSION, globalOptions));
  }
  for (const topic of TOPICS) files.set(`${DOCS_DIR}/${topic.name}.md`, markdownTopic(topic));
  files.set(COMMAND_INDEX_FILE, commandIndex(program));
  return files;
}

/** The package.json `man` list: every generated man page, so `npm install -g` installs them. */
export function manList(files: Map<string, string>): string[] {
  return [...files.keys()]
    .filter((path) => path.startsWith(`${MAN_DIR}/`))
    .sort()
    .map((path) => `./${path}`);
}
