/**
 * What a shell should offer for an argument or an option value. Commands
 * attach their hints where they define the argument or option
 * (`completes(new Argument(…), PROFILES)`), so a renamed command keeps its
 * completions. The completion scripts are generated from the tree plus these
 * hints; values that live in the user's config (profile names) are asked of
 * `sign-cli __complete <source>` at completion time. Nothing here imports
 * what a hint lists: every command line loads this module (the program's
 * --profile has a hint), so lists live beside their commands.
 */
import type { Argument, Option } from 'commander';

export interface Candidate {
  name: string;
  description?: string | undefined;
}

export type Completion =
  /** A fixed list, written into the script. */
  | { kind: 'values'; values: Candidate[] }
  /** Asked of `sign-cli __complete <source>` when Tab is pressed. */
  | { kind: 'dynamic'; source: DynamicSource }
  | { kind: 'files' }
  | { kind: 'none' };

/** Sources `sign-cli __complete` can list. */
export const DYNAMIC_SOURCES = ['profiles'] as const;
export type DynamicSource = (typeof DYNAMIC_SOURCES)[number];

const hints = new WeakMap<Argument | Option, Completion>();

/** Arguments and value placeholders that name a file: `<path...>`, `--file <path|->`, `--data-dir <dir>`. */
const FILE_LIKE = /file|path|dir/i;

/** What completes this argument or option value: a hint, else its choices, else files for file-like names. */
export function completionOf(target: Argument | Option): Completion {
  const hint = hints.get(target);
  if (hint) return hint;
  if (target.argChoices?.length)
    return { kind: 'values', values: target.argChoices.map((name) => ({ name })) };
  // An argument's name, or an option's value placeholder (`--file <path|->`).
  const name = 'flags' in target ? (/[<[]([^>\]]*)[>\]]/.exec(target.flags)?.[1] ?? '') : target.name();
  return FILE_LIKE.test(name) ? { kind: 'files' } : { kind: 'none' };
}

/** Attaches a completion to an argument or option; returns it, for commander's addArgument/addOption. */
export function completes<T extends Argument | Option>(target: T, completion: Completion): T {
  hints.set(target, completion);
  return target;
}

/** A fixed list of values. */
export function valuesOf(values: readonly string[]): Completion {
  return { kind: 'values', values: values.map((name) => ({ name })) };
}

/** The user's profile names, asked of `sign-cli __complete profiles` when Tab is pressed. */
export const PROFILES: Completion = { kind: 'dynamic', source: 'profiles' };
