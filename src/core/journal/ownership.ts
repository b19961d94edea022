/**
 * Nothing another user can write is trusted (as ssh refuses a config file
 * others can write): a state or config directory, or a file in it, that
 * belongs to another user or that the group or others may write is refused,
 * naming the path and the command that fixes it. Lines planted in a journal
 * would otherwise decide what is "already created", and a planted symlink
 * where a file goes would make sign-cli write someone else's file.
 */
import { lstatSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

/** Refused: the path and the fix, exit 2 (nothing was sent). */
export class UnsafePermissionsError extends UsageError {
  constructor(
    readonly path: string,
    message: string,
    hint: string,
  ) {
    super(message, { hint });
  }
}

const myUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

interface CheckOptions {
  /** The caller makes the mode private itself (the sandbox chmods its data dir): only the owner matters. */
  modeIsFixed?: boolean;
}

function check(path: string, stats: Stats, what: string, options: CheckOptions = {}): void {
  const uid = myUid();
  // Windows has no uid or mode bits to compare: nothing to check there.
  if (uid === undefined) return;
  if (stats.uid !== uid) {
    throw new UnsafePermissionsError(
      path,
      `${path} belongs to another user (uid ${stats.uid}), so ${what} cannot be trusted`,
      `use a directory of your own, or, if it should be yours: chown -R ${uid} ${path}`,
    );
  }
  if (!options.modeIsFixed && (stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o777).toString(8).padStart(4, '0');
    throw new UnsafePermissionsError(
      path,
      `${path} can be written by other users (mode ${mode}), so ${what} cannot be trusted`,
      `chmod go-w ${path}`,
    );
  }
}

/** What is at `path` itself (a link not followed), or undefined when nothing is. */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** A directory sign-cli keeps state in: the user's own, not writable by others. Missing: nothing to check. */
export function checkPrivateDirectory(path: string, options: CheckOptions = {}): void {
  let stats = entryAt(path);
  if (!stats) return;
  if (stats.isSymbolicLink()) {
    // A link another user made (in /tmp, say) may lead to a directory of the user's: whoever made it
    // chose where sign-cli writes. Only the user's own link (or root's) is followed.
    const uid = myUid();
    if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) {
      throw new UnsafePermissionsError(
        path,
        `${path} is a symbolic link made by another user (uid ${stats.uid}), so where it leads cannot be trusted`,
        `use a directory of your own: rm ${path}`,
      );
    }
    // A directory reached through the user's own link (~/.local -> /data/me) is judged by where it leads.
    stats = statSync(path);
  }
  check(path, stats, 'what is in it', options);
}

/**
 * A directory sign-cli keeps in a state directory (`journals` in $SIGN_STATE_DIR), checked before
 * anything in it is read, written or pruned. The state directory must be the user's own and not
 * writable by others (else another user could move `journals` away and put a link in its place);
 * `journals` itself must be a real directory, never a link (one left there, even the user's own,
 * would decide where journals go), and private too. Missing: nothing to check (made 0700).
 */
export function checkStateSubdirectory(stateDir: string, name: string): void {
  checkPrivateDirectory(stateDir);
  const path = join(stateDir, name);
  const stats = entryAt(path);
  if (!stats) return;
  if (stats.isSymbolicLink()) {
    throw new UnsafePermissionsError(
      path,
      `${path} is a symbolic link; sign-cli does not follow links in its state directory`,
      `remove the link (rm ${path}): a real directory is made in its place`,
    );
  }
  check(path, stats, 'what is in it');
}

/** A file sign-cli reads its own state from: a regular file of the user's, not writable by others. Missing: nothing to check. */
export function checkPrivateFile(path: string, options: CheckOptions = {}): void {
  let stats: Stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (stats.isSymbolicLink()) {
    throw new UnsafePermissionsError(
      path,
      `${path} is a symbolic link; sign-cli does not follow links to its own files`,
      `replace it with a file of your own: rm ${path}`,
    );
  }
  check(path, stats, 'its content', options);
}

/** Whether others may read a file (a config holding keys): the mode to suggest, or undefined when private. */
export function readableByOthers(path: string): string | undefined {
  try {
    const stats = lstatSync(path);
    return (stats.mode & 0o077) !== 0 ? (stats.mode & 0o777).toString(8).padStart(4, '0') : undefined;
  } catch {
    return undefined;
  }
}
