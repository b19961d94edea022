/**
 * What SignClient checks and spells before a request goes out: the ids and
 * reasons that must not be empty, a resend's target, the query of each
 * listing. Apart from the class, as client-answers.ts holds what comes back,
 * so each resource method reads as the one request it sends.
 */
import type { EnvelopeFilter } from './client-types.js';
import { webhookUrlProblem, type DeliveryFilter } from '../webhooks/deliveries.js';
import { UsageError } from '../errors.js';
import type { RequestOptions } from './wire.js';

/** Where a listing is in its pages. */
export interface PageOptions {
  limit?: number;
  cursor?: string | undefined;
}

export function checkEnvelopeId(id: string): void {
  if (id.trim() === '')
    throw new UsageError('envelope id must not be empty', {
      hint: 'give the id the service returned when the envelope was created',
    });
}

export function checkEventId(eventId: string): void {
  if (eventId.trim() === '')
    throw new UsageError('event id must not be empty', {
      hint: 'give an event id (evt_…) from the deliveries listing',
      reason: 'empty_event_id',
    });
}

/** Where a resend is asked to go instead of the event's URL, when given. */
export function checkResendTarget(to: string | undefined): void {
  const problem = to === undefined ? undefined : webhookUrlProblem(to);
  if (problem)
    throw new UsageError(`to ${problem}`, { reason: 'bad_resend_target', reasonData: { problem } });
}

export function checkVoidReason(reason: string): void {
  if (reason.trim() === '')
    throw new UsageError('a reason is required to void an envelope', {
      hint: 'say why it is voided',
      reason: 'reason_required',
    });
}

/** The query of listEnvelopes. */
export function envelopeQuery(filter: EnvelopeFilter, options: PageOptions): RequestOptions['query'] {
  return {
    status: filter.status,
    contract_id: filter.contractId,
    created_after: filter.createdAfter,
    limit: options.limit === undefined ? undefined : String(options.limit),
    cursor: options.cursor,
  };
}

/** The query of listDeliveries. */
export function deliveryQuery(filter: DeliveryFilter, options: PageOptions): RequestOptions['query'] {
  return {
    envelope_id: filter.envelopeId,
    status: filter.status && filter.status.length > 0 ? filter.status.join(',') : undefined,
    limit: options.limit === undefined ? undefined : String(options.limit),
    cursor: options.cursor,
  };
}
