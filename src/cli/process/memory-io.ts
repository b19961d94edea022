/**
 * In-memory IO (gh's `iostreams.Test()`): streams that can claim to be a terminal of any width,
 * so a command is tested from src, in process, with no build and no spawn, and `sign-cli mcp`
 * runs a command for a tool call. Apart from io.ts because its streams need node:stream, which
 * every command line would otherwise load at start-up (19 of Node's modules, for nothing).
 */
import { PassThrough, Writable } from 'node:stream';
import { systemClock, type Clock } from '../../core/clock.js';
import type { Io } from './io.js';
import { inquirerPrompter, type Prompter } from './prompter.js';

/** An in-memory output stream: what was written is in `text`. */
export interface MemoryStream extends Writable {
  text: string;
  isTTY: boolean;
  columns: number | undefined;
}

function memoryStream(tty: boolean, columns: number | undefined): MemoryStream {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stream.text += String(chunk);
      done();
    },
  }) as MemoryStream;
  stream.text = '';
  stream.isTTY = tty;
  stream.columns = tty ? (columns ?? 80) : undefined;
  return stream;
}

export interface TestIoOptions {
  /** What stdin holds (ended at once); default empty. */
  stdin?: string;
  /** stdin, stdout and stderr a terminal (`columns` wide, default 80); default: pipes. */
  tty?: boolean;
  columns?: number;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Answers of the test's own; default inquirer, on the in-memory streams when they claim to be a terminal. */
  prompter?: Prompter;
  relaunch?: Io['relaunch'];
  /** What "opening a browser" does; default: nothing, and says it could not. */
  openBrowser?: Io['openBrowser'];
}

export type TestIo = Io & { stdout: MemoryStream; stderr: MemoryStream };

/** gh's `iostreams.Test()`: in-memory streams, an environment of the caller's, the system clock and inquirer unless given. */
export function testIo(options: TestIoOptions = {}): TestIo {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  stdin.isTTY = options.tty === true;
  stdin.end(options.stdin ?? '');
  return {
    stdin,
    stdout: memoryStream(options.tty === true, options.columns),
    stderr: memoryStream(options.tty === true, options.columns),
    env: options.env ?? {},
    clock: options.clock ?? systemClock,
    prompter: options.prompter ?? inquirerPrompter,
    relaunch: options.relaunch ?? { command: process.execPath, args: [] },
    openBrowser: options.openBrowser ?? (() => Promise.resolve(false)),
  };
}
