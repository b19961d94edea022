/**
 * A command's words, kept beside its registration (commands/<noun>/<verb>.ts):
 * a one-line summary, paragraphs that explain it, and examples that run as
 * written. From this one source come `--help` (help.ts), the pages under
 * docs/commands and the man pages (reference/), so they cannot drift apart.
 *
 * Paragraph markup, kept small so it reads the same in all three:
 * - a block whose lines all start with "- " is a list;
 * - a block whose lines all start with two spaces is shown as is (commands, samples);
 * - `code` and **strong** inline.
 */
import type { Command, CommandOptions } from 'commander';

export interface CommandDoc {
  /** One line, lower case, no full stop: the parent's command list and the page's first line. */
  summary: string;
  /** What the reader needs beyond the options, short: shown by --help too. */
  details?: string[];
  /** The full account (guarantees, formats, edge cases): the reference page and the man page only. */
  more?: string[];
  /** Command lines (with a `# comment` where it helps) that run as written against the sandbox. */
  examples: string[];
}

const docs = new WeakMap<Command, CommandDoc>();

/** Gives a command its words (the summary becomes its description). */
export function document(command: Command, doc: CommandDoc): Command {
  docs.set(command, doc);
  return command.description(doc.summary);
}

/** `parent.command(name)`, documented. */
export function defineCommand(
  parent: Command,
  name: string,
  doc: CommandDoc,
  options?: CommandOptions,
): Command {
  return document(parent.command(name, options), doc);
}

export function docOf(command: Command): CommandDoc | undefined {
  return docs.get(command);
}

export type Block =
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'verbatim'; lines: string[] };

/** The details as blocks (see the markup above). */
export function blocks(paragraphs: readonly string[]): Block[] {
  return paragraphs.map((paragraph): Block => {
    const lines = paragraph.split('\n');
    if (lines.every((line) => line.startsWith('- ')))
      return { kind: 'list', items: lines.map((line) => line.slice(2)) };
    if (lines.every((line) => line.startsWith('  ') || line === ''))
      return { kind: 'verbatim', lines: lines.map((line) => line.slice(2)) };
    return { kind: 'paragraph', text: lines.join(' ') };
  });
}

/** Inline markup for a terminal: `code` stays as typed, **strong** loses its stars. */
export function plainInline(text: string): string {
  return text.replace(/\*\*([^*]+)\*\*/g, '$1');
}
