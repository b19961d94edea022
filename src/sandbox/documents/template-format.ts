/**
 * The plain-text format of a document template (docs/sandbox.md, "Document templates"): the
 * built-in templates are written in it, and `sandbox --templates <dir>` reads an integrator's.
 *
 *   [en]                      a language's text starts (a two-letter code); one or more per file
 *   # Office lease            the document's heading (once per language, first)
 *   ## 1. Premises            a section heading
 *   - An item                 one item of a list (one line)
 *   Any other line            paragraph text; lines that follow join it, a blank line ends it
 *   {{party.1}}               a value from the envelope (PLACEHOLDERS), anywhere in the text
 *
 * Lines starting with `//` are comments. Anything the format cannot use (text before the first
 * `[xx]`, a language twice, a second `#`, an unknown placeholder) is an error naming its line,
 * so a mistake is seen when the sandbox starts, not by a signer.
 */

import { UsageError } from '../../core/errors.js';

/** One block of a document: its heading, a section heading, a paragraph or a list item. */
export interface Block {
  kind: 'title' | 'heading' | 'paragraph' | 'item';
  /** Its text, with its `{{…}}` placeholders still in it. */
  text: string;
}

/** A template's text in each of its languages (two-letter codes), each starting with its title. */
export type TemplateTexts = ReadonlyMap<string, readonly Block[]>;

/** What `{{…}}` may name: each is filled from the envelope (fill.ts). */
export const PLACEHOLDERS = [
  'title',
  'contract_id',
  'date',
  'expiry',
  'parties',
  'party.N',
  'template',
  'version',
  'envelope',
] as const;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const known = (name: string): boolean =>
  /^party\.[1-9]\d?$/.test(name) || (PLACEHOLDERS as readonly string[]).includes(name);

/** A template that cannot be used (exit 2: the sandbox does not start): `where` is `<file>:<line>`. */
export class TemplateError extends UsageError {
  constructor(
    readonly where: string,
    readonly problem: string,
  ) {
    super(`${where}: ${problem}`, {
      hint: 'the format of a template: docs/sandbox.md, "Document templates"',
    });
  }
}

/** The texts of a template written in the format above; `name` says where it comes from, for errors. */
export function parseTemplate(source: string, name: string): TemplateTexts {
  const texts = new Map<string, Block[]>();
  let blocks: Block[] | undefined;
  let paragraph: Block | undefined;
  const lines = source.replace(/^\ufeff/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, i) => {
    const fail = (problem: string): never => {
      throw new TemplateError(`${name}:${i + 1}`, problem);
    };
    const line = raw.trim();
    const language = /^\[([a-z]{2})\]$/.exec(line);
    if (language) {
      if (texts.has(language[1]!)) fail(`the language [${language[1]!}] comes twice`);
      texts.set(language[1]!, (blocks = []));
      paragraph = undefined;
      return;
    }
    if (line === '' || line.startsWith('//')) {
      if (line === '') paragraph = undefined;
      return;
    }
    if (!blocks) return fail('text before the first language line: start the file with [en] or [ar]');
    for (const [, placeholder] of line.matchAll(PLACEHOLDER))
      if (!known(placeholder!))
        fail(
          `{{${placeholder!}}} is not a value the sandbox fills in; use one of ${PLACEHOLDERS.join(', ')}`,
        );
    if (/\{\{|\}\}/.test(line.replace(PLACEHOLDER, ''))) fail('a {{ without its }} (or the other way round)');
    const heading = /^(#{1,2})\s+(.*)$/.exec(line);
    if (heading && heading[1] === '#') {
      if (blocks.length > 0) fail('the document heading (# …) comes once, first in its language');
      blocks.push({ kind: 'title', text: heading[2]! });
      paragraph = undefined;
    } else if (blocks.length === 0) {
      fail('a language starts with its document heading: a line "# The title"');
    } else if (heading) {
      blocks.push({ kind: 'heading', text: heading[2]! });
      paragraph = undefined;
    } else if (/^[-*]\s+/.test(line)) {
      blocks.push({ kind: 'item', text: line.replace(/^[-*]\s+/, '') });
      paragraph = undefined;
    } else if (paragraph) {
      paragraph.text += ` ${line}`;
    } else {
      blocks.push((paragraph = { kind: 'paragraph', text: line }));
    }
  });
  if (texts.size === 0) throw new TemplateError(name, 'no language in it: start the file with [en] or [ar]');
  for (const [language, content] of texts)
    if (content.length === 0) throw new TemplateError(name, `[${language}] has no text`);
  return texts;
}

/** The placeholders of a text, in order, each named once per occurrence. */
export const placeholdersOf = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);

/** A text with each placeholder replaced by `value(name)`. */
export const fillText = (text: string, value: (name: string) => string): string =>
  text.replace(PLACEHOLDER, (_, name: string) => value(name));
