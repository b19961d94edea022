/** `sign-cli keys`: the group, its words, and its commands in the order help lists them. */
import type { Command } from 'commander';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { registerAdd } from './add.js';
import { registerCheck } from './check.js';
import { registerList } from './list.js';
import { registerRemove } from './remove.js';
import { registerUse } from './use.js';

export const doc: CommandDoc = {
  summary: "API keys: stored profiles and the service's listing, always masked",
  more: [
    'A profile is an API key with its service and what is known of it (environment, scopes, expiry), stored in config.json (mode 0600). A key is only ever shown masked: its leading part and last four characters (`sk_live_****abcd`).',
  ],
  examples: [
    'printenv SIGN_API_KEY | sign-cli keys add sbx --stdin',
    'sign-cli keys use sbx',
    'sign-cli keys list --local --json',
    'sign-cli keys check --expiring-within 30',
  ],
};

export function registerKeys(program: Command, action: Action): void {
  const keys = defineCommand(program, 'keys', doc);
  registerList(keys, action);
  registerAdd(keys, action);
  registerRemove(keys, action);
  registerUse(keys, action);
  registerCheck(keys, action);
}
