/**
 * Clients for a command: the resolved connection, retries and timeout from
 * flag, environment or config, the shared rate budget when one is
 * configured, warnings about a key known to be expired or short of a scope,
 * and what a person sees of retries and traces.
 */
import { AuthError } from '../../core/errors.js';
import { ENDPOINTS, type Operation } from '../../core/endpoints.js';
import { expiryStatus } from '../../core/keys.js';
import type { SignClient, SignClientOptions, TraceEvent } from '../../core/client/client.js';
import type { SharedBudget } from '../../core/pacing/pacing.js';
import { parseRateStoreUrl, rateStoreSecrets } from '../../core/pacing/rate-store-url.js';
import { proxySettingsFrom } from '../../core/client/proxy.js';
import type { ConfigFile } from './config-file.js';
import { checkPathOverrides, type Connection, type GlobalOptions } from './connection.js';
import { keyLabel } from './connection-labels.js';
import { parseIntegerOption, parsePositiveNumberOption } from '../flags/values.js';
import type { Io } from '../process/io.js';
import type { Output } from '../render/output.js';

export interface ClientFactoryInputs {
  globals: GlobalOptions;
  io: Io;
  output: Output;
  loadConfig(): Promise<ConfigFile>;
  connection(): Promise<Connection>;
}

type Budget = SharedBudget & { close(): Promise<void> };

export class ClientFactory {
  /** The shared budget of this run, opened by the first client that needs it and shared by the others. */
  private budget: Promise<Budget | undefined> | undefined;
  /** When the profile's key last got a 2xx in this run. */
  keyUsedAt: Date | undefined;
  private lastRetryShown = 0;
  private retriesHidden = 0;

  constructor(private readonly inputs: ClientFactoryInputs) {}

  /** A client for the resolved connection; throws AuthError (exit 3) when there is no key. */
  async client(
    overrides: Partial<SignClientOptions> = {},
    operations: Operation[] = [],
  ): Promise<SignClient> {
    const { globals, output } = this.inputs;
    const connection = await this.inputs.connection();
    if (!connection.apiKey && connection.keyProblem) {
      throw new AuthError(connection.keyProblem, undefined, {
        hint: `unlock the keychain (a desktop session, or a D-Bus session with its Secret Service), set SIGN_API_KEY, or keep the key in the config file: sign-cli keys add ${connection.profileName} --stdin --force --insecure-storage`,
      });
    }
    if (!connection.apiKey) {
      throw new AuthError('no API key', undefined, {
        hint: 'set SIGN_API_KEY, pass --api-key-file <path>, or add a profile with `sign-cli keys add`; the local sandbox writes its key to credentials.env in its data dir',
      });
    }
    this.warnAboutKey(connection, operations);
    // Each value is checked under the name it was given by, so `SIGN_RETRIES=abc` names the variable.
    const retries = await this.numberFrom('--retries', globals.retries, 'SIGN_RETRIES', 'retries');
    const timeout = await this.numberFrom('--timeout', globals.timeout, 'SIGN_TIMEOUT', 'timeout');
    const sharedBudget =
      'sharedBudget' in overrides
        ? undefined
        : await this.sharedBudget({ ...connection, apiKey: connection.apiKey });
    // undici and zod load here, not at start-up.
    const { SignClient } = await import('../../core/client/client.js');
    return new SignClient({
      sharedBudget,
      baseUrl: connection.baseUrl,
      apiKey: connection.apiKey,
      keyLabel: keyLabel(connection),
      // The command's clock (src/cli/process/io.ts): its waits and notices are the ones tests drive.
      clock: this.inputs.io.clock,
      paths: checkPathOverrides((await this.inputs.loadConfig()).get('paths')),
      // HTTPS_PROXY, HTTP_PROXY and NO_PROXY, as curl and gh read them (core/client/proxy.ts).
      proxy: proxySettingsFrom(this.inputs.io.env),
      ...(retries !== undefined
        ? { retry: { maxRetries: parseIntegerOption(retries.name, retries.value, 0, 100) } }
        : {}),
      ...(timeout !== undefined
        ? { timeoutMs: parsePositiveNumberOption(timeout.name, timeout.value) * 1000 }
        : {}),
      onTrace: (event) => {
        if (event.type === 'response' && event.status >= 200 && event.status < 300)
          this.keyUsedAt = new Date(this.inputs.io.clock.now());
        if (event.type === 'retry' && !output.verbose) this.showRetry(event);
        // A server that accepts and says nothing: said on stderr, on a terminal or not.
        if (event.type === 'waiting') output.info(output.err.yellow(waitingLine(event)));
        if (event.type !== 'waiting') output.trace(formatTrace(event));
      },
      ...overrides,
    });
  }

  /** A setting given by flag, env var or config (in that order), with the name to cite if it is wrong. */
  async numberFrom(
    flag: string,
    flagValue: string | undefined,
    envName: string,
    setting: 'retries' | 'timeout',
  ): Promise<{ name: string; value: string } | undefined> {
    if (flagValue !== undefined) return { name: flag, value: flagValue };
    const fromEnv = this.inputs.io.env[envName];
    if (fromEnv !== undefined && fromEnv !== '')
      return { name: `the environment variable ${envName}`, value: fromEnv };
    const configured = (await this.inputs.loadConfig()).get('settings')?.[setting];
    return configured === undefined
      ? undefined
      : {
          name: `the config setting ${setting}`,
          value: typeof configured === 'string' ? configured : JSON.stringify(configured),
        };
  }

  /**
   * The shared rate store, if one is configured: --rate-store, then
   * SIGN_RATE_STORE, then the rate_store setting. Undefined by default: a
   * single machine needs no store.
   */
  async rateStore(): Promise<{ url: string; source: string } | undefined> {
    const { globals, io, output } = this.inputs;
    const given =
      globals.rateStore !== undefined && globals.rateStore !== ''
        ? { text: globals.rateStore, source: '--rate-store' }
        : io.env.SIGN_RATE_STORE
          ? { text: io.env.SIGN_RATE_STORE, source: 'SIGN_RATE_STORE' }
          : undefined;
    const configured = given
      ? undefined
      : ((await this.inputs.loadConfig()).get('settings')?.rate_store as string | undefined);
    const chosen = given ?? (configured ? { text: configured, source: 'config rate_store' } : undefined);
    if (!chosen) return undefined;
    for (const secret of rateStoreSecrets(chosen.text)) output.protect(secret);
    return { url: parseRateStoreUrl(chosen.text, chosen.source), source: chosen.source };
  }

  /** Closes what the clients opened (the rate store's connection), whether the command succeeded or not. */
  async release(): Promise<void> {
    const budget = this.budget;
    this.budget = undefined;
    // A store URL that did not parse left nothing open.
    await (await budget?.catch(() => undefined))?.close();
  }

  /** Joins the shared budget for this key at this service; an unreachable store is a warning, and pacing stays local. */
  private sharedBudget(connection: Connection & { apiKey: string }): Promise<SharedBudget | undefined> {
    const { output } = this.inputs;
    this.budget ??= (async () => {
      const store = await this.rateStore();
      if (!store) return undefined;
      // The Redis client loads only when a store is configured.
      const { openRedisBudget } = await import('../../core/pacing/shared-budget.js');
      const budget = await openRedisBudget({
        url: store.url,
        baseUrl: connection.baseUrl,
        apiKey: connection.apiKey,
        onWarning: (message) => output.warn(message),
        onNote: (message) => output.trace(message),
      });
      if (budget.active) output.trace(`rate budget shared through ${store.source} (${budget.name})`);
      return budget;
    })();
    return this.budget;
  }

  /**
   * Warns before sending when the key's stored metadata says it is expired or
   * lacks the scope an operation needs; the service still has the last word.
   */
  private warnAboutKey(connection: Connection, operations: Operation[]): void {
    const meta = connection.keyProfile;
    if (!meta) return;
    const { output } = this.inputs;
    const label = keyLabel(connection);
    const { status } = expiryStatus(meta.expires, new Date(this.inputs.io.clock.now()));
    if (status === 'expired')
      output.warn(
        `the API key ${label} expired on ${meta.expires}; the service will likely refuse it (exit 3)`,
      );
    if (meta.scopes) {
      for (const operation of operations) {
        const { scope, label: what } = ENDPOINTS[operation];
        if (scope && !meta.scopes.includes(scope))
          output.warn(`the API key ${label} is not known to have the scope ${scope}, needed to ${what}`);
      }
    }
  }

  /**
   * A person at a terminal sees each retry as it happens (at most one line a
   * second, counting the rest), instead of silence until the last attempt.
   * Logs and CI get the final error only; --verbose shows every attempt.
   */
  private showRetry(event: TraceEvent & { type: 'retry' }): void {
    const { io, output } = this.inputs;
    if (io.stderr.isTTY !== true) return;
    const now = io.clock.now();
    if (now - this.lastRetryShown < 1000) {
      this.retriesHidden++;
      return;
    }
    const more =
      this.retriesHidden > 0
        ? ` (and ${this.retriesHidden} more retr${this.retriesHidden === 1 ? 'y' : 'ies'})`
        : '';
    this.lastRetryShown = now;
    this.retriesHidden = 0;
    output.info(output.err.yellow(`${formatTrace(event)}${more}`));
  }
}

/** One trace event as the lines --verbose prints. */
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
    case 'waiting':
      return waitingLine(event);
  }
}

/**
 * What a silent server is keeping us waiting for, and how long it may still take: the attempt's
 * bound, and the attempts left after it (each bounded the same, with waits between them).
 */
export function waitingLine(event: TraceEvent & { type: 'waiting' }): string {
  const { origin, pathname } = new URL(event.url);
  const left = event.attempts - event.attempt;
  const after =
    left > 0
      ? `, then up to ${left} more attempt${left === 1 ? '' : 's'} (--timeout, --retries)`
      : ' (--timeout)';
  const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
  return `… waiting for ${origin} to answer ${event.method} ${pathname}: no answer for ${seconds(event.waitedMs)} (attempt ${event.attempt} of ${event.attempts}); this attempt gives up at ${seconds(event.timeoutMs)}${after}`;
}
