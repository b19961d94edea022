/**
 * V8 code caches of the CLI's chunks, made after a command has run.
 *
 * Node's own compile cache (module.enableCompileCache) saves what V8 holds of a file right
 * after compiling it, before it runs. V8 compiles a function the first time it is called, so
 * that cache has little more than the top level of each chunk: every run compiled commander,
 * zod and the command again (what this saves: README.md here). A cache made when the command has finished
 * holds every function it ran.
 *
 * One cache file per chunk, in a directory of the build and the runtime, so a cache is never
 * read for other code (V8 itself checks only the source's length). A cache V8 rejects (its
 * flags changed) or that is missing is written at the end of the run; the first run of each
 * command line (`keys list`, `envelopes validate`) writes every chunk it loaded once more, so
 * that the caches hold what every command that ran needs, not only what the first one ran.
 * Files are written whole (a temporary file, then a rename) and only into a directory this user
 * owns and no one else can write: a planted cache would be code run by whoever runs sign-cli.
 * Any failure means no cache, never a failed command.
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** What V8 serialises: a vm.Script, after it has run. */
export interface CachedScript {
  createCachedData(): Buffer;
}

export type CacheOutcome = 'hit' | 'miss' | 'rejected';

export interface CodeCacheOptions {
  /** The directory of caches of every build (cacheRoot). */
  root: string;
  /** The build and runtime the caches are for: a subdirectory of their own. */
  key: string;
  /** The command line's words (commandKey): its first run refreshes every chunk it loads. */
  command: string;
  /** Now, in ms (injected for the pruning tests). */
  now?: number;
}

/** Directories of other builds or runtimes untouched for this long are removed when a new one is made. */
export const STALE_AFTER_MS = 7 * 24 * 3600 * 1000;

/**
 * The platform's cache directory with `sign-cli` in it: `$XDG_CACHE_HOME` or `~/.cache`
 * (Linux and the rest), `~/Library/Caches` (macOS), `%LOCALAPPDATA%` (Windows). Undefined
 * without a home. The single executable keeps the keychain's addon there too
 * (scripts/build/exe/keyring-from-asset.cjs).
 */
export function platformCacheDir(
  env: NodeJS.ProcessEnv,
  home: () => string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const fromEnv =
    platform === 'win32' ? env.LOCALAPPDATA : platform === 'darwin' ? undefined : env.XDG_CACHE_HOME;
  if (fromEnv) return join(fromEnv, 'sign-cli');
  let dir: string;
  try {
    dir = home();
  } catch {
    return undefined; // a user with no home (os.homedir throws without HOME or a passwd entry)
  }
  if (!dir) return undefined;
  const base =
    platform === 'win32'
      ? join(dir, 'AppData', 'Local')
      : platform === 'darwin'
        ? join(dir, 'Library', 'Caches')
        : join(dir, '.cache');
  return join(base, 'sign-cli');
}

/** Where the code caches go: `$SIGN_CACHE_DIR`, else the platform's cache directory. */
export function cacheRoot(
  env: NodeJS.ProcessEnv,
  home: () => string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  return env.SIGN_CACHE_DIR || platformCacheDir(env, home, platform);
}

/**
 * The command a line names, for the once-per-command refresh: its first two words (`keys
 * list`), options skipped, up to the first argument that is not a word (a file, a value),
 * and whether it asks for help (which runs other code than the command: `validate --help`
 * first must not stand for `validate`). A value of a global option given first (`--profile
 * prod keys list`) is taken for a word: one more refresh, nothing worse.
 */
export function commandKey(args: readonly string[]): string {
  const words: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-')) continue;
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(arg) || words.length === 2) break;
    words.push(arg);
  }
  const key = words.length > 0 ? words.join('.') : 'program';
  return args.includes('--help') || args.includes('-h') ? `${key}.help` : key;
}

/** The directory is this user's alone: a directory (not a link), theirs, and writable by no one else (Windows: a directory). */
export function isPrivateDirectory(dir: string): boolean {
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) return false;
  if (typeof process.getuid !== 'function') return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

interface Tracked {
  name: string;
  script: CachedScript;
  outcome: CacheOutcome;
}

export class CodeCache {
  private readonly tracked: Tracked[] = [];

  private constructor(
    readonly dir: string,
    private readonly marker: string,
  ) {}

  /** The cache of this build and runtime, its directory made private; undefined when there can be none. */
  static open(options: CodeCacheOptions): CodeCache | undefined {
    const dir = join(options.root, 'code', options.key);
    try {
      const made = mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined;
      if (!isPrivateDirectory(dir) || !isPrivateDirectory(join(options.root, 'code'))) return undefined;
      // The launcher runs before the CLI's Io (and its clock) exists: the process's time is the default.
      if (made) pruneStale(join(options.root, 'code'), options.key, options.now ?? Date.now());
    } catch {
      return undefined;
    }
    return new CodeCache(dir, join(dir, `ran.${options.command}`));
  }

  /** The cache of a chunk, if there is one to give V8. */
  read(name: string): Buffer | undefined {
    try {
      return readFileSync(this.file(name));
    } catch {
      return undefined;
    }
  }

  /** A chunk compiled in this run, and what became of its cache: persist() decides whether to write it. */
  track(name: string, script: CachedScript, outcome: CacheOutcome): void {
    this.tracked.push({ name, script, outcome });
  }

  /**
   * At the end of the run: writes the caches missing or rejected, or every chunk's when this
   * command line had not run with these caches yet (then marks it as run). Returns the chunks written.
   */
  persist(): string[] {
    let firstRun: boolean;
    try {
      firstRun = !statSync(this.marker).isFile();
    } catch {
      firstRun = true;
    }
    const written: string[] = [];
    for (const { name, script, outcome } of this.tracked) {
      if (!firstRun && outcome === 'hit') continue;
      let data: Buffer;
      try {
        data = script.createCachedData();
      } catch {
        continue; // runs in the process's exit: nothing may escape
      }
      if (this.write(this.file(name), data)) written.push(name);
    }
    if (firstRun && written.length === this.tracked.length) this.write(this.marker, Buffer.alloc(0));
    return written;
  }

  private file(name: string): string {
    return join(this.dir, `${name}.cache`);
  }

  /** Whole or not at all: a reader sees the old file or the new one. */
  private write(path: string, data: Buffer): boolean {
    const temporary = `${path}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, data, { mode: 0o600 });
      renameSync(temporary, path);
      return true;
    } catch {
      rmSync(temporary, { force: true });
      return false;
    }
  }
}

/** Removes the caches of other builds and runtimes not written for a week (an upgrade leaves the old ones behind). */
function pruneStale(codeDir: string, keep: string, now: number): void {
  for (const entry of readdirSync(codeDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep) continue;
    const dir = join(codeDir, entry.name);
    if (now - statSync(dir).mtimeMs > STALE_AFTER_MS) rmSync(dir, { recursive: true, force: true });
  }
}
