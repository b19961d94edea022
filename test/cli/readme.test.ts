/**
 * The README is the front door: the files its examples name exist, and every
 * `sign-cli …` command it shows is a real command of the built CLI, with
 * options that command accepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
const commandLines = blocks
  .flatMap((block) => block.split('\n'))
  .map((line) => line.replace(/#.*$/, '').trim())
  .flatMap((line) => [...line.matchAll(/(?:^|[|;&(]\s*|\$\()sign-cli ([^|;&)]*)/g)].map((m) => m[1]!.trim()));

describe('README', () => {
  it('names files that exist in the repository', () => {
    const paths = [...new Set([...readme.matchAll(/(?<![\w/.~-])((?:examples|docs|scripts|bench|completions)\/[\w./-]+\w)/g)].map((m) => m[1]!))];
    expect(paths.length).toBeGreaterThan(3);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('shows only commands and options the CLI has', async () => {
    expect(commandLines.length).toBeGreaterThan(40);
    const problems: string[] = [];
    const helpCache = new Map<string, string>();
    for (const line of commandLines) {
      const words = line.split(/\s+/).filter((w) => !w.startsWith('"') && !w.startsWith("'"));
      // The command path: leading words that are not options or values.
      const path: string[] = [];
      for (const word of words) {
        if (word.startsWith('-') || word.includes('/') || word.includes('.') || word.includes('$') || /^[A-Z<]/.test(word)) break;
        path.push(word);
        if (path.length === 3) break;
      }
      let help: string | undefined;
      for (let n = path.length; n >= 1 && help === undefined; n--) {
        const key = path.slice(0, n).join(' ');
        if (!helpCache.has(key)) {
          const result = await runCli([...path.slice(0, n), '--help']);
          helpCache.set(key, result.code === 0 ? result.stdout : '');
        }
        if (helpCache.get(key)) help = helpCache.get(key);
      }
      if (!help) {
        problems.push(`${line}: no such command`);
        continue;
      }
      for (const option of words.filter((w) => /^--?[a-zA-Z]/.test(w)).map((w) => w.split('=')[0]!)) {
        if (!new RegExp(`(^|[\\s,])${option.replace(/[-]/g, '\\-')}\\b`, 'm').test(help)) problems.push(`${line}: ${option} is not an option of sign-cli ${path.join(' ')}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
