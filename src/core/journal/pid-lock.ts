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
 * A killed process nobody has reaped yet (a zombie) holds nothing: it is gone.
 * In another pid namespace the holder is looked for by its pid there (NSpid):
 * the namespace's other processes do not keep its lock; only where NSpid
 * cannot be read does a namespace with processes hold it, and the error says so.
 *
 * The lock appears with its content already in it (written to a private file,
 * then hard-linked into place, which fails if the lock exists), so nobody can
 * read it empty and take it for stale. A stale lock is removed only under a
 * second lock, `<lock>.takeover`, taken the same way, after reading it again:
 * while it is held nobody else removes the lock, and nobody can put one in
 * its place before it is gone, so the lock removed is the very one judged
 * stale. (Moving it aside by rename and giving it back when it was not could
 * lose a live lock: a third taker could link its own in between, and two
 * would hold it.) A token says whose lock it is, so one process can hold
 * several and never release another's.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';

export class LockedError extends Error {
  constructor(
    message: string,
    readonly ownerPid: number,
    /** Why the holder counts as running when that is not plain (another pid namespace). */
    readonly ownerNote?: string,
  ) {
    super(ownerNote ? `${message}; ${ownerNote}` : message);
  }
}

/**
 * The file operations a take makes, one at a time: the test runs other takers
 * between any two of them, so every interleaving is tried deterministically
 * (test/core/pid-lock.test.ts) instead of hoping a race of processes hits one.
 */
export interface LockFiles {
  write(path: string, content: string): void;
  link(existing: string, path: string): void;
  read(path: string): string | undefined;
  remove(path: string): void;
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const systemFiles: LockFiles = {
  write: (path, content) => writeFileSync(path, content, { mode: 0o600, flag: 'wx' }),
  link: (existing, path) => linkSync(existing, path),
  read,
  remove: (path) => rmSync(path, { force: true }),
};

/** Locks this process holds, so a second take in the same process is refused too. */
const held = new Set<string>();

/** A process's fields after its name in /proc/<pid>/stat (the name may hold spaces): [0] its state, [19] its start time. */
function statFields(proc: string): string[] | undefined {
  const stat = readProc(`${proc}/stat`);
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
const startTime = (proc: string): string | undefined => statFields(proc)?.[19];

/** Killed but not reaped yet: it runs nothing and holds nothing, though kill(pid, 0) still finds it. */
const isZombie = (proc: string): boolean => statFields(proc)?.[0] === 'Z';

/** Whether a process runs with this pid (a zombie does not; without /proc, kill(pid, 0) alone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(`/proc/${pid}`);
}

const readProc = (path: string, link = false): string | undefined => {
  try {
    return link ? readlinkSync(path) : readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

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
  return {
    pid: process.pid,
    token,
    boot: readProc('/proc/sys/kernel/random/boot_id'),
    pidns: readProc('/proc/self/ns/pid', true),
    start: startTime('/proc/self'),
  };
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

/** A live holder, and, when it is not plain, why it counts as one. */
interface Live {
  note?: string;
}

/**
 * The holder `pid` of the pid namespace `ns` (a container's), as /proc shows that namespace
 * from here: found by its pid there (the last NSpid of /proc/<pid>/status), a zombie being gone.
 * The namespace's other processes do not keep the lock; only when NSpid cannot be read (an
 * old kernel) does any live process of the namespace keep it, and the note says so.
 */
function holderInNamespace(ns: string, pid: number): Live | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return { note: `its holder is pid ${pid} of another pid namespace, which this process cannot look into` };
  }
  let unnamed = false;
  for (const here of pids) {
    if (readProc(`/proc/${here}/ns/pid`, true) !== ns || isZombie(`/proc/${here}`)) continue;
    const nspid = /^NSpid:\s+(.+)$/m.exec(readProc(`/proc/${here}/status`) ?? '');
    if (!nspid) unnamed = true;
    else if (Number(nspid[1]!.trim().split(/\s+/).pop()) === pid)
      return { note: `its holder is pid ${pid} of another pid namespace (a container), pid ${here} here` };
  }
  return unnamed
    ? {
        note: `its holder is pid ${pid} of another pid namespace (a container), which still has processes: this system cannot tell which is the holder, so the lock holds until they all end`,
      }
    : undefined;
}

/** The lock's holder if it is still running, else undefined. */
function liveHolder(holder: Holder): Live | undefined {
  const here = me('');
  // Another boot: everything that ran before is gone.
  if (holder.boot && here.boot && holder.boot !== here.boot) return undefined;
  // Another pid namespace: its pid means nothing here.
  if (holder.pidns && here.pidns && holder.pidns !== here.pidns)
    return holderInNamespace(holder.pidns, holder.pid);
  if (holder.pid <= 0 || !isAlive(holder.pid)) return undefined;
  // The same pid, but started at another time: another process now.
  if (holder.start) {
    const now = startTime(`/proc/${holder.pid}`);
    if (now !== undefined && now !== holder.start) return undefined;
  }
  return {};
}

/** Whether the lock's holder is still running. */
export function holderAlive(holder: Holder): boolean {
  return liveHolder(holder) !== undefined;
}

/** The pid holding the lock at `path`, when that process is alive; undefined for no lock or a stale one. */
export function lockHolder(path: string): number | undefined {
  const content = read(path);
  const holder = content === undefined ? undefined : parse(content);
  return holder && holderAlive(holder) ? holder.pid : undefined;
}

/**
 * Links `staging` (content `content`) to `path`; false when a lock is there. The returned
 * release removes it only while it is still this one.
 */
function linkLock(
  files: LockFiles,
  staging: string,
  path: string,
  content: string,
): (() => void) | undefined {
  try {
    files.link(staging, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (files.read(path) === content) files.remove(path);
  };
}

/**
 * Removes the lock at `path` if it still holds `stale`, under `<path>.takeover`. Another taker
 * holding that guard is left to finish (the caller tries again); a guard its taker left when it
 * died there (rare: it is held for a few system calls) is removed if it is still that one. That
 * check and removal are two steps: two takers finding the same dead guard at once is the one
 * window left, and it needs a taker killed inside the guard first.
 */
function removeStale(files: LockFiles, staging: string, path: string, content: string, stale: string): void {
  const guardPath = `${path}.takeover`;
  const guard = linkLock(files, staging, guardPath, content);
  if (!guard) {
    const other = files.read(guardPath);
    const holder = other === undefined ? undefined : parse(other);
    if (other !== undefined && (!holder || !holderAlive(holder)) && files.read(guardPath) === other)
      files.remove(guardPath);
    return;
  }
  try {
    // Nobody else removes the lock while the guard is ours, and nobody can link one while it is
    // there: read again, it is the one judged stale, or a live one that stays.
    if (files.read(path) === stale) files.remove(path);
  } finally {
    guard();
  }
}

/** Takes the lock at `path` or throws LockedError naming the live owner; returns the release. */
export function takePidLock(path: string, what: (ownerPid: number) => string): () => void {
  if (held.has(path)) throw new LockedError(what(process.pid), process.pid);
  const release = takeLockFile(path, what);
  held.add(path);
  return () => {
    held.delete(path);
    release();
  };
}

/**
 * The lock file alone, without this process's own record of what it holds: what each process
 * does. `files`: the test's, to run other takers between any two steps; the file system otherwise.
 */
export function takeLockFile(
  path: string,
  what: (ownerPid: number) => string,
  files: LockFiles = systemFiles,
): () => void {
  const content = JSON.stringify(me(randomBytes(8).toString('hex')));
  const staging = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  files.write(staging, content);
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      // Only our own lock is ever removed by the release, even if ours was taken over meanwhile.
      const release = linkLock(files, staging, path, content);
      if (release) return release;
      const existing = files.read(path);
      if (existing === undefined) continue; // released meanwhile: try again
      const holder = parse(existing);
      const live = holder ? liveHolder(holder) : undefined;
      if (holder && live) throw new LockedError(what(holder.pid), holder.pid, live.note);
      // Stale (or unreadable): removed if it is still the one judged stale.
      removeStale(files, staging, path, content, existing);
    }
    throw new LockedError(`could not take the lock ${path}`, 0);
  } finally {
    files.remove(staging);
  }
}
