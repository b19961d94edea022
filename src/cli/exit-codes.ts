/**
 * The exit codes of docs/commands/exit-codes.md. They are the CLI's: the core
 * describes a failure by its error class (and reason), and this is the one
 * place that maps a class to a code, so the CLI never has to guess from a message.
 */
import { AuthError, InterruptedError, UsageError } from '../core/errors.js';

export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  auth: 3,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * The exit code an error ends the run with: invalid input (nothing sent) 2, a
 * refused or missing key 3, an interrupt 130, anything else 1.
 */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof InterruptedError) return ExitCode.interrupted;
  if (error instanceof AuthError) return ExitCode.auth;
  if (error instanceof UsageError) return ExitCode.usage;
  return ExitCode.failed;
}
