/**
 * One prompter: questions go through the Io's prompter (src/cli/process/prompter.ts), so a
 * command that asks is tested in process with answers of its own; only that file loads inquirer,
 * and only when a question is asked (a dynamic import: start-up never loads it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PROMPTER = 'src/cli/process/prompter.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('one prompter', () => {
  it('loads @inquirer/prompts in the prompter alone, and only by a dynamic import', () => {
    const importers = sourceFiles(join(ROOT, 'src'))
      .filter((path) => readFileSync(path, 'utf8').includes('@inquirer/'))
      .map((path) => relative(ROOT, path).split('\\').join('/'));
    expect(importers).toEqual([PROMPTER]);
    const text = readFileSync(join(ROOT, PROMPTER), 'utf8');
    expect(text).not.toMatch(/^\s*import\s[^(]*['"]@inquirer\//m);
    expect(text).toMatch(/import\('@inquirer\/prompts'\)/);
  });
});
