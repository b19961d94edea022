/**
 * A lock file holding its owner's pid, for state one process at a time may
 * use (a sandbox's data dir, a create journal). A lock left by a process that
 * died is taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';

export class LockedError extends Error {
  constructor(
    message: string,
    readonly ownerPid: number,
  ) {
    super(message);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock at `path` or throws LockedError naming the live owner; `what` words the message. */
export function takePidLock(path: string, what: (ownerPid: number) => string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx', mode: 0o600 });
      let released = false;
      // Released once, and only while it is still ours.
      return () => {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8') === String(process.pid)) rmSync(path, { force: true });
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) throw new LockedError(what(owner), owner);
      rmSync(path, { force: true });
    }
  }
  throw new LockedError(`cannot take the lock ${path}`, 0);
}
