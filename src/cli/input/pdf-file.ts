/**
 * What `envelopes verify` reads besides its flags' values: the PDF (a file, a device or a named
 * pipe, refused past --max-size before or while it is read, a chunk at a time so that Ctrl-C
 * stops it) and the password of an encrypted one (--password, or the first line of
 * --password-file).
 */
import { close, fstat, open, read, stat, type Stats } from 'node:fs';
import { InterruptedError, UsageError } from '../../core/errors.js';
import { readFlagFile } from './stdin.js';

// node:fs's callbacks, not node:fs/promises: the same reads on Node's thread pool (the event loop
// stays free for Ctrl-C), without the 10 modules of Node fs/promises loads (readline's among
// them) for `envelopes verify` (test/e2e/startup.test.ts).
const settle =
  <T>(resolve: (value: T) => void, reject: (error: Error) => void) =>
  (error: Error | null, value: T) =>
    error ? reject(error) : resolve(value);

/** The file's stats (stat(2)), or undefined when there is none to stat. */
export const statOf = (file: string): Promise<Stats | undefined> =>
  new Promise((resolve) => stat(file, (error, stats) => resolve(error ? undefined : stats)));

const openRead = (file: string) =>
  new Promise<number>((resolve, reject) => open(file, 'r', settle(resolve, reject)));
const fstatOf = (fd: number) => new Promise<Stats>((resolve, reject) => fstat(fd, settle(resolve, reject)));
const readInto = (fd: number, buffer: Buffer, offset: number, length: number) =>
  new Promise<number>((resolve, reject) => read(fd, buffer, offset, length, null, settle(resolve, reject)));
const closeFd = (fd: number) => new Promise<void>((resolve) => close(fd, () => resolve()));

const MB = 1024 * 1024;
const megabytes = (bytes: number) => `${bytes % MB === 0 ? bytes / MB : (bytes / MB).toFixed(1)} MB`;

/** The refusal of a file over the bound: one line, naming the flag that raises it. */
function tooLarge(file: string, size: number | null, max: number): UsageError {
  const what = size === null ? `more than ${megabytes(max)}` : `${megabytes(size)} (${size} bytes)`;
  return new UsageError(
    `${file}: ${what}, over the ${megabytes(max)} a signed document may have here (a contract is kilobytes or a few megabytes); if it is the signed copy, raise the bound with --max-size ${Math.ceil((size ?? max + 1) / MB)}`,
  );
}

/**
 * The file's bytes, at most `max` of them: a regular file larger than that is refused by its size,
 * unread; anything else (a pipe, a device) once more than `max` has arrived. Read a chunk at a
 * time, so that Ctrl-C stops it.
 */
export async function readPdfFile(file: string, max: number, signal: AbortSignal): Promise<Buffer> {
  const kind = await statOf(file);
  if (kind?.isFIFO()) return readPipe(file, max, signal);
  let fd: number;
  try {
    fd = await openRead(file);
  } catch (error) {
    throw new UsageError(
      `the file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  try {
    const stats = await fstatOf(fd);
    if (stats.isDirectory()) throw new UsageError(`the file ${file}: a directory, not a PDF`);
    if (stats.isFile() && stats.size > max) throw tooLarge(file, stats.size, max);
    // A regular file is read into one buffer of its size (it may still grow: read up to the bound);
    // a pipe or a device in chunks.
    let buffer = Buffer.allocUnsafe(
      stats.isFile() ? Math.min(stats.size + 1, max + 1) : Math.min(max + 1, 1024 * 1024),
    );
    let size = 0;
    for (;;) {
      if (signal.aborted) throw readInterrupted(file);
      if (size === buffer.length) {
        if (size > max) throw tooLarge(file, null, max);
        const grown = Buffer.allocUnsafe(Math.min(max + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, size);
        buffer = grown;
      }
      const bytesRead = await readInto(fd, buffer, size, Math.min(buffer.length - size, 16 * MB));
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > max) throw tooLarge(file, null, max);
    }
    return buffer.subarray(0, size);
  } catch (error) {
    if (error instanceof UsageError || error instanceof InterruptedError) throw error;
    throw new UsageError(`the file ${file}: ${(error as Error).message}`);
  } finally {
    await closeFd(fd);
  }
}

/**
 * A named pipe (or `<(…)`), read on the event loop rather than by a file read on Node's thread
 * pool: a pipe whose writer never closes it would hold such a read, and the process's exit
 * with it, past Ctrl-C. Opened without waiting for a writer; its end is the writer's close.
 */
async function readPipe(file: string, max: number, signal: AbortSignal): Promise<Buffer> {
  if (signal.aborted) throw readInterrupted(file);
  const [{ Socket }, { openSync, constants }] = await Promise.all([import('node:net'), import('node:fs')]);
  let pipe: InstanceType<typeof Socket>;
  try {
    pipe = new Socket({ fd: openSync(file, constants.O_RDONLY | constants.O_NONBLOCK), writable: false });
  } catch (error) {
    throw new UsageError(`the file ${file}: ${(error as Error).message}`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: Error) => {
      signal.removeEventListener('abort', onAbort);
      pipe.destroy();
      reject(error);
    };
    const onAbort = () => stop(readInterrupted(file));
    signal.addEventListener('abort', onAbort, { once: true });
    pipe.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) return stop(tooLarge(file, null, max));
      chunks.push(chunk);
    });
    pipe.on('error', (error) => stop(new UsageError(`the file ${file}: ${error.message}`)));
    pipe.on('end', () => {
      signal.removeEventListener('abort', onAbort);
      resolve(Buffer.concat(chunks, size));
    });
  });
}

const readInterrupted = (file: string) =>
  new InterruptedError(`interrupted while reading ${file}; nothing was verified`, { sent: false });

/** `--password` or `--password-file` (its first line, without the end of line); never both. */
export function readPassword(options: { password?: string; passwordFile?: string }): string | undefined {
  if (options.password !== undefined && options.passwordFile !== undefined)
    throw new UsageError('--password and --password-file: give one of them, not both');
  if (options.passwordFile === undefined) return options.password;
  const text = readFlagFile('--password-file', options.passwordFile, {
    bytes: 64 * 1024,
    why: 'more than any password; give the file that holds the password alone',
  }).toString('utf8');
  return text.split(/\r?\n/)[0]!;
}
