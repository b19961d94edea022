/** Flags that take one of a fixed list of values, checked before anything is sent, with a did-you-mean. */
import { UsageError } from '../../core/errors.js';
import { closest } from '../../core/suggest.js';

/** Every value must be one of `choices`; the first that is not is a usage error (exit 2) naming the closest choice. */
export function checkChoices(flag: string, values: readonly string[], choices: readonly string[]): void {
  for (const value of values) {
    if (choices.includes(value)) continue;
    const guess = closest(value, choices);
    throw new UsageError(
      `${flag} ${JSON.stringify(value)} is not one of ${choices.join(', ')}${guess ? `; did you mean ${guess}?` : ''}`,
      {
        hint: guess ? `${flag} ${guess}` : `e.g. ${flag} ${choices[0]}`,
      },
    );
  }
}
