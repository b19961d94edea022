/**
 * Completion in real shells: for bash, zsh and fish, the script is installed
 * the way the README says, then an interactive shell under tmux gets
 * `sign-cli … <TAB>` typed into it and the screen is read back.
 *
 * Needs tmux and the shells (`apt-get install -y tmux zsh fish bash-completion`);
 * a shell that is missing is skipped, saying why.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';

const has = (command: string) =>
  spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
/** bash-completion's loader (Debian, Ubuntu, Fedora); without it the script is sourced from ~/.bashrc. */
const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';
const PROMPT = 'PROMPT> ';

interface ShellSetup {
  /** The shell's start-up file (in the test's HOME) and its text. */
  rc: [string, string];
  /** The install commands, as a user types them (README), run by that shell. */
  install: string;
  argv: string[];
}

function setup(shell: 'bash' | 'zsh' | 'fish'): ShellSetup {
  switch (shell) {
    case 'bash':
      return existsSync(BASH_COMPLETION)
        ? {
            rc: ['.bashrc', `. ${BASH_COMPLETION}\nPS1='${PROMPT}'\n`],
            install:
              'mkdir -p ~/.local/share/bash-completion/completions && sign-cli completion bash > ~/.local/share/bash-completion/completions/sign-cli',
            argv: ['bash', '--noprofile', '--rcfile', '.bashrc', '-i'],
          }
        : {
            rc: ['.bashrc', `PS1='${PROMPT}'\n`],
            install: "echo 'source <(sign-cli completion bash)' >> ~/.bashrc",
            argv: ['bash', '--noprofile', '--rcfile', '.bashrc', '-i'],
          };
    case 'zsh':
      return {
        rc: [
          '.zshrc',
          `fpath=(~/.zsh/completions $fpath)\nautoload -U compinit && compinit\nPS1='${PROMPT}'\n`,
        ],
        install: 'mkdir -p ~/.zsh/completions && sign-cli completion zsh > ~/.zsh/completions/_sign-cli',
        argv: ['zsh', '-i'],
      };
    case 'fish':
      return {
        rc: [
          '.config/fish/config.fish',
          `set -g fish_greeting\nfunction fish_prompt; echo -n '${PROMPT}'; end\n`,
        ],
        install:
          'mkdir -p ~/.config/fish/completions && sign-cli completion fish > ~/.config/fish/completions/sign-cli.fish',
        argv: ['fish', '-i'],
      };
  }
}

/** An interactive shell in a detached tmux session of its own server. */
class Terminal {
  private readonly socket: string;
  /** Everything the shell wrote to the terminal, as written (tmux pipe-pane): the bells are in it. */
  private readonly output: string;

  constructor(dir: string) {
    this.socket = join(dir, 'tmux.sock');
    this.output = join(dir, 'pane-output');
  }

  private tmux(...args: string[]): string {
    const env = { ...process.env };
    delete env.TMUX;
    return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  }

  start(cwd: string, env: Record<string, string>, argv: string[]): void {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    this.tmux(
      '-f',
      '/dev/null',
      'new-session',
      '-d',
      '-x',
      '200',
      '-y',
      '50',
      '-c',
      cwd,
      '--',
      'env',
      '-i',
      ...vars,
      ...argv,
    );
    this.tmux('pipe-pane', '-o', `cat >> '${this.output}'`);
  }

  /**
   * The bells the shell has rung: BEL characters in its output, but those that end an escape
   * sequence (a window title: ESC ] … BEL).
   */
  bells(): number {
    if (!existsSync(this.output)) return 0;
    const written = readFileSync(this.output, 'latin1').replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '');
    return written.split('\x07').length - 1;
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J');
  }

  keys(...keys: string[]): void {
    this.tmux('send-keys', ...keys);
  }

  literal(text: string): void {
    this.tmux('send-keys', '-l', text);
  }

  async waitFor(test: (screen: string) => boolean, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (test(this.screen())) return true;
      if (Date.now() > deadline) return false;
      await sleep(100);
    }
  }

  stop(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}

interface Case {
  line: string;
  expect: string[];
  absent?: string[];
  /**
   * Tabs a user may press: bash lists the candidates on the second Tab (the first rings the bell),
   * and a Tab that inserts a common prefix (`sig` to `signer.`) takes one more; zsh must list on
   * the first one when there is no common prefix.
   */
  tabs: number;
}

/**
 * Types `line`, presses Tab (again while nothing shows, up to `tabs`), returns the screen.
 * Tab is pressed again only once the shell has answered the last one without listing: rung the
 * bell (bash, and zsh, when there is nothing to insert) or changed the command line (a common
 * prefix inserted). Never after a time: on a slow machine a Tab still being handled (the
 * completion asks the CLI for profiles) would be taken for one that showed nothing.
 */
async function complete(term: Terminal, c: Case): Promise<string> {
  // A clean screen with a fresh prompt, so only this completion's output is read. With a
  // completion pager open, fish's first Ctrl-C may only close the pager: ask again until clean.
  let ready = false;
  for (let attempt = 0; attempt < 4 && !ready; attempt++) {
    term.keys('C-c');
    await new Promise((r) => setTimeout(r, 100));
    term.keys('C-l');
    ready = await term.waitFor((s) => s.trim() === PROMPT.trim(), 20_000);
  }
  expect(ready, `no clean prompt; the screen:\n${term.screen()}`).toBe(true);
  term.literal(c.line);
  await term.waitFor((s) => s.includes(c.line.trimEnd()), 60_000);
  const shows = (s: string) => c.expect.every((word) => s.split('\n').slice(1).join('\n').includes(word));
  const commandLine = (s: string) => s.split('\n')[0] ?? '';
  for (let tab = 1; tab < c.tabs; tab++) {
    const [lineBefore, bellsBefore] = [commandLine(term.screen()), term.bells()];
    term.keys('Tab');
    const answered = await term.waitFor(
      (s) => shows(s) || term.bells() > bellsBefore || commandLine(s) !== lineBefore,
      60_000,
    );
    expect(answered, `Tab ${tab} after \`${c.line}\` had no effect; the screen:\n${term.screen()}`).toBe(
      true,
    );
    if (shows(term.screen())) return term.screen();
  }
  // The last Tab a user may press: the candidates must show (the wait is a guard against a hang).
  term.keys('Tab');
  await term.waitFor(shows, 60_000);
  return term.screen();
}

const CASES: Case[] = [
  { line: 'sign-cli keys use ', expect: ['prod', 'staging'], tabs: 2 },
  {
    line: 'sign-cli webhooks trigger sig',
    expect: ['signer.signed', 'signer.viewed', 'signer.declined'],
    absent: ['envelope.created'],
    tabs: 3,
  },
  {
    line: 'sign-cli config set ',
    expect: ['base_url', 'rate', 'webhook_scheme', 'paths.getEnvelope'],
    tabs: 2,
  },
  { line: 'sign-cli completion ', expect: ['bash', 'fish', 'zsh'], tabs: 2 },
];

let configDir: string;
beforeAll(async () => {
  configDir = tempDir('sign-cli-shells-config-');
  for (const [name, key] of [
    ['prod', 'sk_live_shellcompletion0prod'],
    ['staging', 'sk_test_shellcompletion0stag'],
  ] as const) {
    const add = await runCli(['keys', 'add', name, '--stdin', '--offline'], {
      env: { SIGN_CONFIG_DIR: configDir },
      input: `${key}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
  }
});

describe.each(['bash', 'zsh', 'fish'] as const)('completion in a real %s', (shell) => {
  const missing = [...(has('tmux') ? [] : ['tmux']), ...(has(shell) ? [] : [shell])];
  if (missing.length)
    console.warn(
      `completion-shells: skipping ${shell}: ${missing.join(' and ')} not installed (apt-get install -y ${missing.join(' ')})`,
    );

  it.skipIf(missing.length > 0)(
    `${shell}: installed as the README says, Tab offers profiles, event types, settings and shells`,
    async () => {
      const dir = tempDir(`sign-cli-${shell}-`);
      const home = join(dir, 'home');
      const bin = join(dir, 'bin');
      mkdirSync(bin, { recursive: true });
      // `sign-cli` on PATH, as after `npm link`.
      writeFileSync(join(bin, 'sign-cli'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {
        mode: 0o755,
      });
      const { rc, install, argv } = setup(shell);
      mkdirSync(join(home, rc[0], '..'), { recursive: true });
      writeFileSync(join(home, rc[0]), rc[1]);
      const env = {
        HOME: home,
        PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
        SIGN_CONFIG_DIR: configDir,
        NO_COLOR: '1',
      };
      execFileSync(shell, ['-c', install], { env, cwd: home, timeout: 60_000 });

      const term = new Terminal(dir);
      try {
        term.start(home, env, argv);
        const started = await term.waitFor((s) => s.includes(PROMPT.trim()), 60_000);
        expect(started, `${shell} did not start; the screen:\n${term.screen()}`).toBe(true);
        for (const c of CASES) {
          // zsh installed on $fpath lists on the very first Tab when nothing can be inserted.
          const tabs = shell === 'zsh' && !c.line.endsWith('sig') ? 1 : c.tabs;
          const screen = await complete(term, { ...c, tabs });
          const below = screen.split('\n').slice(1).join('\n');
          for (const word of c.expect)
            expect(below, `${shell}: ${c.line}<TAB> should offer ${word}; the screen:\n${screen}`).toContain(
              word,
            );
          for (const word of c.absent ?? [])
            expect(below, `${shell}: ${c.line}<TAB> should not offer ${word}`).not.toContain(word);
        }
        if (shell !== 'bash') {
          // zsh and fish show what each setting is.
          const screen = await complete(term, {
            line: 'sign-cli config set ',
            expect: ['service base URL'],
            tabs: 1,
          });
          expect(screen).toContain('service base URL');
        }
      } finally {
        term.stop();
      }
    },
    90_000,
  );
});

/** What bash would offer after typing `words`, with the committed script (the last word being completed). */
function bashComplete(words: string[], env: NodeJS.ProcessEnv): string[] {
  const script = `source ${join(ROOT, 'completions', 'sign-cli.bash')}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _sign_cli; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return spawnSync('bash', ['-c', script], { encoding: 'utf8', env }).stdout.split('\n').filter(Boolean);
}

describe('completion that asks the built CLI', () => {
  it('asks the CLI for profile names: keys use, keys remove, --profile', async () => {
    const dir = tempDir('sign-cli-completion-');
    for (const [name, key] of [
      ['prod', 'sk_live_completion0000prod'],
      ['staging', 'sk_test_completion000staging'],
    ] as const) {
      const add = await runCli(['keys', 'add', name, '--stdin', '--offline'], {
        env: { SIGN_CONFIG_DIR: dir },
        input: `${key}\n`,
      });
      expect(add.code, add.stderr).toBe(0);
    }
    const env = { ...process.env, SIGN_CONFIG_DIR: dir };
    // COMP_WORDS[0] is the command as typed: the script runs that one.
    expect(bashComplete([BIN, 'keys', 'use', ''], env)).toEqual(['prod', 'staging']);
    expect(bashComplete([BIN, 'keys', 'remove', 'st'], env)).toEqual(['staging']);
    expect(bashComplete([BIN, '--profile', 'p'], env)).toEqual(['prod']);
    expect(bashComplete([BIN, 'envelopes', 'get', 'x', '--profile', ''], env)).toEqual(['prod', 'staging']);
  });
});
