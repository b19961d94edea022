/** Reading what the user hands over: stdin, and files named by a flag. */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { InterruptedError, UsageError } from '../../core/errors.js';
import type { InStream, OutStream } from '../process/io.js';

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
    onAbort = () =>
      reject(new InterruptedError('interrupted while reading stdin; nothing was sent', { sent: false }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  interrupted.catch(() => {});
  const chunks = stdin[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      const next = await Promise.race<IteratorResult<Buffer | string>>([chunks.next(), interrupted]);
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

/** Past a bound: how an input is named (`--input -`) and the most it may hold. */
export interface InputBound {
  /** The input as messages name it: `--input -`, `-F big.txt`. */
  what: string;
  bytes: number;
  /** Why that is the bound, for the message: "the most the service takes in one request; nothing was sent". */
  why: string;
}

/** The one line for an input past its bound: named, with the bound and why (exit 2). */
export function tooLarge(bound: InputBound): UsageError {
  return new UsageError(`${bound.what}: larger than ${sizeText(bound.bytes)}, ${bound.why}`);
}

/** `1 MiB (1,048,576 bytes)`, or the bytes alone for a bound that is no whole number of MiB. */
export function sizeText(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB (${exact})` : exact;
}

/** All of stdin; with a bound, refused as soon as more than it has arrived (the rest is never read). */
export async function readStdin(options: StdinOptions, bound?: InputBound): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of readStdinChunks(options)) {
    size += chunk.length;
    // Leaving the loop closes stdin (readStdinChunks): a writer still sending gets EPIPE, not a hang.
    if (bound && size > bound.bytes) throw tooLarge(bound);
    chunks.push(chunk);
  }
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

/**
 * The bytes of a file given to `flag`; a missing or unreadable file is a usage error naming both.
 * With a bound (`bytes`, `why`), a larger file is refused: by its size when it is a regular file,
 * else (a pipe, a device) once more than the bound has been read; never read whole.
 */
export function readFlagFile(flag: string, path: string, bound?: Omit<InputBound, 'what'>): Buffer {
  try {
    return bound ? readBoundedFile(path, { ...bound, what: `${flag} ${path}` }) : readFileSync(path);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      `${flag} ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
}

/** A file of at most `bound.bytes` bytes, read whole; past it, tooLarge(bound), having read at most one chunk past the bound. */
export function readBoundedFile(path: string, bound: InputBound): Buffer {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    if (stats.isFile() && stats.size > bound.bytes) throw tooLarge(bound);
    // Read in chunks, not by the size stat gave: a pipe has none, and a file may still be growing.
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, bound.bytes + 1 - size));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
      if (size > bound.bytes) throw tooLarge(bound);
    }
    return Buffer.concat(chunks, size);
  } finally {
    closeSync(fd);
  }
}

const READ_CHUNK = 65_536;
