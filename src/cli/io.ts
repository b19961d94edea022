/**
 * The injected IO of a command: its streams, environment, terminal facts and
 * time, the one place src/cli gets them from (gh's iostreams). `systemIo()`
 * is the process's; `testIo()` (test/helpers) gives in-memory streams that
 * can pretend to be a terminal of any width, so a command is tested from src,
 * in process, with no build and no spawn.
 */
import type { Clock } from '../core/clock.js';
import { systemClock } from '../core/clock.js';

/** What a command writes to: a stream, and whether (and how wide) it is a terminal. */
export interface OutStream {
  write(chunk: string | Uint8Array): boolean;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  on?(event: 'drain', listener: () => void): unknown;
}

/** What a command reads stdin from. */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean | undefined; destroy?(): void };

export interface Io {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /**
   * How to start this CLI again as a process of its own (`sandbox --detach`):
   * the runtime and the arguments before the command's.
   */
  relaunch: { command: string; args: string[] };
}

export function systemIo(): Io {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    clock: systemClock,
    relaunch: { command: process.execPath, args: [...process.execArgv, process.argv[1] ?? ''] },
  };
}
