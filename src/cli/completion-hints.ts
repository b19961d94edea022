/**
 * What a shell should offer for an argument or an option value, kept beside
 * the command tree (commander has no place for it). The completion scripts
 * are generated from the tree plus these hints; values that live in the
 * user's config (profile names) are asked of `sign-cli __complete <source>`
 * at completion time.
 */
import type { Argument, Command, Option } from 'commander';
import { ENDPOINTS } from '../core/endpoints.js';
import { EVENT_TYPES } from '../core/events.js';
import { OPEN_FIELDS } from '../core/open-fields.js';
import { ENVELOPE_STATUSES } from '../core/states.js';
import { describeWithDefault } from './help.js';
import { SETTINGS } from './settings.js';

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
  if (target.argChoices?.length) return { kind: 'values', values: target.argChoices.map((name) => ({ name })) };
  // An argument's name, or an option's value placeholder (`--file <path|->`).
  const name = 'flags' in target ? (/[<[]([^>\]]*)[>\]]/.exec(target.flags)?.[1] ?? '') : target.name();
  return FILE_LIKE.test(name) ? { kind: 'files' } : { kind: 'none' };
}

function findCommand(program: Command, path: string[]): Command | undefined {
  let command: Command | undefined = program;
  for (const name of path) command = command?.commands.find((c) => c.name() === name);
  return command;
}

function hintArgument(program: Command, path: string[], index: number, completion: Completion): void {
  const argument = findCommand(program, path)?.registeredArguments[index];
  if (argument) hints.set(argument, completion);
}

function hintOption(program: Command, path: string[], long: string, completion: Completion): void {
  const option = findCommand(program, path)?.options.find((o) => o.long === long);
  if (option) hints.set(option, completion);
}

/** The setting names `config get|set|unset` take, with what each is. */
export function settingCandidates(): Candidate[] {
  return [
    ...Object.entries(SETTINGS).map(([name, spec]) => ({ name, description: describeWithDefault(spec.describe) })),
    ...Object.entries(ENDPOINTS).map(([op, endpoint]) => ({ name: `paths.${op}`, description: `path of ${op} (default: ${endpoint.path})` })),
    ...OPEN_FIELDS.map((field) => ({ name: `sandbox.accept.${field}`, description: `values of ${field} the local sandbox accepts beyond its own list` })),
  ];
}

/** Attaches the hints to the finished command tree; a command that is not there is skipped. */
export function annotateCompletions(program: Command): void {
  const profiles: Completion = { kind: 'dynamic', source: 'profiles' };
  hintOption(program, [], '--profile', profiles);
  hintArgument(program, ['keys', 'use'], 0, profiles);
  hintArgument(program, ['keys', 'remove'], 0, profiles);
  hintArgument(program, ['webhooks', 'trigger'], 0, { kind: 'values', values: EVENT_TYPES.map((name) => ({ name })) });
  const settings: Completion = { kind: 'values', values: settingCandidates() };
  for (const verb of ['get', 'set', 'unset']) hintArgument(program, ['config', verb], 0, settings);
  hintOption(program, ['envelopes', 'list'], '--status', { kind: 'values', values: ENVELOPE_STATUSES.map((name) => ({ name })) });
  hintOption(program, ['sandbox'], '--accept', { kind: 'values', values: OPEN_FIELDS.map((field) => ({ name: `${field}=`, description: `more values of ${field}, comma-separated` })) });
}
