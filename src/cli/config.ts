/**
 * Profiles and settings, stored with conf in a file only its owner can read
 * (mode 0600). Loaded lazily: a command whose key and base URL come from the
 * environment never touches the file.
 */
import type Conf from 'conf';
import { UsageError } from '../core/errors.js';

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
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGABRT', 'SIGALRM', 'SIGVTALRM', 'SIGXCPU', 'SIGXFSZ', 'SIGUSR2', 'SIGTRAP', 'SIGSYS', 'SIGIOT', 'SIGPROF', 'SIGBREAK', 'SIGIO', 'SIGPOLL', 'SIGPWR', 'SIGSTKFLT'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]));
  const { default: ConfClass } = await import('conf');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener);
  }
  return ConfClass;
}

export async function openConfig(env: NodeJS.ProcessEnv): Promise<Conf<ConfigShape>> {
  const ConfClass = await importConfQuietly();
  const dir = env.SIGN_CONFIG_DIR;
  try {
    return new ConfClass<ConfigShape>({
      projectName: 'sign-cli',
      projectSuffix: '',
      configFileMode: CONFIG_FILE_MODE,
      ...(dir ? { cwd: dir } : {}),
    });
  } catch (error) {
    // conf passes on V8's parse error, which quotes the file's text: it may hold a key. Name only the file.
    if (error instanceof SyntaxError) {
      throw new UsageError(`the config file ${dir ? `${dir}/config.json` : '(sign-cli config.json)'} is not valid JSON`, {
        hint: 'fix it by hand, or move it away and add keys again with `sign-cli keys add`',
      });
    }
    throw error;
  }
}
