/**
 * A lock file holding its owner's pid, for state one process at a time may
 * use (a sandbox's data dir, a create journal). A lock left by a process that
 * died is taken over.
 *
 * The lock appears with its content already in it (written to a private file,
 * then hard-linked into place, which fails if the lock exists), so nobody can
 * read it empty and take it for stale. A stale lock is moved aside by rename
 * (atomic: one taker wins) and checked to be the one judged stale before the
 * retry. A token, not just the pid, says whose lock it is, so one process can
 * hold several and never release another's.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export class LockedError extends Error {
  constructor(
    message: string,
    readonly ownerPid: number,
  ) {
    super(message);
  }
}

/** Locks this process holds, so a second take in the same process is refused too. */
const held = new Set<string>();

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const ownerOf = (content: string) => Number(content.split(' ')[0]);

/** The pid holding the lock at `path`, when that process is alive; undefined for no lock or a stale one. */
export function lockHolder(path: string): number | undefined {
  const content = read(path);
  if (content === undefined) return undefined;
  const owner = ownerOf(content);
  return Number.isInteger(owner) && owner > 0 && isAlive(owner) ? owner : undefined;
}

/** Takes the lock at `path` or throws LockedError naming the live owner; returns the release. */
export function takePidLock(path: string, what: (ownerPid: number) => string): () => void {
  if (held.has(path)) throw new LockedError(what(process.pid), process.pid);
  const content = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const staging = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(staging, content, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(staging, path);
        held.add(path);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          held.delete(path);
          // Only our own lock is removed, even if ours was taken over meanwhile.
          if (read(path) === content) rmSync(path, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const existing = read(path);
      if (existing === undefined) continue; // released meanwhile: try again
      const owner = ownerOf(existing);
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) throw new LockedError(what(owner), owner);
      // Stale: move it aside, and keep it aside only if it is the very lock judged stale.
      const aside = `${path}.stale.${randomBytes(4).toString('hex')}`;
      try {
        renameSync(path, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (read(aside) !== existing) {
        // Someone took the lock between our read and the rename: give it back.
        try {
          linkSync(aside, path);
        } catch {
          // the path was taken again meanwhile; theirs stands
        }
      }
      rmSync(aside, { force: true });
    }
    throw new LockedError(`could not take the lock ${path}`, 0);
  } finally {
    rmSync(staging, { force: true });
  }
}
