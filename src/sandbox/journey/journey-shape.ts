/**
 * The journey engine as the modules it calls see it (journey-steps.ts, id-requests.ts): what a
 * step produces and the engine's ways of writing events. Named by shape, in a module of types
 * alone, so that journey.ts can import those modules without a circle of imports.
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import type { EventType } from '../../core/webhooks/events.js';
import type { DeliveryRecord, EnvelopeRecord, EnvelopeStatus, SignerRecord } from '../store/records.js';

/** What one step produced, written to the log as one line. */
export interface Step {
  audit: AuditEntry[];
  deliveries: DeliveryRecord[];
}

/** Appending events: an audit entry and its delivery; an envelope's end. */
export interface EventRecorder {
  record(
    envelope: EnvelopeRecord,
    step: Step,
    at: number,
    type: EventType,
    actor: string,
    detail: string,
    signer?: SignerRecord,
    reason?: string,
  ): void;
  finish(
    envelope: EnvelopeRecord,
    step: Step,
    at: number,
    status: EnvelopeStatus,
    type: EventType,
    detail: string,
    reason?: string,
  ): void;
}

/** A recorder that also signs or declines (and completes or moves the envelope on). */
export interface StepEngine extends EventRecorder {
  signOrDecline(
    envelope: EnvelopeRecord,
    signer: SignerRecord,
    step: Step,
    at: number,
    decline: boolean,
    reason?: string,
  ): void;
}
