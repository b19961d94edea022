/**
 * The examples of the README and of docs/commands, run as written: each
 * page's `sh` blocks as one bash script in a directory of its own (a copy of
 * the by-hand session's scratch directory), after the by-hand block's
 * session: its sandbox's credentials.env sourced, `$repo` the repository and
 * `$id` its envelope, `sign-cli` on PATH as the built binary, and a config
 * directory of the page's own. A line that
 * exits non-zero fails its page, naming the line. A server started in the
 * foreground (`webhooks listen`, `sandbox` without --detach) is stopped with
 * Ctrl-C once it says it is ready, and must exit 0, as it does when a person
 * stops it (one SIGINT to it alone, as a terminal sends: a second one, or one
 * to its whole group, is "Ctrl-C again": quit at once, exit 130). See
 * ctrl-c-when-ready.mjs: it waits for the server's ready line, not for a moment.
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { BIN, ROOT, tempDir } from './paths.js';

export interface ExamplePage {
  name: string;
  lines: string[];
}

/** `sh` code blocks of a Markdown file, as lines (a trailing `\` joins the next line). */
export function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let pending = '';
    for (const raw of block[1]!.split('\n')) {
      const line = pending + raw;
      if (line.endsWith('\\')) {
        pending = `${line.slice(0, -1)} `;
        continue;
      }
      pending = '';
      if (line.trim() !== '' && !line.trim().startsWith('#')) lines.push(line);
    }
  }
  return lines;
}

/** The README's examples (but its by-hand section, run in tmux) and every page of docs/commands. */
export function examplePages(): ExamplePage[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const byHandStart = readme.indexOf('### By hand, against the local sandbox');
  const byHandEnd = readme.indexOf('\n## ', byHandStart + 1);
  const outsideByHand = readme.slice(0, byHandStart) + readme.slice(byHandEnd);
  const pages: ExamplePage[] = [
    { name: 'README.md', lines: shellLines(outsideByHand).filter((line) => !/^npm /.test(line.trim())) },
  ];
  const dir = join(ROOT, 'docs', 'commands');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    pages.push({ name: `docs/commands/${file}`, lines: shellLines(readFileSync(join(dir, file), 'utf8')) });
  }
  return pages.filter((page) => page.lines.length > 0);
}

/**
 * A server in the foreground, or a command that follows until Ctrl-C (`sandbox outbox --follow`):
 * stopped with Ctrl-C once it says it is ready. `sandbox stop` and `sandbox outbox` alone end by
 * themselves.
 */
const SERVER =
  /^\s*(?:\w+=\S+\s+)*sign-cli (?:webhooks listen\b|sandbox(?!\s+stop\b)(?!\s+outbox\b(?!.*--follow\b))(?!.*--detach\b))(?!.*&\s*(?:#.*)?$)/;

/** Runs a server's line and presses Ctrl-C once the server says it is ready. */
const CTRL_C_WHEN_READY = join(ROOT, 'test', 'helpers', 'ctrl-c-when-ready.mjs');

function script(page: ExamplePage): string {
  const out = ['set -u'];
  page.lines.forEach((line, i) => {
    const command = SERVER.test(line)
      ? `${JSON.stringify(process.execPath)} ${JSON.stringify(CTRL_C_WHEN_READY)} ${JSON.stringify(line.replace(/\s+#.*$/, ''))}`
      : line;
    // `rc`, not `status`: zsh's $status is $? and read-only.
    out.push(
      command,
      `rc=$?; if [ "$rc" -ne 0 ]; then echo "EXAMPLE-FAILED ${i + 1} exit $rc" >&2; exit 1; fi`,
    );
  });
  out.push('wait');
  return `${out.join('\n')}\n`;
}

export interface SessionFacts {
  /** The by-hand block's scratch directory (envelope.json and what it wrote). */
  scratch: string;
  id: string;
  home: string;
  credentials: string;
}

/**
 * The shells a person pastes into: bash, and zsh as macOS ships it (`zsh -f`: no rc files, so
 * interactive_comments off) reading the page as a paste, interactively (`-i -s`: a zsh script run
 * reads comments, a pasted block does not).
 */
export type PasteShell = 'bash' | 'zsh';
const SHELL_ARGS: Record<PasteShell, (file: string) => string[]> = {
  bash: (file) => ['--norc', '--noprofile', file],
  zsh: () => ['-f', '-i', '-s'],
};

function runPage(
  page: ExamplePage,
  facts: SessionFacts,
  bin: string,
  shell: PasteShell,
): Promise<string | undefined> {
  const dir = join(tempDir('sign-cli-examples-'), basename(page.name, '.md'));
  mkdirSync(dir);
  cpSync(facts.scratch, dir, { recursive: true });
  const file = join(dir, '..', 'examples.sh');
  writeFileSync(
    file,
    `. ${JSON.stringify(facts.credentials)}\nexport SIGN_BASE_URL SIGN_API_KEY SIGN_WEBHOOK_SECRET\n${script(page)}`,
  );
  return new Promise((resolve) => {
    const child = spawn(shell, SHELL_ARGS[shell](file), {
      cwd: dir,
      // A config of the page's own: one page's settings and profiles are not another's.
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: facts.home,
        SIGN_CONFIG_DIR: join(dir, '..', 'config'),
        TMPDIR: process.env.TMPDIR ?? '/tmp',
        LANG: 'C.UTF-8',
        NO_COLOR: '1',
        repo: ROOT,
        id: facts.id,
      },
      stdio: [shell === 'zsh' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    if (shell === 'zsh') child.stdin!.end(readFileSync(file));
    let stderr = '';
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    // A guard against a page that hangs, not a speed limit: on one loaded core the README's page
    // alone took over 90 s, so it sits below the calling test's own timeout with room to spare.
    const timer = setTimeout(() => child.kill('SIGKILL'), PAGE_HANG_GUARD_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) return resolve(undefined);
      const failed = /EXAMPLE-FAILED (\d+) exit (\d+)/.exec(stderr);
      const line = failed ? page.lines[Number(failed[1]) - 1] : undefined;
      resolve(
        `${page.name} (${shell}): ${line ? `\`${line.trim()}\` exited ${failed![2]}` : `exit ${code}`}\n${stderr.slice(-1500)}${stdout.slice(-500)}`,
      );
    });
  });
}

/** Kills a page's shell after this long; the tests that run pages allow 600 s. */
const PAGE_HANG_GUARD_MS = 420_000;

/** Runs every page (four at a time); the failures, one message each. */
export async function runExamplePages(
  pages: ExamplePage[],
  facts: SessionFacts,
  shell: PasteShell = 'bash',
): Promise<string[]> {
  const bin = tempDir('sign-cli-examples-bin-');
  writeFileSync(
    join(bin, 'sign-cli'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`,
  );
  chmodSync(join(bin, 'sign-cli'), 0o755);
  const failures: string[] = [];
  const queue = [...pages];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let page = queue.shift(); page; page = queue.shift()) {
        const failure = await runPage(page, facts, bin, shell);
        if (failure) failures.push(failure);
      }
    }),
  );
  return failures;
}
