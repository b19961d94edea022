import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';

const FILES = { bash: 'sign-cli.bash', zsh: '_sign-cli', fish: 'sign-cli.fish' } as const;

/** What bash would offer after typing `words` (the last one being completed). */
function complete(words: string[]): string[] {
  const script = `source ${join(ROOT, 'completions', FILES.bash)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _sign_cli; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return spawnSync('bash', ['-c', script], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
}

describe('shell completion', () => {
  it.each(Object.entries(FILES))('the committed %s script is what the command tree generates', async (shell, file) => {
    const live = await runCli(['completion', shell]);
    expect(live.code).toBe(0);
    expect(readFileSync(join(ROOT, 'completions', file), 'utf8')).toBe(live.stdout);
  });

  it('completes commands, subcommands, options and choices in bash', () => {
    expect(complete(['sign-cli', 'env'])).toEqual(['envelopes']);
    expect(complete(['sign-cli', 'envelopes', 'cr'])).toEqual(['create']);
    expect(complete(['sign-cli', 'envelopes', 'create', '--nd'])).toEqual(['--ndjson']);
    expect(complete(['sign-cli', '--profile', 'prod', 'keys', 'ch'])).toEqual(['check']);
    expect(complete(['sign-cli', 'webhooks', 'listen', '--scheme', 's'])).toEqual(['standard', 'stripe']);
    expect(complete(['sign-cli', 'envelopes', 'create', '--ver'])).toEqual(['--verbose']);
  });

  it('refuses an unknown shell', async () => {
    expect((await runCli(['completion', 'tcsh'])).code).toBe(2);
  });
});
