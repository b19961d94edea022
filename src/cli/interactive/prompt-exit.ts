import { InterruptedError } from '../../core/errors.js';

/**
 * Inquirer reports Ctrl-C (raw mode swallows SIGINT) and an aborted signal as
 * errors of its own; both mean "the user stopped", exit 130.
 */
export function promptExit(error: unknown): unknown {
  if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
    return new InterruptedError('interrupted; nothing was saved or sent');
  }
  return error;
}
