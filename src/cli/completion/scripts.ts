/** A completion script for each shell, from the command tree. */
import type { Command } from 'commander';
import { bash } from './bash.js';
import { fish } from './fish.js';
import { zsh } from './zsh.js';

import type { Shell } from './shells.js';

export type { Shell };

export function completionScript(program: Command, shell: Shell): string {
  return shell === 'bash' ? bash(program) : shell === 'zsh' ? zsh(program) : fish(program);
}
