/**
 * A rate budget shared by every process that uses the same API key, kept in
 * Redis (`--rate-store`). Several CI jobs or shards of one bulk job each pace
 * themselves (core/pacing/pacing.ts); together they would still exceed the service's
 * limit, so each request slot is also taken from one budget in Redis.
 *
 * The budget is one Lua script, run atomically by Redis, over three keys:
 * - `slots`: a sorted set of the times of the slots handed out (a sliding
 *   log, the same rule the sandbox enforces: fewer than `limit` in any
 *   60-second window). A new slot is also spaced `intervalMs` after the last
 *   one, so the runners together send evenly instead of in bursts.
 * - `pause`: until when everyone waits, set by whoever saw a 429.
 * - `runners`: who took a slot in the last window, so that a runner that
 *   loses Redis knows what share of the rate to fall back to, and the others
 *   know whose share to keep while it is silent.
 * Times come from Redis (TIME), never from the runners' clocks, so runners on
 * machines whose clocks disagree still agree on the window.
 *
 * The keys are named by a hash of the base URL and the API key, never by the
 * key itself, and share one hash tag so a Redis Cluster keeps them together.
 *
 * When Redis is unreachable or lost (every call is bounded by 2 s), `take`
 * says so (returns false) and the budget is inactive: the pacer paces
 * locally, at 1/N of the rate when N runners were sharing. Meanwhile the
 * others keep that 1/N for it (a runner seen lately but silent now), and the
 * budget tries to rejoin in the background every 10 s. A clean exit leaves
 * the budget, so no share is kept for a run that is done.
 */
import { createHash, randomBytes } from 'node:crypto';
import { serviceIdentity } from '../service-identity.js';
import { createClient } from '@redis/client';
import { BUDGET_WINDOW_MS, budgetScript } from './shared-budget-script.js';
import { systemClock, type Clock } from '../clock.js';
import { InterruptedError } from '../errors.js';
import type { SharedBudget, SlotRequest } from './pacing.js';
import { showRateStoreUrl, storeFailure } from './rate-store-url.js';
import { within } from './within.js';

// The window the service counts in lives with the script that counts it.
export { BUDGET_WINDOW_MS };
/** A runner that took a slot this recently (or within 3 spacings per runner) is sharing; one silent longer keeps its share. */
const ACTIVE_MIN_MS = 5_000;
/** A store slower than this is as good as lost: the run paces locally rather than wait on it. */
const DEFAULT_STORE_TIMEOUT_MS = 2_000;
/** After a loss, the budget tries to rejoin this often, in the background. */
const DEFAULT_REJOIN_MS = 10_000;

/** The Redis key prefix of the budget for this key at this service: a hash, never the key. */
export function budgetName(baseUrl: string, apiKey: string): string {
  // One budget per service, whatever the spelling of its URL (`localhost` or 127.0.0.1, a default port).
  const digest = createHash('sha256')
    .update(`sign-cli rate budget\n${serviceIdentity(baseUrl)}\n${apiKey}`)
    .digest('hex')
    .slice(0, 32);
  // The hash tag ({…}) keeps the three keys in one Cluster slot, as one script needs.
  return `sign-cli:rate:{${digest}}`;
}

export interface RedisBudgetOptions {
  /** redis:// or rediss:// URL (core/pacing/rate-store-url.ts checks it). */
  url: string;
  baseUrl: string;
  apiKey: string;
  clock?: Clock;
  /** Connect and command timeout; a slower store counts as lost. */
  timeoutMs?: number;
  /** One line the first time the store is unreachable or lost; the caller prints it. */
  onWarning?: (message: string) => void;
  /** Later losses and rejoins, for --verbose. */
  onNote?: (message: string) => void;
  /** How long after a loss to try to rejoin (again). */
  rejoinMs?: number;
  /** A runner silent longer than this (at least; more at slow rates) keeps its share, as one that may have lost the store. */
  activeMs?: number;
}

export interface BudgetPeek {
  /** Slots handed out in the last 60 s, by every runner. */
  slotsInWindow: number;
  /** Runners that took a slot in the last 60 s and have not left (a clean exit leaves). */
  runners: number;
  /** Pause (from a 429) still in force, in ms. */
  pausedMs: number;
  /** Redis's version, from INFO. */
  version: string | undefined;
}

type BudgetClient = ReturnType<typeof createBudgetClient>;

function createBudgetClient(url: string, timeoutMs: number) {
  return createClient({
    url,
    // Lost is lost: the run carries on pacing locally instead of waiting for a reconnect.
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
    disableOfflineQueue: true,
    commandOptions: { timeout: timeoutMs },
    scripts: { budget: budgetScript },
  });
}

export class RedisRateBudget implements SharedBudget {
  readonly name: string;
  private client: BudgetClient;
  private readonly clock: Clock;
  private readonly onWarning: (message: string) => void;
  private readonly onNote: (message: string) => void;
  private readonly shownUrl: string;
  private readonly timeoutMs: number;
  private readonly rejoinMs: number;
  private readonly activeMs: number;
  /** Who this process is in the budget's list of runners. */
  private readonly runnerId = randomBytes(8).toString('hex');
  private sequence = 0;
  private connected = false;
  private down = false;
  private warned = false;
  private closed = false;
  private rejoinTimer: NodeJS.Timeout | undefined;
  /** Why the store was lost or unreachable, in a few words. */
  failure: string | undefined;
  runners = 1;

  constructor(private readonly options: RedisBudgetOptions) {
    this.name = budgetName(options.baseUrl, options.apiKey);
    this.clock = options.clock ?? systemClock;
    this.onWarning = options.onWarning ?? (() => {});
    this.onNote = options.onNote ?? (() => {});
    this.shownUrl = showRateStoreUrl(options.url);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.rejoinMs = options.rejoinMs ?? DEFAULT_REJOIN_MS;
    this.activeMs = options.activeMs ?? ACTIVE_MIN_MS;
    this.client = this.newClient();
  }

  private newClient(): BudgetClient {
    const client = createBudgetClient(this.options.url, this.timeoutMs);
    // node-redis emits 'error' on a lost socket; unhandled, it would end the process.
    client.on('error', (error: unknown) => {
      if (client === this.client) this.markDown(error);
    });
    return client;
  }

  get active(): boolean {
    return this.connected && !this.down && !this.closed;
  }

  /** Connects; on failure the budget is inactive and the warning says so (the run paces locally). */
  async connect(): Promise<boolean> {
    try {
      // Bounded as a whole: a host that accepts the connection but never answers the handshake counts as unreachable.
      await this.withinTimeout(this.client.connect());
      this.connected = true;
    } catch (error) {
      this.markDown(error);
    }
    return this.active;
  }

  private keys(): [string, string, string] {
    return [`${this.name}:slots`, `${this.name}:pause`, `${this.name}:runners`];
  }

  /**
   * The store failed: pace locally from now on. The first time is one
   * warning; then the budget tries to rejoin every rejoinMs in the
   * background, so a blip (or a stalled event loop) costs seconds of local
   * pacing, not the rest of the run. Later losses and rejoins are notes
   * (--verbose), so a flapping store is not a screenful of warnings.
   */
  private markDown(error: unknown): void {
    if (this.down || this.closed) return;
    const how = this.connected ? 'lost' : 'unreachable';
    this.down = true;
    this.failure = storeFailure(error);
    const share =
      this.runners > 1
        ? `1/${this.runners} of the rate, as ${this.runners} runners were sharing it`
        : 'the full rate';
    const message = `rate store ${this.shownUrl} ${how} (${this.failure}); pacing locally at ${share}`;
    if (this.warned) this.onNote(message);
    else this.onWarning(message);
    this.warned = true;
    // Drop the connection, and with it any command still waiting on it.
    this.drop(this.client);
    this.scheduleRejoin();
  }

  private drop(client: BudgetClient): void {
    try {
      if (client.isOpen) client.destroy();
    } catch {
      // already closing
    }
  }

  private scheduleRejoin(): void {
    if (this.closed || this.rejoinTimer) return;
    this.rejoinTimer = setTimeout(() => {
      this.rejoinTimer = undefined;
      void this.rejoin();
    }, this.rejoinMs);
    // A rejoin attempt never keeps a finished run alive.
    this.rejoinTimer.unref();
  }

  private async rejoin(): Promise<void> {
    if (this.closed) return;
    const client = this.newClient();
    this.client = client;
    try {
      await this.withinTimeout(client.connect());
      if (this.closed) return this.drop(client);
      this.connected = true;
      this.down = false;
      this.onNote(`rate store ${this.shownUrl} back: sharing the budget again`);
    } catch {
      this.drop(client);
      this.scheduleRejoin();
    }
  }

  /**
   * One call of the script, bounded in time: node-redis's command timeout
   * covers only a command not yet written, and a store that stops answering
   * (a hung host, a network partition) must not hold the run.
   */
  private run(args: string[]): Promise<unknown> {
    return this.withinTimeout(this.client.budget(this.keys(), args));
  }

  private withinTimeout<T>(work: Promise<T>): Promise<T> {
    return within(work, this.timeoutMs);
  }

  /**
   * Waits for a slot in the shared budget. True: send now. False: the store
   * is down (warned once); the pacer takes a local slot instead.
   */
  async take(request: SlotRequest, signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      if (!this.active) return false;
      const member = `${this.runnerId}:${++this.sequence}`;
      let waitMs: number;
      try {
        const limit = String(Math.max(1, Math.floor(request.limit)));
        const reply = (await this.run([
          'take',
          limit,
          String(request.intervalMs),
          member,
          this.runnerId,
          String(this.activeMs),
        ])) as [number, number];
        waitMs = Number(reply[0]);
        this.runners = Math.max(1, Number(reply[1]));
      } catch (error) {
        this.markDown(error);
        return false;
      }
      // A slot for now: take itself just checked the pause, so there is nothing to confirm.
      if (waitMs <= 0) return true;
      try {
        await this.clock.sleep(waitMs, signal);
      } catch (error) {
        // An interrupted wait gives its slot back for the others.
        if (this.active) this.run(['release', member]).catch((failure: unknown) => this.markDown(failure));
        throw error instanceof InterruptedError ? error : new InterruptedError();
      }
      if (!this.active) return false;
      try {
        // A 429 seen by another runner while this one waited: its pause applies here too.
        const pausedMs = Number(await this.run(['confirm', member]));
        if (pausedMs <= 0) return true;
      } catch (error) {
        this.markDown(error);
        return false;
      }
    }
  }

  /** A 429 seen here: every runner waits `delayMs` (its Retry-After). */
  pause(delayMs: number): Promise<void> {
    if (!this.active) return Promise.resolve();
    return this.run(['pause', String(Math.max(1, Math.ceil(delayMs)))]).then(
      () => undefined,
      (error: unknown) => this.markDown(error),
    );
  }

  /** The budget as it stands, for `doctor`; throws when the store does not answer. */
  async peek(): Promise<BudgetPeek> {
    const [slots, runners, paused] = (await this.run(['peek'])) as [number, number, number];
    const info = await this.withinTimeout(this.client.sendCommand<string>(['INFO', 'server']));
    const version = /redis_version:([^\r\n]+)/.exec(String(info))?.[1];
    return { slotsInWindow: Number(slots), runners: Number(runners), pausedMs: Number(paused), version };
  }

  /**
   * Leaves the budget (so the others stop keeping a share for this run) and
   * closes the connection, bounded in time: a hung store never holds the exit.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.rejoinTimer);
    const client = this.client;
    if (!client.isOpen) return;
    try {
      if (this.connected && !this.down) await this.run(['leave', this.runnerId]);
      await this.withinTimeout(client.close());
    } catch {
      this.drop(client);
    }
  }
}

/** Opens the shared budget; an unreachable store gives an inactive budget and a warning, never an error. */
export async function openRedisBudget(options: RedisBudgetOptions): Promise<RedisRateBudget> {
  const budget = new RedisRateBudget(options);
  await budget.connect();
  return budget;
}
