/**
 * The README is the front door, and the guides under docs/ its rooms: the
 * files they name exist, their links lead somewhere, and every `sign-cli …`
 * command they show is a real command, with options that command accepts.
 * (That the examples also run is test/e2e/readme-by-hand.test.ts.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/in-process.js';
import { ROOT, tempDir } from '../helpers/paths.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const guides = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => ({ name: `docs/${f}`, text: readFileSync(join(ROOT, 'docs', f), 'utf8') }));
const pages = [{ name: 'README.md', text: readme }, ...guides];
const blocks = pages.flatMap((page) => [...page.text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!));
const commandLines = blocks
  .flatMap((block) => block.split('\n'))
  .map((line) => line.replace(/#.*$/, '').trim())
  .flatMap((line) => [...line.matchAll(/(?:^|[|;&(]\s*|\$\()sign-cli ([^|;&)]*)/g)].map((m) => m[1]!.trim()));

describe('README', () => {
  it('names files that exist in the repository', () => {
    const paths = [
      ...new Set(
        [...readme.matchAll(/(?<![\w/.~-])((?:examples|docs|scripts|bench|completions)\/[\w./-]+\w)/g)].map(
          (m) => m[1]!,
        ),
      ),
    ];
    expect(paths.length).toBeGreaterThan(3);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('links only to files that exist, from the README and every guide', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const base = page.name === 'README.md' ? ROOT : join(ROOT, 'docs');
      for (const [, target] of page.text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        if (!existsSync(join(base, target!))) broken.push(`${page.name}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('has blocks a person pastes into bash or zsh: no shell comments in them (README and docs/commands)', () => {
    // zsh runs a pasted `# text` as a command (interactive_comments is off in `zsh -f` and stock macOS).
    const commandPages = readdirSync(join(ROOT, 'docs', 'commands')).filter((f) => f.endsWith('.md'));
    const shown = [
      { name: 'README.md', text: readme },
      ...guides,
      ...commandPages.map((f) => ({
        name: `docs/commands/${f}`,
        text: readFileSync(join(ROOT, 'docs', 'commands', f), 'utf8'),
      })),
    ];
    const commented = shown.flatMap((page) =>
      [...page.text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
        m[1]!
          .split('\n')
          .filter((line) => /(?:^|\s)#/.test(line))
          .map((line) => `${page.name}: ${line}`),
      ),
    );
    expect(commented).toEqual([]);
  });

  describe('by hand, against the local sandbox', () => {
    const byHand = readme.slice(readme.indexOf('### By hand, against the local sandbox'));
    const [main = '', listener = ''] = [...byHand.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

    it('can be pasted again in the same shell: nothing in it depends on the directory the first paste left', () => {
      // The first paste ends in its scratch directory: `$repo` is kept, the build runs in it, and no
      // --silent hides a failure (a build that cannot find package.json failed silently with 254).
      for (const block of [main, listener])
        expect(block).toMatch(
          /^repo=\$\{repo:-\$PWD\}; sign-cli\(\) \{ node "\$repo\/bin\/sign-cli\.js" "\$@"; \}$/m,
        );
      expect(main).toContain('npm --prefix "$repo" run build &&');
      expect(main).not.toMatch(/--silent|\bnpm run\b/);
      // Every other line runs in the scratch directory or names the repository by $repo.
      expect(
        main.split('\n').filter((line) => /\.\/|\bbin\/|\bdist\//.test(line) && !line.includes('$repo')),
      ).toEqual([]);
    });

    it('the listener block, pasted before the sandbox ever ran, says in one line what to run first', async () => {
      const command = /^sign-cli (webhooks listen .*)$/m.exec(listener)?.[1];
      expect(command).toBeDefined();
      const home = tempDir('sign-cli-readme-home-');
      // The block's words, as the shell expands them for a person who never started the sandbox.
      const args = command!
        .replace(/"\$\{XDG_DATA_HOME:-\$HOME\/\.local\/share\}([^"]*)"/g, `${home}/.local/share$1`)
        .split(' ');
      const result = await runCommand(args, { env: { HOME: home } });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`${home}/.local/share/sign-cli/sandbox/credentials.env: no such file`);
      expect(result.stderr).toContain('start it first: sign-cli sandbox --detach');
    });
  });

  it('is a front door, not the manual: under 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThan(250);
  });

  it('shows only commands and options the CLI has', async () => {
    expect(commandLines.length).toBeGreaterThan(25);
    const problems: string[] = [];
    const helpCache = new Map<string, string>();
    for (const line of commandLines) {
      const words = line.split(/\s+/).filter((w) => !w.startsWith('"') && !w.startsWith("'"));
      // The command path: leading words that are not options or values.
      const path: string[] = [];
      for (const word of words) {
        if (
          word.startsWith('-') ||
          word.includes('/') ||
          word.includes('.') ||
          word.includes('$') ||
          /^[A-Z<]/.test(word)
        )
          break;
        path.push(word);
        if (path.length === 3) break;
      }
      let help: string | undefined;
      for (let n = path.length; n >= 1 && help === undefined; n--) {
        const key = path.slice(0, n).join(' ');
        if (!helpCache.has(key)) {
          const result = await runCommand([...path.slice(0, n), '--help']);
          helpCache.set(key, result.code === 0 ? result.stdout : '');
        }
        if (helpCache.get(key)) help = helpCache.get(key);
      }
      if (!help) {
        problems.push(`${line}: no such command`);
        continue;
      }
      for (const option of words.filter((w) => /^--?[a-zA-Z]/.test(w)).map((w) => w.split('=')[0]!)) {
        if (!new RegExp(`(^|[\\s,])${option.replace(/[-]/g, '\\-')}\\b`, 'm').test(help))
          problems.push(`${line}: ${option} is not an option of sign-cli ${path.join(' ')}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
