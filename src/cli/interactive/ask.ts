/**
 * Questions on the command's terminal, through its injected prompter (ctx.prompter): Ctrl-C or
 * the stop signal while one is asked is exit 130 (prompt-exit.ts), and a yes/no before something
 * that notifies people (voiding an envelope, a live bulk create) is asked one way everywhere.
 */
import type { CommandContext } from '../context.js';
import type { PromptContext, Prompter } from '../process/prompter.js';
import { promptExit } from './prompt-exit.js';

/** Asks one question on the command's terminal; Ctrl-C is exit 130, nothing saved or sent. */
export async function ask<T>(
  ctx: CommandContext,
  question: (prompter: Prompter, context: PromptContext) => Promise<T>,
): Promise<T> {
  try {
    return await question(ctx.prompter, ctx.promptContext());
  } catch (error) {
    throw promptExit(error);
  }
}

export interface Confirmation {
  /** The question; its default answer is no. */
  message: string;
  /** `--yes`: not asked, the answer is yes. */
  yes?: boolean | undefined;
  /** Where nobody can answer (a pipe, CI, `--no-input`): go ahead unasked, or refuse with this error. */
  unattended: 'proceed' | Error;
}

/** Asks before something that notifies people (as `gh repo delete` does); true to go ahead. */
export async function confirmFirst(ctx: CommandContext, confirmation: Confirmation): Promise<boolean> {
  if (confirmation.yes === true) return true;
  if (!ctx.canPrompt) {
    if (confirmation.unattended === 'proceed') return true;
    throw confirmation.unattended;
  }
  return ask(ctx, (prompter, context) =>
    prompter.confirm({ message: confirmation.message, default: false }, context),
  );
}
