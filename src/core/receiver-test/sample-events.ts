/** The events `webhooks test` sends: the service's own samples (events.ts), each with a fresh id. */
import { randomBytes } from 'node:crypto';
import { newEventId, sampleEvent, type EventPayload, type EventType } from '../webhooks/events.js';

export interface SampleDelivery {
  id: string;
  type: string;
  body: string;
}

/** An envelope id of the service's shape, fresh for each run, so a receiver's store sees new envelopes. */
export const newEnvelopeId = (): string => `env_${randomBytes(12).toString('hex')}`;

/**
 * One event as the service sends it (compact JSON): `type` may be one the
 * service does not send (the unknown-type check), and `extra` adds fields it
 * does not send yet (the unknown-field check), at the top level and in `data`.
 */
export function sampleDelivery(
  type: string,
  envelopeId: string,
  extra?: { top?: Record<string, unknown>; data?: Record<string, unknown> },
): SampleDelivery {
  // An unknown type gets the shape of an envelope event: sampleEvent reads its tables by type.
  const sample: EventPayload = sampleEvent(type as EventType);
  const event = {
    ...sample,
    id: newEventId(),
    ...extra?.top,
    data: { ...sample.data, envelope_id: envelopeId, ...extra?.data },
  };
  return { id: event.id, type, body: JSON.stringify(event) };
}
