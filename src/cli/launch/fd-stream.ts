/**
 * stdout and stderr for the process, written with fs.writeSync while they are a pipe, a
 * socket, a file or /dev/null. Node makes process.stdout on first use, and for a pipe that
 * means a net.Socket: the net, stream and stream-internals modules, more than many commands'
 * own work (what this saves: README.md here). A shell's pipe
 * is a FIFO; a program that spawns sign-cli from Node (or libuv) gives it a UNIX socket.
 * Written this way they behave as process.stdout does there (Node writes pipes, sockets and
 * files synchronously on POSIX); a terminal, or anything else, gets the real stream, as does
 * a descriptor someone made non-blocking (EAGAIN) from that write on, so the order of what
 * was written is kept.
 */
/** What a command writes to: a stream, and whether (and how wide) it is a terminal. */
export interface OutStream {
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
  on?(event: 'drain', listener: () => void): unknown;
  /** True while written straight to the descriptor (fd-stream.ts): a failed write is reported as it fails. */
  readonly direct?: boolean;
}

type RealStream = NodeJS.WriteStream;

/** Called when a write fails (a closed pipe's EPIPE, a terminal gone away's EIO). */
export type WriteErrorHandler = (error: NodeJS.ErrnoException) => void;

/** `fd` written directly while it is a pipe, a socket or a file, else (and after an EAGAIN) through `realStream()`. */
export function fdStream(fd: number, onError: WriteErrorHandler, realStream: () => RealStream): OutStream {
  const fs = process.getBuiltinModule('node:fs');
  let real: RealStream | undefined;
  const toReal = (): RealStream => {
    if (!real) {
      real = realStream();
      real.on('error', onError);
    }
    return real;
  };
  let direct = false;
  try {
    const stat = fs.fstatSync(fd);
    direct =
      stat.isFIFO() ||
      stat.isSocket() ||
      stat.isFile() ||
      (stat.isCharacterDevice() && isNullDevice(fs, stat));
  } catch {
    // A closed descriptor: the real stream reports what it reports.
  }
  if (!direct) return toReal();

  const stream: OutStream = {
    isTTY: false,
    columns: undefined,
    get direct() {
      return real === undefined;
    },
    write(chunk, callback) {
      if (real) return real.write(chunk, callback);
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let offset = 0;
      try {
        while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset);
      } catch (error) {
        const failure = error as NodeJS.ErrnoException;
        if (failure.code === 'EAGAIN') return toReal().write(bytes.subarray(offset), callback);
        onError(failure);
        if (callback) process.nextTick(callback, failure);
        return true;
      }
      if (callback) process.nextTick(callback);
      return true;
    },
    on(event, listener) {
      // A write here never asks the caller to wait; after a switch to the real stream, it may.
      if (real) real.on(event, listener);
      return stream;
    },
  };
  return stream;
}

/**
 * Whether a character device is the null device: `> /dev/null` in a script, and where
 * benchmark tools such as hyperfine send a command's output. Node writes it as a file (a
 * SyncWriteStream, after loading the stream modules); any other device,
 * a terminal above all, keeps the real stream. Told by the device number, the same for every
 * node of it, so no module (tty) is loaded to tell.
 */
function isNullDevice(fs: typeof import('node:fs'), stat: import('node:fs').Stats): boolean {
  try {
    const devNull = fs.statSync('/dev/null');
    return devNull.isCharacterDevice() && devNull.rdev === stat.rdev;
  } catch {
    // No /dev/null (Windows): its NUL device keeps the real stream.
    return false;
  }
}
