/** Reading what the user hands over: stdin, and files named by a flag. */
import { readFileSync } from 'node:fs';
import { InterruptedError, UsageError } from '../core/errors.js';
import type { InStream, OutStream } from './io.js';

export interface StdinOptions {
  /** Ctrl-C: the read ends at once with InterruptedError (nothing was sent). */
  signal: AbortSignal;
  /** Shown on stderr when stdin is a terminal, so a waiting prompt-less read is not mistaken for a hang. */
  hint: string;
  stdin: InStream;
  stderr: OutStream;
}

/**
 * The chunks of stdin until its end. On a terminal, the hint goes to stderr
 * first. An interrupt ends the read at once (a blocked read of a terminal
 * would otherwise hold the process until the next line), and stdin is closed
 * when the reader stops early, so lines typed afterwards go back to the shell.
 */
export async function* readStdinChunks(options: StdinOptions): AsyncGenerator<Buffer> {
  const { stdin } = options;
  if (stdin.isTTY) options.stderr.write(`${options.hint}\n`);
  const { signal } = options;
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new InterruptedError('interrupted while reading stdin; nothing was sent', { sent: false }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  interrupted.catch(() => {});
  const chunks = stdin[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const next = (await Promise.race([chunks.next(), interrupted])) as IteratorResult<Buffer | string>;
      if (next.done) {
        ended = true;
        return;
      }
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort!);
    // Stopped early (one line read, or interrupted): close stdin, so a pending read of a terminal
    // cannot hold the process open and what is typed next goes back to the shell. The iterator's own
    // return() would wait behind that pending read.
    if (!ended) stdin.destroy?.();
  }
}

/** All of stdin. */
export async function readStdin(options: StdinOptions): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of readStdinChunks(options)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The first line of stdin (without its line break); nothing after it is read or kept. */
export async function readStdinLine(options: StdinOptions): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of readStdinChunks(options)) {
    const newline = chunk.indexOf(0x0a);
    if (newline >= 0) {
      chunks.push(chunk.subarray(0, newline));
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8').replace(/\r$/, '');
}

/** The bytes of a file given to `flag`; a missing or unreadable file is a usage error naming both. */
export function readFlagFile(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`${flag} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}
