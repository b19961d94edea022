/**
 * The whole command tree at once: what the generated reference (npm run docs),
 * shell completion and the tests read. The CLI itself builds only the part a
 * command line needs (main.ts), from the same registrations.
 */
import type { Command } from 'commander';
import { makeAction, type RunState } from './action.js';
import { registerEnvelopes } from './commands/envelopes/envelopes.js';
import { registerWebhooks } from './commands/webhooks/webhooks.js';
import { registerKeys } from './commands/keys/keys.js';
import { registerConfig } from './commands/config/config.js';
import { registerDoctor } from './commands/doctor/doctor.js';
import { registerSandbox } from './commands/sandbox/sandbox.js';
import { registerApi } from './commands/api/api.js';
import { registerCompletion } from './commands/completion/completion.js';
import { finishProgram, rootProgram } from './root.js';

export function buildProgram(state: RunState): Command {
  const action = makeAction(state);
  const program = rootProgram(state);
  for (const register of [registerEnvelopes, registerWebhooks, registerKeys, registerConfig, registerDoctor, registerSandbox, registerApi, registerCompletion]) register(program, action);
  return finishProgram(program);
}
