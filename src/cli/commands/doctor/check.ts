/** One line of `doctor`: what was checked, how it went, and what to do. */
import { SignError } from '../../../core/errors.js';

export type Mark = 'ok' | 'warn' | 'fail';

export interface Check {
  check: string;
  status: Mark;
  detail: string;
}

/** An error as a check's detail: its message and its hint. */
export function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof SignError && error.hint ? `${message} (${error.hint})` : message;
}
