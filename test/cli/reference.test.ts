/**
 * The generated reference is the commands' own words: docs/commands/*.md,
 * man/*.1 and the package.json `man` list are what src/cli/reference renders
 * now (`npm run docs` rewrites them), and every command has its words, its
 * examples, its page, its man page and its in-process test file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docOf } from '../../src/cli/help/command-doc.js';
import { allCommands } from '../../src/cli/help/help.js';
import { testIo } from '../../src/cli/process/memory-io.js';
import { buildProgram } from '../../src/cli/program.js';
import { DOCS_DIR, MAN_DIR, manList, renderReference } from '../../src/cli/reference/generate.js';
import { roffText } from '../../src/cli/reference/man.js';
import { ROOT } from '../helpers/paths.js';

const files = await renderReference();
const program = await buildProgram({
  signal: new AbortController().signal,
  io: testIo(),
  argv: [],
  exitCode: 0,
});
/** Every command a user can run (groups and hidden ones aside), as its words after sign-cli. */
const runnable = allCommands(program)
  .filter((c) => c.parent && c.name() !== 'help' && !(c as unknown as { _hidden: boolean })._hidden)
  .filter((c) => c.commands.filter((s) => s.name() !== 'help').length === 0 || c.name() === 'sandbox')
  .map((c) => {
    const words: string[] = [];
    for (let at: typeof c | null = c; at?.parent; at = at.parent) words.unshift(at.name());
    return { command: c, words };
  });

describe('the generated reference', () => {
  it('is what `npm run docs` writes now (run it after changing a command)', () => {
    const stale: string[] = [];
    for (const [path, content] of files) {
      const file = join(ROOT, path);
      if (!existsSync(file) || readFileSync(file, 'utf8') !== content) stale.push(path);
    }
    for (const dir of [DOCS_DIR, MAN_DIR]) {
      for (const name of readdirSync(join(ROOT, dir)))
        if (!files.has(`${dir}/${name}`)) stale.push(`${dir}/${name} (no command has it)`);
    }
    expect(stale, 'stale generated files: run `npm run docs`').toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      man: string[];
      files: string[];
    };
    expect(pkg.man).toEqual(manList(files));
    expect(pkg.files).toContain('man');
  });

  it('gives every command its words, examples, page, man page and test file', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(27);
    const missing: string[] = [];
    for (const { command, words } of runnable) {
      const name = words.join(' ');
      const doc = docOf(command);
      if (!doc) missing.push(`${name}: no CommandDoc`);
      else if (doc.examples.length === 0) missing.push(`${name}: no example`);
      if (!files.has(`${DOCS_DIR}/${words.join('-')}.md`)) missing.push(`${name}: no page`);
      if (!files.has(`${MAN_DIR}/sign-cli-${words.join('-')}.1`)) missing.push(`${name}: no man page`);
      const testFile = join(ROOT, 'test/cli/commands', words[0]!, `${words[1] ?? words[0]}.test.ts`);
      if (!existsSync(testFile)) missing.push(`${name}: no ${relative(ROOT, testFile)}`);
    }
    expect(missing).toEqual([]);
  });

  it('writes roff that cannot be taken for requests, and examples each man page and help show alike', () => {
    expect(roffText(".hidden request\n'quoted\na\\b --flag")).toBe(
      "\\&.hidden request\n\\&'quoted\na\\eb \\-\\-flag",
    );
    const page = files.get(`${MAN_DIR}/sign-cli-envelopes-create.1`)!;
    expect(page).toMatch(/^\.TH "SIGN-CLI-ENVELOPES-CREATE" 1 "" "sign-cli /m);
    expect(page).toContain('sign\\-cli envelopes create \\-f envelope.json');
    const markdown = files.get(`${DOCS_DIR}/envelopes-create.md`)!;
    expect(markdown).toContain('| `-f, --file <path\\|->` |');
    expect(markdown).toContain('sign-cli envelopes create -f envelope.json');
  });
});
