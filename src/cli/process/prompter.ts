/**
 * How a command asks a person at its terminal: the questions src/cli asks (a line, a hidden
 * line, one of a list, yes or no), injected with the Io (io.ts) so that a command that asks is
 * tested in process with answers of the test's own. The default is inquirer's, loaded at the
 * first question: most runs never ask, and start-up does not pay for it.
 */

/** Where a question is asked and until when: the command's terminal streams and stop signal. */
export interface PromptContext {
  signal?: AbortSignal;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
}

export interface Prompter {
  /** A line of text; `validate` gives true or the rule the answer breaks, shown as it is typed. */
  input(
    config: {
      message: string;
      default?: string;
      validate?: (value: string) => boolean | string | Promise<boolean | string>;
    },
    context?: PromptContext,
  ): Promise<string>;
  /** A line that is not echoed (an API key); `mask` is shown for each character typed. */
  password(config: { message: string; mask?: string }, context?: PromptContext): Promise<string>;
  /** One value of a list. */
  select<T extends string>(
    config: { message: string; choices: { name: string; value: T; description?: string }[]; default?: T },
    context?: PromptContext,
  ): Promise<T>;
  /** Yes or no. */
  confirm(config: { message: string; default?: boolean }, context?: PromptContext): Promise<boolean>;
}

/** The person at the terminal, through inquirer; Ctrl-C rejects with inquirer's own errors (prompt-exit.ts). */
export const inquirerPrompter: Prompter = {
  input: async (config, context) => (await import('@inquirer/prompts')).input(config, context),
  password: async (config, context) => (await import('@inquirer/prompts')).password(config, context),
  select: async (config, context) => (await import('@inquirer/prompts')).select(config, context),
  confirm: async (config, context) => (await import('@inquirer/prompts')).confirm(config, context),
};
