/**
 * The README's by-hand section, pasted as a person pastes it: each block as
 * one paste into an interactive bash in a real terminal (tmux), with a clean
 * environment and a home of its own. The first block must run through (sandbox
 * up before its credentials are read, an envelope created, watched to the end,
 * its signed copy saved), the second (the listener, in its own terminal) must
 * print the envelope's events, and nothing may land in the repository.
 *
 * Then, in that session (its sandbox, its listener, its scratch directory and
 * `$id`), every other example of the README and of docs/commands runs as
 * written (examples.ts): the examples say they run after the by-hand block.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, tempDir } from '../helpers/cli.js';
import { examplePages, runExamplePages } from '../helpers/examples.js';

const SESSION = `sign-cli-readme-${process.pid}`;
/**
 * A tmux server of the test's own (its socket, its config): a scrollback long enough for the
 * whole session. The listener's terminal also shows deliveries that other test files'
 * sandboxes, running at the same time, send to 127.0.0.1:4020 (the sample envelope's
 * webhook_url) signed with their own secrets: refused lines, which must not push the
 * lines this test reads out of the screen's history.
 */
const tmuxDir = tempDir('sign-cli-readme-tmux-');
writeFileSync(join(tmuxDir, 'tmux.conf'), 'set-option -g history-limit 200000\n');
// Its socket in the run's TMPDIR (removed with it), not in /tmp/tmux-<uid>.
const tmuxArgs = ['-S', join(tmuxDir, 'socket'), '-f', join(tmuxDir, 'tmux.conf')];
const tmux = (...args: string[]) => execFileSync('tmux', [...tmuxArgs, ...args], { encoding: 'utf8' });
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const byHand = readme.indexOf('### By hand, against the local sandbox');
const section = readme.slice(byHand, readme.indexOf('\n## ', byHand));
const [terminal1 = '', terminal2 = ''] = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

const home = tempDir('sign-cli-readme-home-');
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

/** Whether something answers on 127.0.0.1:port. */
const taken = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

/** The repository's untracked and changed files, as git sees them. */
const gitStatus = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' });

const shellEnv = [
  `HOME=${home}`,
  `PATH=${dirname(process.execPath)}:${process.env.PATH}`,
  `TMPDIR=${process.env.TMPDIR ?? '/tmp'}`,
  'TERM=xterm-256color',
  'LANG=C.UTF-8',
  'NO_COLOR=1',
];

function openTerminal(name: string): string {
  const target = `${SESSION}-${name}`;
  tmux('new-session', '-d', '-s', target, '-x', '120', '-y', '50', '-c', ROOT, `env -i ${shellEnv.join(' ')} bash --norc --noprofile -i`);
  return target;
}

/** Pastes `text` as one block (tmux paste-buffer, as a terminal paste arrives), then a line of our own. */
function paste(target: string, text: string, after: string): void {
  const buffer = `${target}-buffer`;
  tmux('set-buffer', '-b', buffer, text);
  tmux('paste-buffer', '-d', '-b', buffer, '-t', target);
  tmux('send-keys', '-t', target, '-l', after);
  tmux('send-keys', '-t', target, 'Enter');
}

const screen = (target: string) => tmux('capture-pane', '-p', '-J', '-t', target, '-S', '-');

async function until<T>(what: string, check: () => T | undefined | null | false, timeoutMs: number, target: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: timed out; screen:\n${screen(target)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(() => {
  spawnSync(process.execPath, [BIN, 'sandbox', 'stop'], { env: { ...process.env, HOME: home, XDG_DATA_HOME: '', SIGN_SANDBOX_DIR: '' } });
  spawnSync('tmux', [...tmuxArgs, 'kill-server']);
});

describe('README: by hand, against the local sandbox', () => {
  it('has the two blocks: the main one and the listener in its own terminal', () => {
    expect(terminal1).toContain('sign-cli sandbox --detach');
    expect(terminal2).toContain('sign-cli webhooks listen');
  });

  let session: { scratch: string; id: string } | undefined;
  const gitBefore = gitStatus();

  it('runs pasted as one block right after npm ci, and writes nothing into the repository', async (context) => {
    if ((await taken(4010)) || (await taken(4020))) {
      const note = 'port 4010 or 4020 is in use on this machine (a sandbox or listener of yours?): the README block needs them';
      if (inCi) throw new Error(note);
      console.warn(`skipped: ${note}`);
      context.skip();
    }
    const before = gitStatus();
    const dataDir = join(home, '.local', 'share', 'sign-cli', 'sandbox');
    mkdirSync(home, { recursive: true });
    const one = openTerminal('one');
    paste(one, terminal1, `echo "BLOCK-ONE-DONE $? $(pwd)"`);
    // The listener's terminal, once the sandbox has written its credentials (a person opens it then).
    // The block builds first (tsc and esbuild: about 16 s alone, over a minute beside the rest of
    // the suite on two cores), so the sandbox's start is waited for with the build's margin.
    await until('the sandbox started by the block', () => existsSync(join(dataDir, 'credentials.env')), 180_000, one);
    const two = openTerminal('two');
    paste(two, terminal2, '');

    const done = await until('block one', () => /BLOCK-ONE-DONE (\d+) (\S+)/.exec(screen(one)), 120_000, one);
    const shown = screen(one);
    expect(shown).not.toMatch(/command not found|No such file|error:/);
    expect(done[1], shown).toBe('0');
    const scratch = done[2]!;
    expect(scratch.startsWith(ROOT)).toBe(false);
    expect(readdirSync(scratch).sort()).toEqual(['envelope.json', 'signed.pdf']);
    expect(readFileSync(join(scratch, 'signed.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    expect(shown).toMatch(/✓ env_\w+ +Office lease renewal 2027/);
    expect(shown).toMatch(/^env_\w+\s+completed\s+2\/2\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+CTR-2027-0042\s+Office lease renewal 2027$/m);

    // The listener saw the journey, verified, in the one time format.
    const listened = await until('the listener', () => (/envelope\.completed/.test(screen(two)) ? screen(two) : undefined), 60_000, two);
    expect(listened).toMatch(/listening on http:\/\/127\.0\.0\.1:4020/);
    expect(listened).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ  signer\.signed\s+env_\w+\s+Layla Haddad\s+signed$/m);

    expect(gitStatus()).toBe(before);
    tmux('send-keys', '-t', one, '-l', 'echo "THE-ID $id"');
    tmux('send-keys', '-t', one, 'Enter');
    const id = await until('$id', () => /THE-ID (env_\w+)/.exec(screen(one))?.[1], 10_000, one);
    session = { scratch, id };
  }, 360_000);

  it('then every example of the README and docs/commands runs as written, in that session', async (context) => {
    if (!session) context.skip();
    const pages = examplePages();
    expect(pages.length).toBeGreaterThan(30);
    const failures = await runExamplePages(pages, { scratch: session!.scratch, id: session!.id, home, credentials: join(home, '.local', 'share', 'sign-cli', 'sandbox', 'credentials.env') });
    expect(failures).toEqual([]);
    expect(gitStatus()).toBe(gitBefore);
  }, 240_000);
});
