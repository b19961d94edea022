/**
 * Webhook delivery (docs/service.md, Events (webhooks)): every event is
 * POSTed to the envelope's webhook_url, signed in the Standard Webhooks form.
 * A failed attempt (connection error, timeout, non-2xx) is retried up to 8
 * times on the schedule below, on the sandbox clock, with the same webhook-id;
 * then the delivery is marked failed. Events of one envelope go out in order: a
 * delivery waits until the one before it has succeeded or failed for good.
 * A resend (`POST /api/v1/events/{id}/resend`) is a new delivery of the same
 * event with its own queue: it starts at once, whatever the envelope's queue
 * holds, and retries on the same schedule. Every attempt is recorded with the
 * delivery (time, status, duration, error), in the same fsync'd log line as
 * its outcome. Deliveries run beside the API and never hold up a request.
 */
import { Agent, request } from 'undici';
import { VERSION } from '../../core/version.js';
import { StorageError } from '../../core/errors.js';
import { DELIVERY_TIMEOUT_MS } from '../../core/webhooks/webhook-signing.js';
import { STORAGE_RETRY_REAL_MS } from '../journey/journey.js';
import type { Clock } from '../../core/clock.js';
import type { SandboxClock, Scheduler } from '../journey/clock.js';
import { type SandboxStore } from '../store/store.js';
import { deliveryEventId, type DeliveryRecord } from '../store/records.js';

/**
 * Waits before retries 1..8, in sandbox time: 17 h 42 min in all, inside the published 24 hours
 * (docs/service.md, Events (webhooks)).
 */
export const RETRY_SCHEDULE_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 14_400_000, 43_200_000,
] as const;
/** Real-time limit of one attempt: a slow receiver is a failed attempt, not a stuck queue. */
export const ATTEMPT_TIMEOUT_MS = DELIVERY_TIMEOUT_MS;

export class Deliverer {
  /** Pending deliveries per queue (an envelope, or one resend), in order; the head is the one being attempted. */
  private readonly queues = new Map<string, DeliveryRecord[]>();
  private readonly busy = new Set<string>();
  private readonly agent = new Agent({
    connect: { timeout: ATTEMPT_TIMEOUT_MS },
    headersTimeout: ATTEMPT_TIMEOUT_MS,
    bodyTimeout: ATTEMPT_TIMEOUT_MS,
  });
  private closed = false;

  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    /** Real time: webhook-timestamp and how long an attempt took. */
    private readonly realClock: Pick<Clock, 'now'>,
    private readonly scheduler: Scheduler,
    /** The signature headers of one attempt (Standard Webhooks: HMAC `v1`, or Ed25519 `v1a`). */
    private readonly sign: (id: string, timestampSeconds: number, body: string) => Record<string, string>,
    /** An attempt whose outcome could not be stored (it is made again): for the sandbox's log. */
    private readonly onStorageError: (error: StorageError) => void = () => {},
  ) {}

  enqueue(deliveries: DeliveryRecord[]): void {
    for (const delivery of deliveries) {
      const queue = this.queues.get(queueOf(delivery)) ?? [];
      queue.push(delivery);
      this.queues.set(queueOf(delivery), queue);
    }
    for (const queue of new Set(deliveries.map(queueOf))) this.kick(queue);
  }

  /** After a restart: every delivery still pending, in its original order. */
  resume(): void {
    const pending = [...this.store.deliveries.values()]
      .filter((d) => d.status === 'pending')
      .sort((a, b) => a.seq - b.seq);
    this.enqueue(pending);
  }

  private kick(queueId: string): void {
    if (this.closed || this.busy.has(queueId)) return;
    const head = this.queues.get(queueId)?.[0];
    if (!head) {
      this.queues.delete(queueId);
      return;
    }
    this.busy.add(queueId);
    this.scheduler.at(head.next_at, () => void this.attempt(head));
  }

  private async attempt(delivery: DeliveryRecord): Promise<void> {
    if (this.closed) return;
    const stored = structuredClone(delivery);
    const startedAt = new Date(this.clock.now()).toISOString();
    const started = this.realClock.now();
    const outcome = await this.post(delivery);
    if (this.closed) return;
    delivery.attempts++;
    delivery.last_status = outcome.status ?? null;
    delivery.last_error = outcome.error ?? null;
    (delivery.attempt_log ??= []).push({
      attempt: delivery.attempts,
      started_at: startedAt,
      status: outcome.status ?? null,
      duration_ms: Math.round(this.realClock.now() - started),
      error: outcome.error ?? null,
    });
    const now = this.clock.now();
    if (outcome.ok) {
      delivery.status = 'delivered';
      delivery.finished_at = new Date(now).toISOString();
    } else if (delivery.attempts > RETRY_SCHEDULE_MS.length) {
      delivery.status = 'failed';
      delivery.finished_at = new Date(now).toISOString();
    } else {
      delivery.next_at = now + RETRY_SCHEDULE_MS[delivery.attempts - 1]!;
    }
    try {
      this.store.saveDelivery(delivery);
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      // Not stored: back to what is on disk, and the attempt is made again a little later
      // (deliveries are at least once; the receiver sees the same webhook-id).
      Object.assign(delivery, stored);
      this.onStorageError(error);
      this.scheduler.at(
        this.clock.now() + STORAGE_RETRY_REAL_MS * this.clock.speed,
        () => void this.attempt(delivery),
      );
      return;
    }
    if (delivery.status === 'pending') {
      this.scheduler.at(delivery.next_at, () => void this.attempt(delivery));
      return;
    }
    const queue = queueOf(delivery);
    this.queues.get(queue)?.shift();
    this.busy.delete(queue);
    this.kick(queue);
  }

  private async post(delivery: DeliveryRecord): Promise<{ ok: boolean; status?: number; error?: string }> {
    // webhook-timestamp is real time: receivers compare it with their own clock.
    const timestamp = Math.floor(this.realClock.now() / 1000);
    try {
      const response = await request(delivery.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': `sign-cli-sandbox/${VERSION}`,
          ...this.sign(deliveryEventId(delivery), timestamp, delivery.body),
        },
        body: delivery.body,
      });
      await response.body.dump();
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return ok
        ? { ok, status: response.statusCode }
        : { ok, status: response.statusCode, error: `HTTP ${response.statusCode}` };
    } catch (error) {
      const code = (error as { code?: string }).code;
      return { ok: false, error: `${code ?? 'error'}: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.agent.destroy();
  }
}

/** The queue a delivery waits in: its envelope's (events in order), or its own for a resend. */
const queueOf = (delivery: DeliveryRecord): string =>
  delivery.resend ? `resend:${delivery.id}` : delivery.envelope_id;
