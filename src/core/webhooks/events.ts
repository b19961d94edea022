/**
 * Signing events. The published interface does not name them or show their
 * payload (docs/service.md, Events (webhooks)); these are the sandbox's and
 * sign-cli's choice (docs/assumptions.md).
 */
import { randomUUID } from 'node:crypto';

export const EVENT_TYPES = [
  'envelope.created',
  'envelope.sent',
  'signer.notified',
  'signer.viewed',
  'signer.verified',
  'signer.verification_failed',
  'signer.signed',
  'signer.declined',
  'envelope.completed',
  'envelope.declined',
  'envelope.failed',
  'envelope.expired',
  'envelope.voided',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventSigner {
  id: string;
  name: string;
  channel: string;
  order: number | null;
  status: string;
}

/** The webhook body: id, type, timestamp, and the envelope, contract and signer it concerns. */
export interface EventPayload {
  id: string;
  type: EventType;
  timestamp: string;
  data: {
    envelope_id: string;
    contract_id: string | null;
    envelope_status: string;
    signer?: EventSigner;
    reason?: string;
  };
}

export const newEventId = (): string => `evt_${randomUUID().replace(/-/g, '')}`;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

const ENVELOPE_STATUS: Partial<Record<EventType, string>> = {
  'envelope.completed': 'completed',
  'envelope.declined': 'declined',
  'envelope.failed': 'failed',
  'envelope.expired': 'expired',
};

const SIGNER_STATUS: Partial<Record<EventType, string>> = {
  'signer.notified': 'notified',
  'signer.viewed': 'viewed',
  'signer.verified': 'verified',
  'signer.verification_failed': 'verification_failed',
  'signer.signed': 'signed',
  'signer.declined': 'declined',
};

const REASON: Partial<Record<EventType, string>> = {
  'envelope.declined': 'signer_declined',
  'envelope.failed': 'verification_failed',
};

/** A realistic event of the given type, for `webhooks trigger` and tests. */
export function sampleEvent(type: EventType, now = new Date()): EventPayload {
  const signerStatus = SIGNER_STATUS[type];
  return {
    id: newEventId(),
    type,
    timestamp: now.toISOString(),
    data: {
      envelope_id: 'env_SampleTrigger0000001',
      contract_id: 'CTR-SAMPLE-0001',
      envelope_status: ENVELOPE_STATUS[type] ?? 'sent',
      ...(signerStatus
        ? {
            signer: {
              id: 'sgn_SampleTrigger000001',
              name: 'Layla Haddad',
              channel: 'email',
              order: 1,
              status: signerStatus,
            },
          }
        : {}),
      ...(REASON[type] ? { reason: REASON[type] } : {}),
    },
  };
}
