/**
 * A top-level command made of commands (`envelopes`, `keys`, …) whose commands' code is imported
 * only when they are registered. A command line that names one of them (`envelopes validate
 * x.json`, `help envelopes validate`) registers that one alone: its siblings' code, their options
 * and their help are not loaded (start-up: bench/startup.mjs). Every other line (the group's own
 * help, a word that is none of its commands, completion, the reference pages) gets them all, in
 * the order help lists them, so what a user sees of the group is the same either way.
 *
 * Only a group with no options of its own is made this way: program.ts finds the named command as
 * the word after the group's, past the program's options, which an option of the group's own
 * taking a value would throw off.
 */
import type { Command } from 'commander';
import type { Action } from './action.js';
import { defineCommand, type CommandDoc } from './help/command-doc.js';

/** Registers one command of a group on the group. */
export type RegisterCommand = (group: Command, action: Action) => void;
/** Registers a top-level command on the program. */
export type RegisterTopLevel = (program: Command, action: Action) => void;

/** Each command's registration, imported when asked for, in the order help lists them. */
export type GroupCommands = Record<string, () => Promise<RegisterCommand>>;

/** The group's registration for a command line that names `named` in it (undefined: none). */
export async function commandGroup(
  name: string,
  doc: CommandDoc,
  commands: GroupCommands,
  named: string | undefined,
): Promise<RegisterTopLevel> {
  const names = named !== undefined && Object.hasOwn(commands, named) ? [named] : Object.keys(commands);
  const registers = await Promise.all(names.map((command) => commands[command]!()));
  return (program, action) => {
    const group = defineCommand(program, name, doc);
    for (const register of registers) register(group, action);
  };
}
