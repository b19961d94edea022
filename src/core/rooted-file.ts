/**
 * A file written under a root directory that it cannot leave, even when
 * another process swaps a directory of its path for a link while it is
 * written (what `sign-cli mcp --root` promises). The file is written as
 * `<name>.part` beside its target, then renamed over it.
 *
 * Where /proc is (Linux), every step goes through descriptors, as openat(2)
 * would: each directory is opened relative to the one before it, refusing
 * links (O_DIRECTORY | O_NOFOLLOW through `/proc/self/fd/<dir>/<name>`); the
 * `.part` is created in the last one (O_CREAT | O_EXCL | O_NOFOLLOW); the
 * writer reaches that very file through its own descriptor's name, and the
 * rename happens inside the directory held. A link swapped in later changes
 * none of them. At the end, a directory moved out from under the root takes
 * the copy with it: the copy is removed and the write refused.
 *
 * Elsewhere (macOS, Windows) there is no way to open relative to a descriptor:
 * the path is checked for links, and the real path of the file is checked
 * after it is created, after it is written and after the rename, removing
 * what a swap carried outside. That detects a swap still in place at a check,
 * not one undone between two checks.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { StorageError, UsageError } from './errors.js';
import { storageError } from './fs-errors.js';

/** Where a writer that opens files by name (answer-body.ts) writes, and what happens after. */
export interface FileTarget {
  /** The path to give the writer: it reaches the `.part` that was created, whatever happens to the names. */
  readonly writePath: string;
  /**
   * The `.part` renamed to the file, once the writer said it wrote `bytes`
   * bytes; throws (and removes what it can) when the file could have left the
   * root or is not the one written.
   */
  commit(bytes: number): void;
  /** Removes the `.part` if it was not committed, and closes what was opened. Call it in every case; it never throws. */
  close(): void;
  /** A writer's error about `writePath` (a descriptor's name under /proc), said about the `.part`'s own path. */
  explain(error: unknown): unknown;
}

/** `error` as said about `shown` where it names `written` (what the writer was given). */
function explained(error: unknown, written: string, shown: string): unknown {
  if (!(error instanceof StorageError) || written === shown || error.path !== written) return error;
  return new StorageError(shown, error.code, error.message.replaceAll(written, shown), {
    ...(error.hint !== undefined ? { hint: error.hint.replaceAll(written, shown) } : {}),
    cause: error,
  });
}

export interface RootedFileOptions {
  /** Use descriptors under /proc when it is there (default); false forces the checks of other systems. */
  proc?: boolean;
}

const PROC_FD = '/proc/self/fd';
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
// Not defined on Windows: there the path checks below are all there is.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

const errnoOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

const sameFile = (a: Stats, b: Stats): boolean => a.ino === b.ino && a.dev === b.dev;

/** `file`'s directories under the root and its name; refused when it is not under the root. */
function placeUnderRoot(root: string, file: string): { realRoot: string; dirs: string[]; name: string } {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch (error) {
    throw new UsageError(`the root directory ${root} cannot be used: ${(error as Error).message}`);
  }
  const wanted = resolve(file);
  // The root as given or as its real path: either spelling of a file under it is under it.
  const base = [resolve(root), realRoot].find((dir) => inside(dir, wanted));
  const rel = base === undefined ? undefined : relative(base, wanted);
  if (rel === undefined || rel === '')
    throw new UsageError(`${file} is not a file under ${realRoot}; name a file inside it`);
  const parts = rel.split(sep);
  return { realRoot, dirs: parts.slice(0, -1), name: parts.at(-1)! };
}

/**
 * Why a directory of the path could not be entered, as a refusal naming it;
 * `now` is what is there as this is said (it may have changed since).
 */
function refusedDirectory(error: unknown, shown: string, now: Stats | undefined): Error {
  const code = errnoOf(error);
  if (now?.isSymbolicLink())
    return new UsageError(`${shown} is a symbolic link; a file under the root is written through no link`);
  if (now !== undefined && !now.isDirectory()) return new UsageError(`${shown} is not a directory`);
  // Refused as a link a moment ago, a directory again (or nothing) now: something is swapping it.
  if (code === 'ENOTDIR' || code === 'ELOOP')
    return new UsageError(
      `${shown} was a symbolic link when it was opened (something is swapping it); a file under the root is written through no link`,
    );
  if (code === 'ENOENT' || code === undefined)
    return new UsageError(`${shown} does not exist; create the directory first`);
  return storageError(error, shown, 'open the directory');
}

/** The file created is not the one the writer filled: it wrote elsewhere. */
function notWhole(created: number, bytes: number, target: string): void {
  const size = fstatSync(created).size;
  if (size !== bytes)
    throw new StorageError(
      target,
      'ENOTWRITTEN',
      `${target}.part holds ${size} bytes, not the ${bytes} written: the file was written elsewhere (a link swapped in); nothing was saved`,
      { hint: 'another program is changing this directory; try again when it is done' },
    );
}

/**
 * The root opened, when /proc names it by its descriptor as its real path:
 * what the descriptors below rely on. Undefined elsewhere (no /proc, or one
 * that names things otherwise), where the checks are used instead.
 */
function openedRoot(realRoot: string): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let fd: number;
  try {
    fd = openSync(realRoot, O_RDONLY | O_DIRECTORY);
  } catch (error) {
    throw storageError(error, realRoot, 'open the root directory');
  }
  let named: string | undefined;
  try {
    named = readlinkSync(`${PROC_FD}/${fd}`);
  } catch {
    // no /proc here
  }
  if (named === realRoot) return fd;
  closeSync(fd);
  return undefined;
}

/**
 * The file `file` under `root`, ready to be written as `<file>.part`. Refuses
 * (UsageError, nothing written) a path outside the root or through a link.
 */
export function fileUnderRoot(root: string, file: string, options: RootedFileOptions = {}): FileTarget {
  const place = placeUnderRoot(root, file);
  const rootFd = (options.proc ?? true) ? openedRoot(place.realRoot) : undefined;
  return rootFd === undefined ? checkedTarget(place) : heldTarget(place, rootFd);
}

/** Linux: descriptors all the way (see the top of this file), from the root's. */
function heldTarget({ realRoot, dirs, name }: ReturnType<typeof placeUnderRoot>, rootFd: number): FileTarget {
  const at = (dir: number, entry: string) => `${PROC_FD}/${dir}/${entry}`;
  let dir = rootFd;
  let part: number | undefined;
  const partName = `${name}.part`;
  const expectedDir = join(realRoot, ...dirs);
  let committed = false;
  try {
    for (const [i, entry] of dirs.entries()) {
      let next: number;
      try {
        next = openSync(at(dir, entry), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (error) {
        const shown = join(realRoot, ...dirs.slice(0, i + 1));
        throw refusedDirectory(error, shown, lstatSync(at(dir, entry), { throwIfNoEntry: false }));
      }
      closeSync(dir);
      dir = next;
    }
    // A .part an interrupted run left is this file's: removed by its name in this directory (a link is removed, not followed).
    try {
      unlinkSync(at(dir, partName));
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT' && errnoOf(error) !== 'EISDIR' && errnoOf(error) !== 'EPERM')
        throw storageError(error, join(expectedDir, partName), 'remove');
    }
    try {
      part = openSync(at(dir, partName), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
    } catch (error) {
      // Still there after the unlink above: a directory (unlink refuses those), which the write
      // could not have used either; said as such, with its own path, not the descriptor's.
      const there =
        errnoOf(error) === 'EEXIST' ? lstatSync(at(dir, partName), { throwIfNoEntry: false }) : undefined;
      if (there?.isDirectory())
        throw storageError(
          Object.assign(new Error('a directory'), { code: 'EISDIR' }),
          join(expectedDir, partName),
          'write',
        );
      throw storageError(error, join(expectedDir, partName), 'create');
    }
  } catch (error) {
    closeSync(dir);
    throw error;
  }
  const held = dir;
  const created = part;
  const ours = (entry: string): boolean => {
    const there = lstatSync(at(held, entry), { throwIfNoEntry: false });
    return there !== undefined && sameFile(there, fstatSync(created));
  };
  return {
    writePath: `${PROC_FD}/${created}`,
    commit(bytes) {
      const target = join(expectedDir, name);
      notWhole(created, bytes, target);
      try {
        renameSync(at(held, partName), at(held, name));
      } catch (error) {
        throw storageError(error, target, 'save');
      }
      committed = true;
      if (!ours(name))
        throw new StorageError(target, 'EREPLACED', `${target}.part was replaced while it was saved`, {
          hint: 'another program is changing this directory; try again when it is done',
        });
      // The directory held is still where it was named: else it was moved (by a swap) and the copy goes.
      const now = readlinkSync(`${PROC_FD}/${held}`);
      if (now !== expectedDir) {
        unlinkSync(at(held, name));
        throw new StorageError(
          target,
          'EMOVED',
          `${target}: a directory of its path was moved while the file was saved${inside(realRoot, now) ? '' : `, out of ${realRoot}`}; the copy was removed`,
          { hint: 'another program is changing this directory; try again when it is done' },
        );
      }
    },
    close() {
      try {
        if (!committed && ours(partName)) unlinkSync(at(held, partName));
      } catch {
        // Closing after a failure: the failure is what the caller reports.
      } finally {
        closeSync(created);
        closeSync(held);
      }
    },
    explain: (error) => explained(error, `${PROC_FD}/${created}`, join(expectedDir, partName)),
  };
}

/** Other systems: the path checked for links, and the file's real path after each step. */
function checkedTarget({ realRoot, dirs, name }: ReturnType<typeof placeUnderRoot>): FileTarget {
  for (const i of dirs.keys()) {
    const shown = join(realRoot, ...dirs.slice(0, i + 1));
    let stat: Stats;
    try {
      stat = lstatSync(shown);
    } catch (error) {
      throw refusedDirectory(error, shown, undefined);
    }
    if (!stat.isDirectory()) throw refusedDirectory(undefined, shown, stat);
  }
  const dir = join(realRoot, ...dirs);
  const partPath = join(dir, `${name}.part`);
  const target = join(dir, name);
  let created: number;
  try {
    // O_EXCL: a .part already there (even a link) is never opened; an interrupted run's is named in the error.
    created = openSync(partPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST')
      throw new StorageError(
        partPath,
        'EEXIST',
        `${partPath} is already there; it is not opened, even to replace it`,
        {
          hint: `remove ${partPath} if an interrupted download left it`,
        },
      );
    throw storageError(error, partPath, 'create');
  }
  const createdStat = fstatSync(created);
  let committed = false;
  /** The real place of `path` if it is outside the root (then removed when `remove`), else undefined. */
  const escaped = (path: string): string | undefined => {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return undefined;
    }
    if (inside(realRoot, real)) return undefined;
    // Ours or the writer's (a file it created through the link swapped in): it goes.
    if (lstatSync(real, { throwIfNoEntry: false })?.isFile()) unlinkSync(real);
    return real;
  };
  const refuse = (where: string): StorageError =>
    new StorageError(
      target,
      'EESCAPED',
      `${target} led out of ${realRoot} while it was saved (to ${where}, a link swapped in); that file was removed`,
      { hint: 'another program is changing this directory; try again when it is done' },
    );
  const check = (path: string): void => {
    const out = escaped(path);
    if (out !== undefined) throw refuse(out);
  };
  check(partPath);
  return {
    writePath: partPath,
    commit(bytes) {
      check(partPath);
      // Written through a link swapped in and then swapped back: the file created here holds nothing.
      notWhole(created, bytes, target);
      try {
        renameSync(partPath, target);
      } catch (error) {
        throw storageError(error, target, 'save');
      }
      committed = true;
      check(target);
    },
    close() {
      try {
        if (!committed) {
          check(partPath);
          const there = lstatSync(partPath, { throwIfNoEntry: false });
          if (there && sameFile(there, createdStat)) unlinkSync(partPath);
        }
      } catch {
        // Closing after a failure: the failure is what the caller reports.
      } finally {
        closeSync(created);
      }
    },
    explain: (error) => error,
  };
}
