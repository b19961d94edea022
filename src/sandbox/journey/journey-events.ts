/**
 * One event of a journey, as the journey engine writes it: an audit entry
 * chained to the trail (the step's own entries first), and, when the envelope
 * has a webhook_url, one delivery of the same event with the envelope, its
 * contract and the signer it concerns.
 */
import { chainAuditEntry, type AuditFields } from '../../core/envelope/audit.js';
import { newEventId, type EventPayload, type EventType } from '../../core/webhooks/events.js';
import { newId } from '../ids.js';
import type { Step } from './journey-shape.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import type { SandboxStore } from '../store/store.js';

export interface JourneyEvent {
  type: EventType;
  /** `system`, `api_key:<id> (<name>)` or `signer:<id> (<name>)`. */
  actor: string;
  detail: string;
  signer?: SignerRecord | undefined;
  reason?: string | undefined;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Appends the event's audit entry and delivery to the step (stored by the caller with the envelope). */
export function recordEvent(
  store: SandboxStore,
  envelope: EnvelopeRecord,
  step: Step,
  at: number,
  { type, actor, detail, signer, reason }: JourneyEvent,
): void {
  const id = newEventId();
  const trail = store.audits.get(envelope.id) ?? [];
  const previous = step.audit.at(-1) ?? trail.at(-1);
  const fields: AuditFields = { at: iso(at), type, actor, detail, event_id: id };
  step.audit.push(chainAuditEntry(previous, fields));
  if (typeof envelope.webhook_url !== 'string') return;
  const payload: EventPayload = {
    id,
    type,
    timestamp: iso(at),
    data: {
      envelope_id: envelope.id,
      contract_id: typeof envelope.contract_id === 'string' ? envelope.contract_id : null,
      envelope_status: envelope.status,
      ...(signer
        ? {
            signer: {
              id: signer.id,
              name: signer.name,
              channel: signer.channel,
              order: signer.order ?? null,
              status: signer.status,
            },
          }
        : {}),
      ...(reason ? { reason } : {}),
    },
  };
  step.deliveries.push({
    id: newId('dlv'),
    event_id: id,
    seq: store.nextDeliverySeq(),
    envelope_id: envelope.id,
    event_type: type,
    url: envelope.webhook_url,
    body: JSON.stringify(payload),
    status: 'pending',
    attempts: 0,
    attempt_log: [],
    next_at: at,
    last_status: null,
    last_error: null,
    finished_at: null,
    created_at: iso(at),
  });
}
