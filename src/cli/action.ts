/**
 * Glue between commander and the commands: builds the CommandContext from the
 * merged global options and records the command's exit code.
 */
import type { Command } from 'commander';
import type { CommandContext, GlobalOptions } from './context.js';
import type { InProcessMain, Io } from './process/io.js';

export interface RunState {
  signal: AbortSignal;
  io: Io;
  /** The command line after the program's name, as given (for a command that starts itself again). */
  argv: string[];
  exitCode: number;
  context?: CommandContext;
  /** commander's error message, kept by root.ts and shown by main.ts with known secrets masked. */
  commanderError?: string;
  /** The CLI's entry (main.ts), for a command that runs other commands in process (`mcp`). */
  main?: InProcessMain;
}

export type CommandFn<O> = (ctx: CommandContext, options: O, args: string[]) => Promise<number>;
export type Action = <O>(fn: CommandFn<O>) => (...args: unknown[]) => Promise<void>;

export function makeAction(state: RunState): Action {
  return <O>(fn: CommandFn<O>) =>
    async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const options = command.optsWithGlobals<O & GlobalOptions>();
      const positional = args.slice(0, -2).flat() as string[];
      // Loaded when a command runs: help and usage errors never need the context's code.
      const { CommandContext } = await import('./context.js');
      const ctx = new CommandContext(options, () => state.signal, state.io, state.argv, state.main);
      ctx.command = command;
      state.context = ctx;
      try {
        await ctx.prepare();
        state.exitCode = await fn(ctx, options, positional);
        await ctx.recordKeyUse();
      } finally {
        await ctx.release();
      }
    };
}
