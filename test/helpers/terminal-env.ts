/**
 * Environment for a command run inside tmux, without putting it on the command
 * line: the values (a sandbox API key among them) go to a 0600 file the shell
 * sources, so neither tmux's argv nor a failing test's message shows them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './paths.js';

const quoted = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * A shell prefix (`. <file> && `) that exports `env`; `unsetCi` also unsets CI
 * (a person at a terminal, even when the suite runs in CI).
 */
export function sourcedEnv(env: Record<string, string>, options: { unsetCi?: boolean } = {}): string {
  const file = join(tempDir('sign-cli-terminal-env-'), 'env.sh');
  const lines = [
    ...(options.unsetCi ? ['unset CI'] : []),
    ...Object.entries(env).map(([name, value]) => `export ${name}=${quoted(value)}`),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return `. ${file} && `;
}
