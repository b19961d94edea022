/** `sign-cli config`: settings in config.json (mode 0600); secrets always masked. */
import type { Command } from 'commander';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { registerGet } from './get.js';
import { registerList } from './list.js';
import { registerPath } from './path.js';
import { registerSet } from './set.js';
import { registerUnset } from './unset.js';

export const doc: CommandDoc = {
  summary:
    'read and change settings (base URL, default profile, rate, timeouts, endpoint paths, webhook scheme)',
  more: [
    'Settings live in config.json (mode 0600) beside the profiles of `sign-cli keys`. A flag wins over its environment variable, which wins over the profile, which wins over these settings; `config list` shows which applies and why.',
  ],
  examples: [
    'sign-cli config list',
    'sign-cli config set rate 300',
    'sign-cli config get rate',
    'sign-cli config unset rate',
  ],
};

export function registerConfig(program: Command, action: Action): void {
  const config = defineCommand(program, 'config', doc);
  registerGet(config, action);
  registerSet(config, action);
  registerUnset(config, action);
  registerList(config, action);
  registerPath(config, action);
}
