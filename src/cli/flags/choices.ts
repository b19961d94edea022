/**
 * Flags and arguments that take one of a fixed list of values, checked before anything is sent,
 * with a did-you-mean: one path for all of them, commander's `.choices()` included.
 */
import type { Argument, Command, Option } from 'commander';
import { UsageError } from '../../core/errors.js';
import { closest } from '../../core/envelope/suggest.js';

/**
 * Every value must be one of `choices`; the first that is not is a usage error (exit 2) naming
 * the closest choice. `example` writes a choice as it is typed (default: `<flag> <choice>`).
 */
export function checkChoices(
  flag: string,
  values: readonly string[],
  choices: readonly string[],
  example: (choice: string) => string = (choice) => `${flag} ${choice}`,
): void {
  for (const value of values) {
    if (choices.includes(value)) continue;
    const guess = closest(value, choices);
    throw new UsageError(
      `${flag} ${JSON.stringify(value)} is not one of ${choices.join(', ')}${guess ? `; did you mean ${guess}?` : ''}`,
      { hint: guess ? example(guess) : `e.g. ${example(choices[0]!)}` },
    );
  }
}

/** `value` as one of `choices` (checkChoices' usage error when it is not one). */
export function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  choices: readonly T[],
  example?: (choice: string) => string,
): T {
  checkChoices(flag, [value ?? ''], choices, example);
  return value as T;
}

/**
 * Every `.choices()` option and argument of `command` (and its subcommands) checked by
 * checkChoices: commander's own check says only "Allowed choices are …", with no guess.
 */
export function suggestChoices(command: Command): void {
  const withGuess = (target: Option | Argument, flag: string) => {
    const choices = target.argChoices;
    const parse = target.parseArg;
    if (!choices || !parse) return;
    target.parseArg = <T>(value: string, previous: T): T => {
      checkChoices(flag, [value], choices);
      return parse(value, previous);
    };
  };
  for (const option of command.options) withGuess(option, option.long ?? option.flags);
  for (const argument of command.registeredArguments) withGuess(argument, `<${argument.name()}>`);
  for (const sub of command.commands) suggestChoices(sub);
}
