/**
 * Profiles and settings, stored with conf in a file only its owner can read
 * (mode 0600). Loaded lazily: a command whose key and base URL come from the
 * environment never touches the file.
 *
 * Reading the file is a JSON parse, so the commands that only read it (every
 * `create`, `validate`, `keys list`) do not load conf, its atomic writer and its
 * helpers (a few ms of start-up each, bench/startup.mjs); conf is loaded for the
 * first write, and writes the file as it always has.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Conf from 'conf';
import { getProperty } from 'dot-prop';
import envPaths from 'env-paths';
import { UsageError } from '../../core/errors.js';

export interface Profile {
  /** The key itself, for a key kept in this file (`--insecure-storage`, no keychain, or an earlier version). */
  api_key?: string;
  /** Where the key is in the OS keychain (profile-key.ts), for a key kept there. */
  keychain?: { service: string; account: string };
  /** The key is in this file because `keys add --insecure-storage` asked for it (not for want of a keychain). */
  insecure_storage?: boolean;
  /** A keychain key masked (`sk_live_****abcd`): listings show it without opening the keychain. */
  key_masked?: string;
  base_url?: string;
  environment?: string;
  /** YYYY-MM-DD */
  expires?: string;
  scopes?: string[];
  /** Scopes this key must have (checked by `keys check` and `doctor`); else config required_scopes. */
  requires?: string[];
  /** When sign-cli last got a 2xx with this key. */
  last_used?: string;
}

export interface ConfigShape extends Record<string, unknown> {
  active_profile?: string;
  profiles?: Record<string, Profile>;
  settings?: Record<string, unknown>;
  /** Endpoint path overrides by operation name (docs/assumptions.md: most paths are assumed). */
  paths?: Record<string, string>;
  /** The local sandbox's own settings: values it accepts beyond its lists (`sandbox.accept.<field>`). */
  sandbox?: { accept?: Record<string, string[]> };
}

export const CONFIG_FILE_MODE = 0o600;

/**
 * Loads conf without its signal hooks. conf writes through `atomically`, whose
 * `when-exit` re-raises SIGINT/SIGTERM on the process after its clean-up: every
 * Ctrl-C would arrive twice, and the second means "quit now" here (main.ts).
 * sign-cli handles those signals itself; when-exit's 'exit' hook, which does
 * the clean-up, stays.
 */
async function importConfQuietly(): Promise<typeof import('conf').default> {
  const signals = [
    'SIGINT',
    'SIGTERM',
    'SIGHUP',
    'SIGQUIT',
    'SIGABRT',
    'SIGALRM',
    'SIGVTALRM',
    'SIGXCPU',
    'SIGXFSZ',
    'SIGUSR2',
    'SIGTRAP',
    'SIGSYS',
    'SIGIOT',
    'SIGPROF',
    'SIGBREAK',
    'SIGIO',
    'SIGPOLL',
    'SIGPWR',
    'SIGSTKFLT',
  ] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: ConfClass } = await import('conf');
  for (const signal of signals) {
    for (const listener of process.listeners(signal))
      if (!before.get(signal)!.has(listener)) process.off(signal, listener);
  }
  return ConfClass;
}

/** What conf is told (and what the reading side resolves the same way). */
const PROJECT = { projectName: 'sign-cli', projectSuffix: '' } as const;

/** The config file: SIGN_CONFIG_DIR/config.json, else conf's place for sign-cli (~/.config/sign-cli/config.json on Linux). */
export function configPath(env: NodeJS.ProcessEnv): string {
  const dir = env.SIGN_CONFIG_DIR || envPaths(PROJECT.projectName, { suffix: PROJECT.projectSuffix }).config;
  return join(dir, 'config.json');
}

/**
 * The config file of one run: read once when opened (what conf's `get` reads, with conf's
 * dot paths), written through conf, which is loaded for the first write only.
 */
export class ConfigFile {
  private writer: Conf<ConfigShape> | undefined;

  private constructor(
    readonly path: string,
    private data: ConfigShape,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Reads the file as conf does: none yet is an empty config, and its directory is made. */
  static open(env: NodeJS.ProcessEnv): ConfigFile {
    const path = configPath(env);
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dirname(path), { recursive: true });
    }
    return new ConfigFile(
      path,
      text === undefined ? (Object.create(null) as ConfigShape) : parseConfig(text, path),
      env,
    );
  }

  /** The whole config (not to be changed: set() and delete() write it). */
  get store(): ConfigShape {
    return this.data;
  }

  get<K extends keyof ConfigShape>(key: K): ConfigShape[K];
  get(key: string): unknown;
  get(key: string): unknown {
    return getProperty(this.data, key);
  }

  /** Writes `key` (a dot path, as conf takes it) and reads back what conf wrote. */
  async set(key: string, value: unknown): Promise<void> {
    const conf = await this.conf();
    conf.set(key, value);
    this.data = conf.store;
  }

  async delete(key: string): Promise<void> {
    const conf = await this.conf();
    conf.delete(key);
    this.data = conf.store;
  }

  private async conf(): Promise<Conf<ConfigShape>> {
    if (!this.writer) {
      const ConfClass = await importConfQuietly();
      const dir = this.env.SIGN_CONFIG_DIR;
      try {
        this.writer = new ConfClass<ConfigShape>({
          ...PROJECT,
          configFileMode: CONFIG_FILE_MODE,
          ...(dir ? { cwd: dir } : {}),
        });
      } catch (error) {
        if (error instanceof SyntaxError) throw notJson(this.path);
        throw error;
      }
      // One file, whichever side resolved it: a write elsewhere would be lost to every later read.
      if (this.writer.path !== this.path)
        throw new Error(`conf writes ${this.writer.path}, but sign-cli reads ${this.path}`);
    }
    return this.writer;
  }
}

/** conf's reading: what the JSON holds, assigned onto an object with no prototype. */
function parseConfig(text: string, path: string): ConfigShape {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw notJson(path);
  }
  return Object.assign(Object.create(null) as ConfigShape, parsed);
}

/** V8's parse error quotes the file's text, which may hold a key: only the file is named. */
function notJson(path: string): UsageError {
  return new UsageError(`the config file ${path} is not valid JSON`, {
    hint: 'fix it by hand, or move it away and add keys again with `sign-cli keys add`',
  });
}
