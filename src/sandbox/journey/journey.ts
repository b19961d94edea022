/**
 * The signing journey of each envelope, on the sandbox clock:
 *
 *   envelope.created → envelope.sent → per signer: signer.notified → signer.viewed
 *   → signer.verified (when `verification` is set) → signer.signed
 *   → envelope.completed once every signer has signed.
 *
 * With `sequential: true` a signer is notified only after the previous order
 * has signed; otherwise all are notified at once. Magic contact values
 * (magic.ts) make a signer decline, fail verification or never open the
 * envelope, which lets it expire after `expires_in_days`.
 *
 * Every step is one fsync'd log line (envelope state, audit entries, webhook
 * deliveries together), so a restart resumes exactly where it stopped.
 */
import { StorageError } from '../../core/errors.js';
import { FINAL_STATUSES } from '../../core/envelope/states.js';
import type { EventType } from '../../core/webhooks/events.js';
import type { SandboxClock, Scheduler } from './clock.js';
import type { Step } from './journey-shape.js';
import { recordEvent } from './journey-events.js';
import { describeSignature, signatureOf } from '../documents/signature.js';
import { STEP_DELAYS_MS, advance, type JourneyMode } from './journey-steps.js';
import type { SandboxStore } from '../store/store.js';
import type {
  DeliveryRecord,
  EnvelopeRecord,
  EnvelopeStatus,
  SignerRecord,
  StoredKey,
} from '../store/records.js';

export { STEP_DELAYS_MS, journeyOf, type JourneyMode } from './journey-steps.js';

/** How long (real time) a step that could not be stored waits before it is tried again. */
export const STORAGE_RETRY_REAL_MS = 2_000;

/** Final states: nothing more happens (core/envelope/states.ts). */
export const TERMINAL: ReadonlySet<EnvelopeStatus> = new Set(FINAL_STATUSES);

export type { Step } from './journey-shape.js';

export class JourneyEngine {
  constructor(
    private readonly store: SandboxStore,
    private readonly clock: SandboxClock,
    private readonly scheduler: Scheduler,
    private readonly onDeliveries: (deliveries: DeliveryRecord[]) => void,
    /** A step that could not be stored (it is tried again): for the sandbox's log. */
    private readonly onStorageError: (error: StorageError) => void = () => {},
    /** The journey of envelopes created from now on. */
    readonly mode: JourneyMode = 'auto',
  ) {}

  /**
   * A person's step (ceremony.ts): `change` records events into the step; the
   * envelope is stored with them as one line and the deliveries go out. When
   * the line cannot be written the envelope goes back to what is on disk and
   * the StorageError reaches the caller (the page answers 503): nothing is
   * delivered that was not stored.
   */
  act(envelope: EnvelopeRecord, change: (step: Step, at: number) => void): void {
    const stored = structuredClone(envelope);
    const at = this.clock.now();
    const step: Step = { audit: [], deliveries: [] };
    try {
      change(step, at);
      if (step.audit.length === 0 && JSON.stringify(stored) === JSON.stringify(envelope)) return;
      envelope.updated_at = iso(at);
      this.store.saveJourney(envelope, step.audit, step.deliveries);
    } catch (error) {
      restore(envelope, stored);
      throw error;
    }
    this.onDeliveries(step.deliveries);
    this.schedule(envelope.id);
  }

  /** The initial state of a new envelope: created, sent, first signers queued. Not yet persisted. */
  begin(envelope: EnvelopeRecord, key: StoredKey): Step {
    const step: Step = { audit: [], deliveries: [] };
    const at = Date.parse(envelope.created_at);
    if (this.mode === 'manual') envelope.journey = 'manual';
    this.record(
      envelope,
      step,
      at,
      'envelope.created',
      `api_key:${key.id} (${key.name})`,
      `created "${String(envelope.title)}" with ${envelope.signers.length} signer(s)`,
    );
    this.record(
      envelope,
      step,
      at,
      'envelope.sent',
      'system',
      envelope.sequential ? 'sent; signers will be notified in order' : 'sent; all signers notified at once',
    );
    this.queueNextSigners(envelope, at);
    return step;
  }

  /** Called once the new envelope is stored: its deliveries go out and its first step is scheduled. */
  started(envelope: EnvelopeRecord, step: Step): void {
    this.onDeliveries(step.deliveries);
    this.schedule(envelope.id);
  }

  /**
   * Voids an envelope still under way (the caller checks that it is): every
   * signer's next step is cancelled and `envelope.voided` goes out like any
   * other event. Not yet persisted: the caller stores it with its
   * Idempotency-Key record, then calls {@link delivered}.
   */
  void(envelope: EnvelopeRecord, reason: string, key: StoredKey): Step {
    const step: Step = { audit: [], deliveries: [] };
    const at = this.clock.now();
    envelope.voided_at = iso(at);
    envelope.void_reason = reason;
    envelope.updated_at = iso(at);
    this.finish(
      envelope,
      step,
      at,
      'voided',
      'envelope.voided',
      `voided by api_key:${key.id} (${key.name}): ${reason}`,
      reason,
    );
    return step;
  }

  /** Sends the deliveries of a step that the caller has stored. */
  delivered(step: Step): void {
    this.onDeliveries(step.deliveries);
  }

  /** After a restart: schedule every envelope that is still under way. */
  resumeAll(): void {
    for (const envelope of this.store.envelopes.values())
      if (!TERMINAL.has(envelope.status)) this.schedule(envelope.id);
  }

  private schedule(envelopeId: string): void {
    const envelope = this.store.envelopes.get(envelopeId);
    if (!envelope || TERMINAL.has(envelope.status)) return;
    const times = envelope.signers.map((s) => s.next_at).filter((t): t is number => t !== null);
    if (envelope.expires_at) times.push(Date.parse(envelope.expires_at));
    if (times.length === 0) return;
    this.scheduler.at(Math.min(...times), () => this.tick(envelopeId));
  }

  /**
   * Performs every step that is due, in time order, then persists them as one
   * line. When the line cannot be written (a full disk), the envelope goes back
   * to what is on disk and the steps are tried again a little later: the
   * sandbox does not crash, and nothing is delivered that was not stored.
   */
  private tick(envelopeId: string): void {
    const envelope = this.store.envelopes.get(envelopeId);
    if (!envelope || TERMINAL.has(envelope.status)) return;
    const stored = structuredClone(envelope);
    try {
      this.stepAndStore(envelope);
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      restore(envelope, stored);
      this.onStorageError(error);
      this.scheduler.at(this.clock.now() + STORAGE_RETRY_REAL_MS * this.clock.speed, () =>
        this.tick(envelopeId),
      );
      return;
    }
    this.schedule(envelopeId);
  }

  private stepAndStore(envelope: EnvelopeRecord): void {
    const now = this.clock.now();
    // A step may change the envelope without an event (a person's failed attempt that is not the last).
    const before = JSON.stringify(envelope);
    const step: Step = { audit: [], deliveries: [] };
    for (;;) {
      const due = envelope.signers
        .filter((s) => s.next_at !== null && s.next_at <= now)
        .sort((a, b) => a.next_at! - b.next_at!)[0];
      const expiresAt = envelope.expires_at ? Date.parse(envelope.expires_at) : Number.POSITIVE_INFINITY;
      if (expiresAt <= now && (!due || expiresAt <= due.next_at!)) {
        this.finish(
          envelope,
          step,
          expiresAt,
          'expired',
          'envelope.expired',
          `expired after ${String(envelope.expires_in_days)} day(s) before every signer signed`,
        );
        break;
      }
      if (!due) break;
      advance(this, envelope, due, step);
      if (TERMINAL.has(envelope.status)) break;
    }
    if (step.audit.length > 0 || JSON.stringify(envelope) !== before) {
      envelope.updated_at = new Date(now).toISOString();
      this.store.saveJourney(envelope, step.audit, step.deliveries);
      this.onDeliveries(step.deliveries);
    }
  }

  /** Signs or declines (with a person's reason, in a manual journey); completes or moves the envelope on. */
  signOrDecline(
    envelope: EnvelopeRecord,
    signer: SignerRecord,
    step: Step,
    at: number,
    decline: boolean,
    reason?: string,
  ): void {
    const actor = `signer:${signer.id} (${signer.name})`;
    signer.next_at = null;
    if (decline) {
      signer.status = 'declined';
      signer.declined_at = iso(at);
      if (reason !== undefined) signer.decline_reason = reason;
      this.record(
        envelope,
        step,
        at,
        'signer.declined',
        actor,
        reason === undefined ? 'declined to sign' : `declined to sign: ${reason}`,
        signer,
        reason,
      );
      this.finish(
        envelope,
        step,
        at,
        'declined',
        'envelope.declined',
        `signer ${signer.name} declined`,
        'signer_declined',
      );
      return;
    }
    signer.status = 'signed';
    signer.signed_at = iso(at);
    const own = signatureOf(signer);
    this.record(
      envelope,
      step,
      at,
      'signer.signed',
      actor,
      `signed (${typeof envelope.signature_level === 'string' ? envelope.signature_level : 'default'} signature)${own ? ` with a ${describeSignature(own)}` : ''}`,
      signer,
    );
    if (envelope.signers.every((s) => s.status === 'signed')) {
      envelope.completed_at = iso(at);
      this.finish(
        envelope,
        step,
        at,
        'completed',
        'envelope.completed',
        'every signer has signed; the signed copy is available',
      );
    } else {
      this.queueNextSigners(envelope, at);
    }
  }

  /** Sequential: the lowest order still pending, once nobody is mid-way. Otherwise: everyone pending. */
  private queueNextSigners(envelope: EnvelopeRecord, at: number): void {
    const pending = envelope.signers.filter((s) => s.status === 'pending' && s.next_at === null);
    if (!envelope.sequential) {
      for (const signer of pending) signer.next_at = at + STEP_DELAYS_MS.notify;
      return;
    }
    const busy =
      envelope.signers.some((s) => s.status !== 'pending' && s.status !== 'signed') ||
      envelope.signers.some((s) => s.status === 'pending' && s.next_at !== null);
    if (busy || pending.length === 0) return;
    const next = pending.reduce((a, b) => ((a.order ?? 0) <= (b.order ?? 0) ? a : b));
    next.next_at = at + STEP_DELAYS_MS.notify;
  }

  finish(
    envelope: EnvelopeRecord,
    step: Step,
    at: number,
    status: EnvelopeStatus,
    type: EventType,
    detail: string,
    reason?: string,
  ): void {
    envelope.status = status;
    envelope.finished_at = iso(at);
    for (const signer of envelope.signers) signer.next_at = null;
    this.record(envelope, step, at, type, 'system', detail, undefined, reason);
  }

  /** Appends one audit entry and, when the envelope has a webhook_url, one delivery of the same event. */
  record(
    envelope: EnvelopeRecord,
    step: Step,
    at: number,
    type: EventType,
    actor: string,
    detail: string,
    signer?: SignerRecord,
    reason?: string,
  ): void {
    recordEvent(this.store, envelope, step, at, { type, actor, detail, signer, reason });
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The envelope as it was stored: fields the failed step added (`finished_at`, …) go too. */
function restore(envelope: EnvelopeRecord, stored: EnvelopeRecord): void {
  for (const key of Object.keys(envelope)) if (!(key in stored)) delete envelope[key];
  Object.assign(envelope, stored);
}
