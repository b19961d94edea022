/**
 * A lock file naming its holder, for state one process at a time may use (a
 * sandbox's data dir, a create journal). A lock left by a process that is gone
 * is taken over, even when its pid now belongs to another process or lived in
 * another pid namespace (a container without an init, killed as PID 1, leaves
 * a lock naming pid 1, which always exists).
 *
 * The holder is named by its pid and, where /proc tells them (Linux), the
 * boot, the pid namespace and the process's start time: a lock is stale when
 * the machine rebooted since, when its namespace has no process left, or when
 * its pid is now another process (another start time). Elsewhere, the pid alone.
 *
 * The lock appears with its content already in it (written to a private file,
 * then hard-linked into place, which fails if the lock exists), so nobody can
 * read it empty and take it for stale. A stale lock is moved aside by rename
 * (atomic: one taker wins) and checked to be the one judged stale before the
 * retry. A token says whose lock it is, so one process can hold several and
 * never release another's.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';

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

const readProc = (path: string, link = false): string | undefined => {
  try {
    return link ? readlinkSync(path) : readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat; the name before it may hold spaces). */
function startTime(proc: string): string | undefined {
  const stat = readProc(`${proc}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}

/** Who holds a lock, as far as this machine can tell. */
interface Holder {
  pid: number;
  token: string;
  boot?: string | undefined;
  pidns?: string | undefined;
  start?: string | undefined;
}

/** This process, described through /proc/self (its real pid namespace and start, even as PID 1 of a container). */
function me(token: string): Holder {
  return { pid: process.pid, token, boot: readProc('/proc/sys/kernel/random/boot_id'), pidns: readProc('/proc/self/ns/pid', true), start: startTime('/proc/self') };
}

/** `<pid> <token>` from older versions; JSON now. */
function parse(content: string): Holder | undefined {
  try {
    const holder = JSON.parse(content) as Holder;
    if (Number.isInteger(holder.pid) && typeof holder.token === 'string') return holder;
  } catch {
    const [pid, token] = content.split(' ');
    if (Number.isInteger(Number(pid)) && token) return { pid: Number(pid), token };
  }
  return undefined;
}

/** Whether any process still lives in the pid namespace `ns` (a container's), as /proc shows them. */
function namespaceHasProcesses(ns: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return true; // cannot tell: not stale
  }
  return pids.some((pid) => readProc(`/proc/${pid}/ns/pid`, true) === ns);
}

/** Whether the lock's holder is still running. */
export function holderAlive(holder: Holder): boolean {
  const here = me('');
  // Another boot: everything that ran before is gone.
  if (holder.boot && here.boot && holder.boot !== here.boot) return false;
  // Another pid namespace: its pid means nothing here; it lives while its namespace has a process.
  if (holder.pidns && here.pidns && holder.pidns !== here.pidns) return namespaceHasProcesses(holder.pidns);
  if (holder.pid <= 0 || !isAlive(holder.pid)) return false;
  // The same pid, but started at another time: another process now.
  if (holder.start) {
    const now = startTime(`/proc/${holder.pid}`);
    if (now !== undefined && now !== holder.start) return false;
  }
  return true;
}

/** The pid holding the lock at `path`, when that process is alive; undefined for no lock or a stale one. */
export function lockHolder(path: string): number | undefined {
  const content = read(path);
  const holder = content === undefined ? undefined : parse(content);
  return holder && holderAlive(holder) ? holder.pid : undefined;
}

/** Takes the lock at `path` or throws LockedError naming the live owner; returns the release. */
export function takePidLock(path: string, what: (ownerPid: number) => string): () => void {
  if (held.has(path)) throw new LockedError(what(process.pid), process.pid);
  const content = JSON.stringify(me(randomBytes(8).toString('hex')));
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
      const holder = parse(existing);
      if (holder && holderAlive(holder)) throw new LockedError(what(holder.pid), holder.pid);
      // Stale (or unreadable): move it aside, and keep it aside only if it is the very lock judged stale.
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
