/** `completion` and `__complete`, in process: the committed scripts are the tree's, and bash completes from them. (Completion that asks the built CLI, and zsh and fish: test/e2e/completion-shells.test.ts.) */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { runCommand } from '../../../helpers/in-process.js';

const FILES = { bash: 'sign-cli.bash', zsh: '_sign-cli', fish: 'sign-cli.fish' } as const;

/** What bash would offer after typing `words` (the last one being completed). */
function complete(words: string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const script = `source ${join(ROOT, 'completions', FILES.bash)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _sign_cli; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return spawnSync('bash', ['-c', script], { encoding: 'utf8', env }).stdout.split('\n').filter(Boolean);
}

/** A config dir holding the profiles `prod` and `staging`. */
async function twoProfiles(): Promise<string> {
  const dir = tempDir('sign-cli-completion-');
  for (const [name, key] of [
    ['prod', 'sk_live_completion0000prod'],
    ['staging', 'sk_test_completion000staging'],
  ] as const) {
    const add = await runCommand(['keys', 'add', name, '--stdin', '--offline'], {
      env: { SIGN_CONFIG_DIR: dir },
      input: `${key}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
  }
  return dir;
}

describe('shell completion', () => {
  it.each(Object.entries(FILES))(
    'the committed %s script is what the command tree generates',
    async (shell, file) => {
      const live = await runCommand(['completion', shell]);
      expect(live.code).toBe(0);
      expect(readFileSync(join(ROOT, 'completions', file), 'utf8')).toBe(live.stdout);
    },
  );

  it('completes commands, subcommands, options and choices in bash', () => {
    expect(complete(['sign-cli', 'env'])).toEqual(['envelopes']);
    expect(complete(['sign-cli', 'envelopes', 'cr'])).toEqual(['create']);
    expect(complete(['sign-cli', 'envelopes', 'create', '--nd'])).toEqual(['--ndjson']);
    expect(complete(['sign-cli', '--profile', 'prod', 'keys', 'ch'])).toEqual(['check']);
    expect(complete(['sign-cli', 'webhooks', 'listen', '--scheme', 's'])).toEqual(['standard', 'stripe']);
    expect(complete(['sign-cli', 'envelopes', 'create', '--ver'])).toEqual(['--verbose']);
  });

  it('completes event types, setting names, shells and option values in bash', () => {
    expect(complete(['sign-cli', 'webhooks', 'trigger', 'signer.s'])).toEqual(['signer.signed']);
    expect(complete(['sign-cli', 'webhooks', 'trigger', 'signer.signed', ''])).toEqual([]);
    expect(complete(['sign-cli', 'config', 'set', 'ra'])).toEqual(['rate', 'rate_store']);
    expect(complete(['sign-cli', 'config', 'unset', 'paths.getE'])).toEqual(['paths.getEnvelope']);
    expect(complete(['sign-cli', 'completion', ''])).toEqual(['bash', 'zsh', 'fish']);
    expect(complete(['sign-cli', 'webhooks', 'verify', '--algorithm', ''])).toEqual(['sha256', 'sha512']);
    // Options only when a dash is typed; a command's own before the global ones.
    expect(complete(['sign-cli', 'keys', 'list', '--l'])).toEqual(['--local']);
    expect(complete(['sign-cli', 'keys', ''])).toEqual(['list', 'add', 'remove', 'use', 'check']);
  });

  it('`__complete profiles` prints the names, and nothing at all when it cannot', async () => {
    const dir = await twoProfiles();
    const listed = await runCommand(['__complete', 'profiles'], { env: { SIGN_CONFIG_DIR: dir } });
    expect(listed).toMatchObject({ code: 0, stdout: 'prod\nstaging\n', stderr: '' });
    const broken = tempDir('sign-cli-completion-');
    writeFileSync(join(broken, 'config.json'), '{not json');
    for (const env of [{ SIGN_CONFIG_DIR: broken }, { SIGN_CONFIG_DIR: join(broken, 'missing') }]) {
      expect(await runCommand(['__complete', 'profiles'], { env })).toMatchObject({
        code: 0,
        stdout: '',
        stderr: '',
      });
    }
    expect(await runCommand(['__complete', 'nothing-like-this'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    // Hidden: not in help, not offered.
    expect((await runCommand(['--help'])).stdout).not.toContain('__complete');
    expect(complete(['sign-cli', '__'])).toEqual([]);
  });

  it('refuses an unknown shell', async () => {
    expect((await runCommand(['completion', 'tcsh'])).code).toBe(2);
  });
});
