/** `sign-cli journal`: the group, its words, and its commands in the order help lists them. */
import type { Command } from 'commander';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { registerForget } from './forget.js';
import { registerList } from './list.js';
import { registerShow } from './show.js';

export const doc: CommandDoc = {
  summary: 'see and prune the create journals: what each input became, on this machine or in a shared store',
  more: [
    '`envelopes create` records every input it sends (its Idempotency-Key, then `created` with the envelope id, `unknown` when no answer said what happened, or `failed`), so a re-run sends nothing twice. These commands read those journals: the files under the state directory, or with `--journal-store` (SIGN_JOURNAL_STORE, `journal_store`) the journals runners share in Redis. Journals are kept 30 days after their last write (`journal_retention`).',
  ],
  examples: [
    'sign-cli journal list',
    'sign-cli journal show "$(sign-cli journal list --query \'[0].id\')"',
    'sign-cli journal forget --older-than 30d --yes',
  ],
};

export function registerJournal(program: Command, action: Action): void {
  const journal = defineCommand(program, 'journal', doc);
  registerList(journal, action);
  registerShow(journal, action);
  registerForget(journal, action);
}
