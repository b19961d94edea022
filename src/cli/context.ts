/**
 * What every command needs: output, the interrupt signal, and the connection
 * (base URL, API key, profile) resolved with the precedence of DESIGN.md §2.
 */
import { dirname } from 'node:path';
import type { Command } from 'commander';
import type Conf from 'conf';
import { AuthError, UsageError } from '../core/errors.js';
import { ENDPOINTS, isOperation, parseBaseUrl, type Operation, type PathOverrides } from '../core/endpoints.js';
import { expiryStatus, maskKey } from '../core/keys.js';
import { environmentOfKey } from '../core/service-identity.js';
import type { SignClient, SignClientOptions, TraceEvent } from '../core/client.js';
import type { SharedBudget } from '../core/pacing.js';
import { parseRateStoreUrl, rateStorePassword } from '../core/rate-store-url.js';
import type { ConfigShape, Profile } from './config.js';
import { Output } from './output.js';
import { systemIo, type Io } from './io.js';
import { readFlagFile } from './stdin.js';

import { DEFAULT_BASE_URL } from './settings.js';

export { DEFAULT_BASE_URL };

export interface GlobalOptions {
  baseUrl?: string;
  apiKeyFile?: string;
  apiKey?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
  color: boolean;
  input: boolean;
  retries?: string;
  timeout?: string;
  query?: string;
  raw?: boolean;
  rateStore?: string;
}

export interface Connection {
  baseUrl: string;
  apiKey: string | undefined;
  /** The profile the key came from, with its stored metadata; undefined for env/file keys. */
  profileName: string | undefined;
  keyProfile: Profile | undefined;
  /** Where each value came from, for --verbose and doctor. */
  sources: { baseUrl: string; apiKey: string };
}

/** commander's argParser for a repeatable option: each use adds its value to the list. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Parses a whole number flag; a bad value is a usage error naming the flag. */
export function parseIntegerOption(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < min || n > max) {
    throw new UsageError(`${flag} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, got ${JSON.stringify(value)}`);
  }
  return n;
}

export function parsePositiveNumberOption(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new UsageError(`${flag} must be a number greater than 0, got ${JSON.stringify(value)}`);
  }
  return n;
}

export class CommandContext {
  readonly output: Output;
  /** Set by long-running servers (listen, sandbox), for which Ctrl-C is the normal way to stop. */
  serving = false;
  /** The commander command being run (for commands that look at the command tree). */
  command: Command | undefined;
  private config: Conf<ConfigShape> | undefined;
  private connection: Connection | undefined;

  /** The environment the command runs in (the Io's). */
  readonly env: NodeJS.ProcessEnv;

  constructor(
    readonly globals: GlobalOptions,
    readonly signal: AbortSignal,
    readonly io: Io = systemIo(),
    /** The command line after the program's name. */
    readonly argv: readonly string[] = [],
  ) {
    this.env = io.env;
    // --query filters JSON, so it asks for JSON (as in the AWS and Azure CLIs).
    this.output = new Output({
      json: globals.json === true || globals.query !== undefined,
      verbose: globals.verbose === true,
      color: globals.color,
      stdout: io.stdout,
      stderr: io.stderr,
      env: io.env,
    });
    if (globals.apiKey !== undefined) {
      // Do not echo the value: it is probably a real key.
      throw new UsageError('--api-key is not accepted: a key in a flag stays in shell history and process lists', {
        hint: 'use the SIGN_API_KEY environment variable, --api-key-file <path>, or `sign-cli keys add`',
      });
    }
  }

  /** For long-running servers (listen, sandbox): resolves on Ctrl-C or SIGTERM, which is their normal stop. */
  untilInterrupted(): Promise<void> {
    this.serving = true;
    return new Promise<void>((resolve) => {
      if (this.signal.aborted) resolve();
      this.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Compiles --query, before the command runs: a bad expression is exit 2 with nothing sent. */
  async prepare(): Promise<void> {
    if (this.globals.query === undefined) return;
    const { compileQuery } = await import('./query.js');
    this.output.setQuery(await compileQuery(this.globals.query), this.globals.raw !== false);
  }

  /** What inquirer prompts need: the command's terminal streams and its stop signal. */
  promptContext(): { signal: AbortSignal; input: NodeJS.ReadableStream; output: NodeJS.WritableStream } {
    return { signal: this.signal, input: this.io.stdin, output: this.io.stdout as unknown as NodeJS.WritableStream };
  }

  /** Prompts are allowed only on a real terminal, outside CI, without --no-input. */
  get canPrompt(): boolean {
    const ci = this.env.CI !== undefined && this.env.CI !== '' && this.env.CI !== 'false' && this.env.CI !== '0';
    return this.globals.input && !ci && this.io.stdin.isTTY === true && this.io.stdout.isTTY === true;
  }

  async loadConfig(): Promise<Conf<ConfigShape>> {
    // conf is loaded only by commands that read the config file.
    if (!this.config) {
      const config = await (await import('./config.js')).openConfig(this.env);
      // Settings and keys another user could have written are refused (their base URL would get our key).
      const { checkPrivateDirectory, checkPrivateFile } = await import('../core/ownership.js');
      checkPrivateDirectory(dirname(config.path));
      checkPrivateFile(config.path);
      this.config = config;
    }
    return this.config;
  }

  private async profile(): Promise<{ name: string | undefined; profile: Profile | undefined }> {
    const requested = this.globals.profile ?? (this.env.SIGN_PROFILE || undefined);
    const config = await this.loadConfig();
    const name = requested ?? config.get('active_profile');
    const profile = name ? config.get('profiles')?.[name] : undefined;
    if (requested && !profile) {
      throw new UsageError(`profile ${JSON.stringify(requested)} does not exist`, {
        hint: `create it with \`sign-cli keys add ${requested}\`, or pick another with --profile`,
      });
    }
    return { name, profile };
  }

  /** A stored setting (`sign-cli config`), or undefined. */
  async setting<T = unknown>(name: 'base_url' | 'rate' | 'timeout' | 'retries' | 'webhook_scheme' | 'required_scopes' | 'rate_store' | 'allow_unknown_fields'): Promise<T | undefined> {
    const settings = (await this.loadConfig()).get('settings');
    return settings?.[name] as T | undefined;
  }

  async pathOverrides(): Promise<PathOverrides> {
    return checkPathOverrides((await this.loadConfig()).get('paths'));
  }

  async resolveConnection(): Promise<Connection> {
    if (this.connection) return this.connection;
    const { globals, env } = this;
    let baseUrl = globals.baseUrl;
    let baseSource = '--base-url';
    if (!baseUrl && env.SIGN_BASE_URL) [baseUrl, baseSource] = [env.SIGN_BASE_URL, 'SIGN_BASE_URL'];
    let apiKey: string | undefined;
    let keySource = 'none';
    if (env.SIGN_API_KEY) [apiKey, keySource] = [env.SIGN_API_KEY.trim(), 'SIGN_API_KEY'];
    else if (globals.apiKeyFile) [apiKey, keySource] = [readKeyFile(globals.apiKeyFile), `--api-key-file ${globals.apiKeyFile}`];

    const { name: profileName, profile } = await this.profile();
    let keyProfile: Profile | undefined;
    if (!baseUrl && profile?.base_url) [baseUrl, baseSource] = [profile.base_url, `profile ${profileName}`];
    if (!apiKey && profile?.api_key) {
      [apiKey, keySource] = [profile.api_key, `profile ${profileName}`];
      keyProfile = profile;
      // Said by every command that takes its key from the file, not only by doctor.
      const path = (await this.loadConfig()).path;
      const { readableByOthers } = await import('../core/ownership.js');
      const mode = readableByOthers(path);
      if (mode) this.output.warn(`${path} holds API keys and other users can read it (mode ${mode}): chmod 600 ${path}`);
    }
    const configured = await this.setting<string>('base_url');
    if (!baseUrl && configured) [baseUrl, baseSource] = [configured, 'config base_url'];
    if (!baseUrl) [baseUrl, baseSource] = [DEFAULT_BASE_URL, 'default (local sandbox)'];
    try {
      baseUrl = parseBaseUrl(baseUrl);
    } catch (error) {
      throw new UsageError(`${(error as Error).message} (from ${baseSource})`);
    }
    this.output.protect(apiKey);
    this.connection = {
      baseUrl,
      apiKey,
      profileName: keyProfile ? profileName : undefined,
      keyProfile,
      sources: { baseUrl: baseSource, apiKey: keySource },
    };
    this.output.trace(`base URL ${baseUrl} (from ${baseSource}); API key from ${keySource}`);
    return this.connection;
  }

  /**
   * The environment the connection's key belongs to (`live`, `test`): the
   * profile's stored metadata (from the service's listing), else the key's
   * prefix (`sk_live_…`); null when neither says.
   */
  environmentOf(connection: Connection): string | null {
    if (!connection.apiKey) return null;
    return connection.keyProfile?.environment ?? environmentOfKey(connection.apiKey) ?? null;
  }

  /** How errors and warnings name the key: its profile when it has one, always masked. */
  keyLabel(connection: Connection): string {
    const masked = connection.apiKey ? maskKey(connection.apiKey) : '(none)';
    return connection.profileName ? `${masked} (profile ${connection.profileName})` : masked;
  }

  /**
   * Warns before sending when the key's stored metadata says it is expired or
   * lacks the scope an operation needs; the service still has the last word.
   */
  private warnAboutKey(connection: Connection, operations: Operation[]): void {
    const meta = connection.keyProfile;
    if (!meta) return;
    const label = this.keyLabel(connection);
    const { status } = expiryStatus(meta.expires, new Date());
    if (status === 'expired') this.output.warn(`the API key ${label} expired on ${meta.expires}; the service will likely refuse it (exit 3)`);
    if (meta.scopes) {
      for (const operation of operations) {
        const { scope, label: what } = ENDPOINTS[operation];
        if (scope && !meta.scopes.includes(scope)) this.output.warn(`the API key ${label} is not known to have the scope ${scope}, needed to ${what}`);
      }
    }
  }

  /**
   * The shared rate store, if one is configured: --rate-store, then
   * SIGN_RATE_STORE, then the rate_store setting. Undefined by default: a
   * single machine needs no store.
   */
  async rateStore(): Promise<{ url: string; source: string } | undefined> {
    const given =
      this.globals.rateStore !== undefined && this.globals.rateStore !== '' ? { text: this.globals.rateStore, source: '--rate-store' }
      : this.env.SIGN_RATE_STORE ? { text: this.env.SIGN_RATE_STORE, source: 'SIGN_RATE_STORE' }
      : undefined;
    const configured = given ? undefined : await this.setting<string>('rate_store');
    const chosen = given ?? (configured ? { text: configured, source: 'config rate_store' } : undefined);
    if (!chosen) return undefined;
    this.output.protect(rateStorePassword(chosen.text));
    return { url: parseRateStoreUrl(chosen.text, chosen.source), source: chosen.source };
  }

  /** The shared budget of this run, opened by the first client that needs it and shared by the others. */
  private budget: Promise<(SharedBudget & { close(): Promise<void> }) | undefined> | undefined;

  /** Joins the shared budget for this key at this service; an unreachable store is a warning, and pacing stays local. */
  private sharedBudget(connection: Connection & { apiKey: string }): Promise<SharedBudget | undefined> {
    this.budget ??= (async () => {
      const store = await this.rateStore();
      if (!store) return undefined;
      // The Redis client loads only when a store is configured.
      const { openRedisBudget } = await import('../core/shared-budget.js');
      const budget = await openRedisBudget({
        url: store.url,
        baseUrl: connection.baseUrl,
        apiKey: connection.apiKey,
        onWarning: (message) => this.output.warn(message),
        onNote: (message) => this.output.trace(message),
      });
      if (budget.active) this.output.trace(`rate budget shared through ${store.source} (${budget.name})`);
      return budget;
    })();
    return this.budget;
  }

  /** A client for the resolved connection; throws AuthError (exit 3) when there is no key. */
  async client(overrides: Partial<SignClientOptions> = {}, operations: Operation[] = []): Promise<SignClient> {
    const connection = await this.resolveConnection();
    if (!connection.apiKey) {
      throw new AuthError('no API key', undefined, {
        hint: 'set SIGN_API_KEY, pass --api-key-file <path>, or add a profile with `sign-cli keys add`; the local sandbox writes its key to credentials.env in its data dir',
      });
    }
    this.warnAboutKey(connection, operations);
    // Each value is checked under the name it was given by, so `SIGN_RETRIES=abc` names the variable.
    const retries = await this.numberFrom('--retries', this.globals.retries, 'SIGN_RETRIES', 'retries');
    const timeout = await this.numberFrom('--timeout', this.globals.timeout, 'SIGN_TIMEOUT', 'timeout');
    const sharedBudget = 'sharedBudget' in overrides ? undefined : await this.sharedBudget({ ...connection, apiKey: connection.apiKey });
    // undici and zod load here, not at start-up.
    const { SignClient } = await import('../core/client.js');
    return new SignClient({
      sharedBudget,
      baseUrl: connection.baseUrl,
      apiKey: connection.apiKey,
      keyLabel: this.keyLabel(connection),
      paths: await this.pathOverrides(),
      ...(retries !== undefined ? { retry: { maxRetries: parseIntegerOption(retries.name, retries.value, 0, 100) } } : {}),
      ...(timeout !== undefined ? { timeoutMs: parsePositiveNumberOption(timeout.name, timeout.value) * 1000 } : {}),
      onTrace: (event) => {
        if (event.type === 'response' && event.status >= 200 && event.status < 300) this.keyUsedAt = new Date();
        if (event.type === 'retry' && !this.output.verbose) this.showRetry(event);
        this.output.trace(formatTrace(event));
      },
      ...overrides,
    });
  }

  private lastRetryShown = 0;
  private retriesHidden = 0;

  /**
   * A person at a terminal sees each retry as it happens (at most one line a
   * second, counting the rest), instead of silence until the last attempt.
   * Logs and CI get the final error only; --verbose shows every attempt.
   */
  private showRetry(event: TraceEvent & { type: 'retry' }): void {
    if (this.io.stderr.isTTY !== true) return;
    const now = this.io.clock.now();
    if (now - this.lastRetryShown < 1000) {
      this.retriesHidden++;
      return;
    }
    const more = this.retriesHidden > 0 ? ` (and ${this.retriesHidden} more retr${this.retriesHidden === 1 ? 'y' : 'ies'})` : '';
    this.lastRetryShown = now;
    this.retriesHidden = 0;
    this.output.info(this.output.err.yellow(`${formatTrace(event)}${more}`));
  }

  /** A setting given by flag, env var or config (in that order), with the name to cite if it is wrong. */
  async numberFrom(flag: string, flagValue: string | undefined, envName: string, setting: 'retries' | 'timeout'): Promise<{ name: string; value: string } | undefined> {
    if (flagValue !== undefined) return { name: flag, value: flagValue };
    const fromEnv = this.env[envName];
    if (fromEnv !== undefined && fromEnv !== '') return { name: `the environment variable ${envName}`, value: fromEnv };
    const configured = await this.setting<number>(setting);
    return configured === undefined ? undefined : { name: `the config setting ${setting}`, value: String(configured) };
  }

  /** When the profile's key last got a 2xx in this run; written once at the end (`finish`). */
  private keyUsedAt: Date | undefined;

  /** Closes what the command opened (the rate store's connection), whether it succeeded or not. */
  async release(): Promise<void> {
    const budget = this.budget;
    this.budget = undefined;
    // A store URL that did not parse left nothing open.
    await (await budget?.catch(() => undefined))?.close();
  }

  /** Records the last use of a profile's key, so `keys list` can show it for local keys too. */
  async finish(): Promise<void> {
    const connection = this.connection;
    if (!this.keyUsedAt || !connection?.profileName || !this.config) return;
    this.config.set(`profiles.${connection.profileName}.last_used`, this.keyUsedAt.toISOString());
  }
}

/** Endpoint paths from config (`paths.<operation>`), checked so a typo is not silently ignored. */
export function checkPathOverrides(paths: Record<string, unknown> | undefined): PathOverrides {
  const out: PathOverrides = {};
  for (const [name, path] of Object.entries(paths ?? {})) {
    if (!isOperation(name)) {
      throw new UsageError(`config paths.${name}: unknown operation`, { hint: `use one of: ${Object.keys(ENDPOINTS).join(', ')}` });
    }
    if (typeof path !== 'string' || !path.startsWith('/')) {
      throw new UsageError(`config paths.${name}: must be a path starting with /, such as ${ENDPOINTS[name].path}`);
    }
    out[name] = path;
  }
  return out;
}

function readKeyFile(path: string): string {
  const key = readFlagFile('--api-key-file', path).toString('utf8').trim();
  if (key === '' || /\s/.test(key)) {
    throw new UsageError(`--api-key-file ${path}: the file must hold the key alone on one line`);
  }
  return key;
}

export function formatTrace(event: TraceEvent): string {
  switch (event.type) {
    case 'note':
      return `note: ${event.message}`;
    case 'request':
      return [
        `> ${event.method} ${event.url} (attempt ${event.attempt})`,
        ...Object.entries(event.headers).map(([name, value]) => `> ${name}: ${value}`),
      ].join('\n');
    case 'response':
      return `< HTTP ${event.status} in ${event.durationMs} ms${event.headers['idempotent-replayed'] === 'true' ? ' (replayed by the service)' : ''}`;
    case 'retry':
      return `… attempt ${event.attempt} failed (${event.reason}); retrying in ${(event.delayMs / 1000).toFixed(1)} s (${event.source})`;
  }
}
