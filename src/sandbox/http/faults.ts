/**
 * Fault injection, so tests and benchmarks can make the sandbox misbehave the
 * way real networks and services do. Set at start-up (flags) or at run time
 * through POST /_sandbox/faults.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface FaultSettings {
  /** The next N creates are committed, then the connection is dropped before any response. */
  drop_after_commit?: number;
  /** The next N API requests fail with `fail_status` before anything is done. */
  fail_before_commit?: number;
  fail_status?: number;
  /** Added to every API request's handling time (ms), to emulate a distant or slow service. */
  latency_ms?: number;
  /** Requests per minute per key (default 600). */
  rate_limit?: number;
  /**
   * While true, each request that takes `latency_ms` (a create, a get of an envelope) waits,
   * inside its handling (a create with its Idempotency-Key in flight), until it is set false.
   * Off by default; a test sets it to have a request provably in flight, with no timing.
   */
  hold?: boolean;
  /** How many requests the hold keeps waiting now (read only). */
  held?: number;
}

const COUNT_FIELDS = ['drop_after_commit', 'fail_before_commit', 'latency_ms', 'rate_limit'] as const;

export class FaultPlan {
  private dropAfterCommit = 0;
  private failBeforeCommit = 0;
  failStatus = 503;
  private latencyMs = 0;
  private rateLimit: number | undefined;
  private holding = false;
  /** The held requests' resumes, called together when the hold is lifted. */
  private readonly held = new Set<() => void>();

  constructor(initial: FaultSettings = {}) {
    const problem = this.update(initial as Record<string, unknown>);
    if (problem) throw new RangeError(problem);
  }

  /** Applies the given fields; returns a message when one is invalid (and changes nothing). */
  update(input: Record<string, unknown>): string | undefined {
    for (const field of COUNT_FIELDS) {
      const value = input[field];
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) {
        return `${field} must be a non-negative integer`;
      }
    }
    if (input.rate_limit === 0) return 'rate_limit must be at least 1';
    if (input.hold !== undefined && typeof input.hold !== 'boolean') return 'hold must be true or false';
    const status = input.fail_status;
    if (
      status !== undefined &&
      !(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599)
    ) {
      return 'fail_status must be an HTTP error status (400-599)';
    }
    if (typeof input.drop_after_commit === 'number') this.dropAfterCommit = input.drop_after_commit;
    if (typeof input.fail_before_commit === 'number') this.failBeforeCommit = input.fail_before_commit;
    if (typeof status === 'number') this.failStatus = status;
    if (typeof input.latency_ms === 'number') this.latencyMs = input.latency_ms;
    if (typeof input.rate_limit === 'number') this.rateLimit = input.rate_limit;
    if (input.hold === true) this.holding = true;
    if (input.hold === false) this.release();
    return undefined;
  }

  settings(): FaultSettings {
    return {
      drop_after_commit: this.dropAfterCommit,
      fail_before_commit: this.failBeforeCommit,
      fail_status: this.failStatus,
      latency_ms: this.latencyMs,
      ...(this.rateLimit === undefined ? {} : { rate_limit: this.rateLimit }),
      hold: this.holding,
      held: this.held.size,
    };
  }

  takeDropAfterCommit(): boolean {
    if (this.dropAfterCommit <= 0) return false;
    this.dropAfterCommit--;
    return true;
  }

  takeFailBeforeCommit(): boolean {
    if (this.failBeforeCommit <= 0) return false;
    this.failBeforeCommit--;
    return true;
  }

  /**
   * The fault a request takes where its service time would be: the hold (until lifted), then the
   * latency. A sandbox stopped during a hold leaves its held requests uncommitted, their
   * connections closed, as a service that went down before committing.
   */
  async delay(): Promise<void> {
    if (this.holding) await new Promise<void>((resume) => this.held.add(resume));
    if (this.latencyMs > 0) await sleep(this.latencyMs);
  }

  private release(): void {
    this.holding = false;
    for (const resume of this.held) resume();
    this.held.clear();
  }
}
