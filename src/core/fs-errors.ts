/**
 * What a failed file operation means, in words: ENOSPC, EROFS, EACCES and the
 * like become a StorageError that names the path, says what went wrong and
 * what fixes it, instead of a bare `ENOSPC: no space left on device, write`.
 */
import { dirname } from 'node:path';
import { StorageError } from './errors.js';

const WHAT: Record<string, { said: string; fix: (path: string) => string }> = {
  ENOSPC: {
    said: 'no space left on the device',
    fix: () => 'free some space on that disk (`df -h` shows it), or use a place on another disk',
  },
  EDQUOT: { said: 'the disk quota is used up', fix: () => 'free some space, or use a place on another disk' },
  EROFS: { said: 'the file system is read-only', fix: () => 'use a writable place' },
  EACCES: {
    said: 'permission denied',
    fix: (path) => `check who owns it and its mode: ls -ld ${dirname(path)}`,
  },
  EPERM: {
    said: 'operation not permitted',
    fix: (path) => `check who owns it and its mode: ls -ld ${dirname(path)}`,
  },
  EMFILE: {
    said: 'too many open files',
    fix: () => 'raise the limit (`ulimit -n`) or run fewer things at once',
  },
  ENFILE: {
    said: 'too many open files on the system',
    fix: () => 'close other programs, or raise the system limit',
  },
  ELOOP: {
    said: 'it is a symbolic link, which is not followed',
    fix: (path) => `replace the link with a file of your own: rm ${path}`,
  },
  ENOENT: {
    said: 'a directory on its path does not exist',
    fix: (path) => `check the path, or make its directory first: mkdir -p ${dirname(path)}`,
  },
  EISDIR: { said: 'it is a directory', fix: () => 'give the path of a file' },
  ENOTDIR: { said: 'a part of the path is not a directory', fix: () => 'check the path' },
  EIO: { said: 'an input/output error', fix: () => 'check the disk' },
};

/** `error` (from node:fs) as a StorageError about `path`; `doing` says what was being done ("write the journal"). */
export function storageError(error: unknown, path: string, doing: string, extraFix?: string): StorageError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const known = code ? WHAT[code] : undefined;
  const said = known ? `${known.said} (${code})` : (error as Error).message;
  const fix = [known?.fix(path), extraFix].filter(Boolean).join('; ');
  return new StorageError(path, code, `could not ${doing} ${path}: ${said}`, {
    cause: error,
    ...(fix ? { hint: fix } : {}),
  });
}
