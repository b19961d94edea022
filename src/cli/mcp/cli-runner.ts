/**
 * A tool call runs the CLI's own command in this process, with in-memory
 * streams: the same profile, keys, pacing, journals, masking and messages as
 * the command typed at a terminal (one implementation, never a second one).
 * Never prompts: `--no-input`, and stdin holds only what a tool gives it.
 */
import type { InProcessMain } from '../process/io.js';
import type { Io } from '../process/io.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  main: InProcessMain,
  io: Io,
  args: readonly string[],
  options: { stdin?: string; signal?: AbortSignal; env?: Record<string, string> } = {},
): Promise<CliRun> {
  const { testIo } = await import('../process/memory-io.js');
  const run = testIo({
    stdin: options.stdin ?? '',
    // No colour, no terminal: the text an assistant reads is plain, and nothing waits for a person.
    env: { ...io.env, ...options.env, NO_COLOR: '1' },
    clock: io.clock,
    prompter: io.prompter,
    relaunch: io.relaunch,
  });
  const code = await main(
    ['node', 'sign-cli', '--no-input', ...args],
    run,
    options.signal ?? new AbortController().signal,
  );
  return { code, stdout: run.stdout.text, stderr: run.stderr.text };
}

/** The JSON a command printed: one document, or one object per line; none when it printed something else. */
export function jsonOutput(stdout: string): unknown[] {
  const text = stdout.trim();
  if (text === '') return [];
  try {
    return [JSON.parse(text)];
  } catch {
    try {
      return text.split('\n').map((line) => JSON.parse(line) as unknown);
    } catch {
      return [];
    }
  }
}

/** What an error said on stderr, its lines as the CLI wrote them (already masked and escaped). */
export const errorText = (run: CliRun): string =>
  run.stderr.trim() || `the command ended with exit code ${run.code} and no message`;
