/**
 * The injected IO of a command: its streams, environment, terminal facts
 * (isTTY, columns), time (clock and sleep) and the person at the terminal
 * (the prompter), the one place src/cli gets them from (gh's iostreams). `systemIo()` is the process's;
 * `testIo()` (memory-io.ts) gives in-memory streams.
 */
import type { Clock } from '../../core/clock.js';
import { systemClock } from '../../core/clock.js';
import { fdStream, type OutStream } from '../launch/fd-stream.js';
import { inquirerPrompter, type Prompter } from './prompter.js';
import type { BrowserLaunch } from './browser.js';

export type { OutStream };

/** What a command reads stdin from. */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean | undefined; destroy?(): void };

/** main.ts's `main`: a command line run in process with the IO given; resolves with its exit code. */
export type InProcessMain = (argv: string[], io: Io, signal: AbortSignal) => Promise<number>;

export interface Io {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
  env: NodeJS.ProcessEnv;
  /** Now and sleep: watch's polling, retry lines, sandbox stop's wait. */
  clock: Clock;
  /** What asks the person at the terminal (void's confirmation, the step-by-step create, a hidden key). */
  prompter: Prompter;
  /**
   * How to start this CLI again as a process of its own (`sandbox --detach`):
   * the runtime and the arguments before the command's.
   */
  relaunch: { command: string; args: string[] };
  /**
   * Starts a browser on a link (`envelopes open`); true when it did. The process's starts the
   * program (browser.ts); a test's starts nothing, or does what the test gives it.
   */
  openBrowser(launch: BrowserLaunch): Promise<boolean>;
}

/** The process's IO, which knows when what was written has been handed to the OS. */
export interface SystemIo extends Io {
  /**
   * Resolves once everything written so far to stdout and stderr has left the process (a
   * terminal on Windows and a pipe on macOS are written asynchronously) or failed, and the
   * failure has been reported to `onWriteError`. Only the streams a command used are asked:
   * making one now would load its modules for nothing.
   */
  drained(): Promise<void>;
}

/**
 * The process's IO. `onWriteError` hears a failed write to stdout or stderr (a closed pipe's
 * EPIPE, a terminal gone away's EIO), which would otherwise be an unhandled error.
 */
export function systemIo(
  onWriteError: (fd: 1 | 2, error: NodeJS.ErrnoException) => void = () => {},
): SystemIo {
  // Each is made when first used: Node makes process.stdin (and stdout, stderr) on first
  // access, loading the stream, net or tty modules behind it; stdin read from a file or
  // /dev/null loads fs/promises, readline and the REPL's history too. Most commands never
  // read stdin, and output to a pipe or a file needs no stream (fd-stream.ts): a few ms of
  // start-up each on Node 24 (bench/startup.mjs).
  let stdout: OutStream | undefined;
  let stderr: OutStream | undefined;
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return (stdout ??= fdStream(
        1,
        (error) => onWriteError(1, error),
        () => process.stdout,
      ));
    },
    get stderr() {
      return (stderr ??= fdStream(
        2,
        (error) => onWriteError(2, error),
        () => process.stderr,
      ));
    },
    env: process.env,
    clock: systemClock,
    prompter: inquirerPrompter,
    get relaunch() {
      return relaunchCommand();
    },
    openBrowser: async (launch) => (await import('./browser-launch.js')).launchBrowser(launch),
    async drained() {
      const used = [stdout, stderr].filter((stream): stream is OutStream => stream !== undefined);
      await Promise.all(used.map((stream) => new Promise<unknown>((resolve) => stream.write('', resolve))));
      // Node's own stream reports a failed write with an 'error' event after the write's
      // callback: a turn of the event loop hears it. A direct write needs none (and the turn
      // costs most of a millisecond at start-up, for V8's pending tasks).
      if (used.some((stream) => stream.direct !== true))
        await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

/** node and the launcher for the package; the executable alone for a single executable (its argv[1] is itself). */
function relaunchCommand(): Io['relaunch'] {
  const sea = process.getBuiltinModule?.('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) return { command: process.execPath, args: [] };
  return { command: process.execPath, args: [...process.execArgv, process.argv[1] ?? ''] };
}
