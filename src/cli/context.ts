/**
 * What every command is given (gh's Factory and IOStreams in one): its IO,
 * output, the interrupt signal, the config file opened on demand, and the
 * connection and clients built from them (connection.ts, client-factory.ts).
 */
import { typedSecrets } from './flags/typed-secrets.js';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import type { InProcessMain } from './process/io.js';
import { UsageError } from '../core/errors.js';
import type { Operation, PathOverrides } from '../core/endpoints.js';
import type { SignClient, SignClientOptions } from '../core/client/client.js';
import type { ClientFactory } from './config/client-factory.js';
import type { ConfigFile } from './config/config-file.js';
import type { Connection, GlobalOptions } from './config/connection.js';
import { environmentOf, keyLabel } from './config/connection-labels.js';
import { Output } from './render/output.js';
import { systemIo, type Io } from './process/io.js';
import type { Prompter } from './process/prompter.js';

export type { Connection, GlobalOptions } from './config/connection.js';

/** The settings a command reads by name (`sign-cli config`). */
export type SettingName =
  | 'base_url'
  | 'rate'
  | 'timeout'
  | 'retries'
  | 'webhook_scheme'
  | 'required_scopes'
  | 'rate_store'
  | 'allow_unknown_fields';

export class CommandContext {
  readonly output: Output;
  /** Set by long-running servers (listen, sandbox), for which Ctrl-C is the normal way to stop. */
  serving = false;
  /** The commander command being run (for commands that look at the command tree). */
  command: Command | undefined;
  /** The environment the command runs in (the Io's). */
  readonly env: NodeJS.ProcessEnv;
  private config: ConfigFile | undefined;
  private connection: Promise<Connection> | undefined;
  /** Made when a command first needs a client or a number setting: `validate` never does. */
  private clients: Promise<ClientFactory> | undefined;

  /** The stop signal, or what makes it: made when a command first asks (start-up: see signal). */
  private stop: AbortSignal | (() => AbortSignal);

  constructor(
    readonly globals: GlobalOptions,
    signal: AbortSignal | (() => AbortSignal),
    readonly io: Io = systemIo(),
    /** The command line after the program's name. */
    readonly argv: readonly string[] = [],
    /** The CLI's entry, to run another command line in process (the `mcp` tools). */
    readonly inProcess?: InProcessMain,
  ) {
    this.stop = signal;
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
    // A secret typed in the wrong place (where the URL goes) is masked in any message quoting it.
    for (const secret of typedSecrets(argv)) this.output.protect(secret);
    if (globals.apiKey !== undefined) {
      // Do not echo the value: it is probably a real key.
      throw new UsageError(
        '--api-key is not accepted: a key in a flag stays in shell history and process lists',
        {
          hint: 'use the SIGN_API_KEY environment variable, --api-key-file <path>, or `sign-cli keys add`',
        },
      );
    }
  }

  /**
   * Aborted on Ctrl-C, SIGTERM or SIGHUP. Made on first use: an AbortController loads Node's
   * abort internals at start-up, which `validate`, a dry run, `keys list
   * --local` and the config commands never need.
   */
  get signal(): AbortSignal {
    if (typeof this.stop === 'function') this.stop = this.stop();
    return this.stop;
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
    const { compileQuery } = await import('./render/query.js');
    this.output.setQuery(await compileQuery(this.globals.query), this.globals.raw !== false);
  }

  /** What asks the person at the terminal (the Io's): questions go through it, never to inquirer directly. */
  get prompter(): Prompter {
    return this.io.prompter;
  }

  /** Where a question is asked (the prompter's context): the command's terminal streams and its stop signal. */
  promptContext(): { signal: AbortSignal; input: NodeJS.ReadableStream; output: NodeJS.WritableStream } {
    return {
      signal: this.signal,
      input: this.io.stdin,
      output: this.io.stdout as unknown as NodeJS.WritableStream,
    };
  }

  /** Prompts are allowed only on a real terminal, outside CI, without --no-input. */
  get canPrompt(): boolean {
    const ci =
      this.env.CI !== undefined && this.env.CI !== '' && this.env.CI !== 'false' && this.env.CI !== '0';
    return this.globals.input && !ci && this.io.stdin.isTTY === true && this.io.stdout.isTTY === true;
  }

  async loadConfig(): Promise<ConfigFile> {
    // Read only by commands that need the file; conf itself loads for a write only (config/config-file.ts).
    if (!this.config) {
      const config = (await import('./config/config-file.js')).ConfigFile.open(this.env);
      // Settings and keys another user could have written are refused (their base URL would get our key).
      const { checkPrivateDirectory, checkPrivateFile } = await import('../core/journal/ownership.js');
      checkPrivateDirectory(dirname(config.path));
      checkPrivateFile(config.path);
      this.config = config;
      // Every key the file holds, whichever profile this run uses: none is ever shown whole.
      for (const profile of Object.values(config.get('profiles') ?? {})) this.output.protect(profile.api_key);
    }
    return this.config;
  }

  /**
   * Before an error is shown: the keys of the config file are masked in it even when the
   * command failed before it opened the file (a usage error quoting a path or a value). A file
   * that cannot be opened holds nothing this run could have read.
   */
  async protectStoredKeys(): Promise<void> {
    try {
      // Not made for this (opening makes the config directory when there is none).
      const { existsSync } = await import('node:fs');
      if (this.config || existsSync((await import('./config/config-file.js')).configPath(this.env)))
        await this.loadConfig();
    } catch {
      // Refused or unreadable: its keys were never read, so none can be in the error.
    }
  }

  /** A stored setting (`sign-cli config`), or undefined. */
  async setting<T = unknown>(name: SettingName): Promise<T | undefined> {
    const settings = (await this.loadConfig()).get('settings');
    return settings?.[name] as T | undefined;
  }

  async pathOverrides(): Promise<PathOverrides> {
    return (await this.connectionModule()).checkPathOverrides((await this.loadConfig()).get('paths'));
  }

  /** The service and key of this run (connection.ts), resolved once. */
  resolveConnection(): Promise<Connection> {
    this.connection ??= this.connectionModule().then((code) =>
      code.resolveConnection({
        globals: this.globals,
        env: this.env,
        loadConfig: () => this.loadConfig(),
        output: this.output,
      }),
    );
    return this.connection;
  }

  environmentOf(connection: Connection): string | null {
    return environmentOf(connection);
  }

  keyLabel(connection: Connection): string {
    return keyLabel(connection);
  }

  /** connection.ts (settings, key files, profiles), loaded with the first connection a command asks for. */
  private connectionModule(): Promise<typeof import('./config/connection.js')> {
    return import('./config/connection.js');
  }

  private clientFactory(): Promise<ClientFactory> {
    this.clients ??= import('./config/client-factory.js').then(
      ({ ClientFactory }) =>
        new ClientFactory({
          globals: this.globals,
          io: this.io,
          output: this.output,
          loadConfig: () => this.loadConfig(),
          connection: () => this.resolveConnection(),
        }),
    );
    return this.clients;
  }

  /** A client for the resolved connection; throws AuthError (exit 3) when there is no key. */
  client(overrides: Partial<SignClientOptions> = {}, operations: Operation[] = []): Promise<SignClient> {
    return this.clientFactory().then((clients) => clients.client(overrides, operations));
  }

  rateStore(): Promise<{ url: string; source: string } | undefined> {
    return this.clientFactory().then((clients) => clients.rateStore());
  }

  numberFrom(
    flag: string,
    flagValue: string | undefined,
    envName: string,
    setting: 'retries' | 'timeout',
  ): Promise<{ name: string; value: string } | undefined> {
    return this.clientFactory().then((clients) => clients.numberFrom(flag, flagValue, envName, setting));
  }

  /** Closes what the command opened (the rate store's connection), whether it succeeded or not. */
  release(): Promise<void> {
    // Nothing to close when no client was made.
    return this.clients ? this.clients.then((clients) => clients.release()) : Promise.resolve();
  }

  /** Records the last use of a profile's key, so `keys list` can show it for local keys too. */
  async recordKeyUse(): Promise<void> {
    const usedAt = this.clients && (await this.clients).keyUsedAt;
    if (!usedAt || !this.config || !this.connection) return;
    const connection = await this.connection.catch(() => undefined);
    if (!connection?.profileName) return;
    await this.config.set(`profiles.${connection.profileName}.last_used`, usedAt.toISOString());
  }
}
