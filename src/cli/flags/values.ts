/**
 * Values given on the command line, in the environment or to `config set`,
 * checked one way: a bad value is a usage error (exit 2) that names where it
 * came from (`--retries`, `the environment variable SIGN_RETRIES`, `rate`).
 */
import { UsageError } from '../../core/errors.js';
import { durationMs } from './since.js';

/** commander's argParser for a repeatable option: each use adds its value to the list. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** A whole number from `min` (to `max`), named `name` in the error. */
export function parseIntegerOption(
  name: string,
  value: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) {
    throw new UsageError(
      `${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** A number greater than 0 (seconds, a rate), named `name` in the error. */
export function parsePositiveNumberOption(name: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(`${name} must be a number greater than 0, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A duration greater than 0 (`90s`, `10m`, `24h`, `7d`, `2w`) in milliseconds, named `name` in the error. */
export function parseDurationOption(name: string, value: string): number {
  const ms = durationMs(value);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(
      `${name} must be a duration greater than 0 such as 90s, 10m, 24h or 7d, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}
