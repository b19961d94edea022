/** A completion script for each shell, from the command tree. */
import type { Command } from 'commander';
import { bash } from './bash.js';
import { fish } from './fish.js';
import { zsh } from './zsh.js';

import type { SHELLS } from '../commands/completion/completion.js';

export type Shell = (typeof SHELLS)[number];

export function completionScript(program: Command, shell: Shell): string {
  return shell === 'bash' ? bash(program) : shell === 'zsh' ? zsh(program) : fish(program);
}
