/**
 * Reading and writing an append-only JSON-lines log that a crash, or a full
 * disk, may have cut mid-line. A torn line was never acknowledged: it is cut
 * off (by bytes, so text that is not UTF-8 cannot shift the cut), on open and
 * right after a write that failed, so the next record always starts a line of
 * its own and is never glued to a fragment.
 */
import {
  closeSync,
  constants,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { storageError } from '../fs-errors.js';

/**
 * The whole lines of a log (a torn tail cut off). With `noFollow`, a symbolic
 * link where the log should be is refused (ELOOP) rather than read.
 */
export function readLog(path: string, options: { noFollow?: boolean } = {}): string {
  if (options.noFollow) {
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      return '';
    }
    if (stats.isSymbolicLink())
      throw Object.assign(new Error(`${path} is a symbolic link`), { code: 'ELOOP' });
  }
  if (!existsSync(path)) return '';
  const bytes = readFileSync(path);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return bytes.toString('utf8');
  const whole = bytes.lastIndexOf(0x0a) + 1;
  truncateSync(path, whole);
  return bytes.subarray(0, whole).toString('utf8');
}

/**
 * Writes all of `text` at the file's position: writeFileSync on a descriptor
 * loops over short writes and throws when the disk is full, where a bare
 * writeSync can write part of a line and say nothing.
 */
export function writeAll(fd: number, text: string): void {
  writeFileSync(fd, text);
}

export interface AppendLogOptions {
  /** fdatasync after each record: acknowledged means on disk (the sandbox's state). */
  sync: boolean;
  /** What the log is, for errors: "the journal", "the sandbox state". */
  what: string;
  /** A fix to add to an error's own (`--journal <file> on another disk`). */
  extraFix?: string;
}

/**
 * One writer's append-only log, opened without following a symlink (a link
 * planted where the log goes would make us append to someone else's file).
 * A record that cannot be written whole is taken back: the file is cut to
 * its size before it, so a failed write leaves nothing behind to glue the
 * next record to. While it cannot be taken back, no record is written.
 */
export class AppendLog {
  private fd: number | undefined;
  /** Bytes known whole: everything before this ends with a complete line. */
  private size = 0;
  /** A failed write whose bytes could not be cut off yet. */
  private torn = false;

  constructor(
    readonly path: string,
    private readonly options: AppendLogOptions,
  ) {}

  /** Opens (creating it 0600 when missing); throws a StorageError naming the path. */
  open(): void {
    if (this.fd !== undefined) return;
    try {
      this.fd = openSync(
        this.path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
        0o600,
      );
      this.size = fstatSync(this.fd).size;
    } catch (error) {
      throw storageError(error, this.path, `open ${this.options.what}`, this.options.extraFix);
    }
  }

  /** Appends one or more whole lines; on failure takes them back and throws a StorageError. */
  append(text: string): void {
    this.open();
    const fd = this.fd!;
    if (this.torn) this.takeBack(fd);
    try {
      writeAll(fd, text);
      if (this.options.sync) fdatasyncSync(fd);
    } catch (error) {
      this.torn = true;
      try {
        this.takeBack(fd);
      } catch {
        // Still torn: the next append tries again before writing.
      }
      throw storageError(error, this.path, `write ${this.options.what}`, this.options.extraFix);
    }
    this.size += Buffer.byteLength(text);
  }

  /**
   * Proves the log can be written, before anything depends on it: a record's
   * worth of bytes is written and taken back (a read-only disk, a permission
   * or, usually, a full disk shows now rather than mid-run).
   */
  probe(): void {
    this.append(`${' '.repeat(255)}\n`);
    this.size -= 256;
    this.takeBack(this.fd!);
  }

  private takeBack(fd: number): void {
    ftruncateSync(fd, this.size);
    this.torn = false;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
