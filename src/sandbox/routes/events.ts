/** Webhook deliveries: the listing and resending an event (docs/assumptions.md). */
import { isRecord } from '../../core/envelope/envelope.js';
import { webhookUrlProblem } from '../../core/webhooks/deliveries.js';
import { deliveryPage, parseDeliveryQuery, publicDelivery } from '../delivery/delivery-listing.js';
import { sendError, sendJson } from '../http.js';
import { newId } from '../ids.js';
import { deliveryVisible, keyed } from '../http/middleware.js';
import type { RequestContext, Route, SandboxServices } from '../http/services.js';
import type { DeliveryRecord } from '../store/records.js';

/** GET /api/v1/webhook-deliveries: every delivery with its attempts, newest first (delivery-listing.ts). */
function listDeliveries(services: SandboxServices, { req, res, key }: RequestContext): void {
  const query = parseDeliveryQuery(new URL(req.url ?? '/', 'http://sandbox').searchParams);
  if (typeof query === 'string') {
    sendError(res, 400, 'invalid_query', query);
    return;
  }
  const page = deliveryPage(
    [...services.store.deliveries.values()].filter((delivery) => deliveryVisible(services, delivery, key)),
    query,
  );
  if (!page)
    sendError(res, 400, 'invalid_query', 'cursor names no delivery of this service; start again without it');
  else sendJson(res, 200, page);
}

/**
 * POST /api/v1/events/{id}/resend {"to"?}: a new delivery (its own `dlv_…`
 * id) of the same event: the same body under the same `webhook-id`, signed
 * afresh at each attempt, to the event's URL or `to`. It has its own queue,
 * so it starts at once rather than behind the envelope's pending events, and
 * it retries like any delivery. An Idempotency-Key as for create and void.
 */
function resendEvent(services: SandboxServices, ctx: RequestContext): Promise<void> {
  const { res, params, key } = ctx;
  const { store, clock, deliverer } = services;
  const eventId = params[0]!;
  return keyed(
    services,
    ctx,
    'resend',
    (body) => ({ resend: eventId, body }),
    (body, remember) => {
      if (!isRecord(body)) {
        sendError(res, 422, 'validation_failed', 'the body must be a JSON object: {} or {"to": "<url>"}', {
          errors: [{ path: '', message: 'must be a JSON object' }],
        });
        return;
      }
      const extra = Object.keys(body).find((name) => name !== 'to');
      if (extra !== undefined) {
        sendError(
          res,
          422,
          'validation_failed',
          `unknown field ${JSON.stringify(extra.slice(0, 40))}; a resend takes only "to"`,
          { errors: [{ path: extra.slice(0, 40), message: 'unknown field' }] },
        );
        return;
      }
      const problem = body.to === undefined ? undefined : webhookUrlProblem(body.to);
      if (problem) {
        sendError(res, 422, 'validation_failed', `to ${problem}`, {
          errors: [{ path: 'to', message: problem }],
        });
        return;
      }
      const original = store.deliveriesOfEvent(eventId)[0];
      if (!original || !deliveryVisible(services, original, key)) {
        sendError(
          res,
          404,
          'event_not_found',
          `no webhook delivery of event ${eventId}; only events sent to a webhook_url can be resent`,
        );
        return;
      }
      const now = clock.now();
      const delivery: DeliveryRecord = {
        id: newId('dlv'),
        event_id: eventId,
        seq: store.nextDeliverySeq(),
        envelope_id: original.envelope_id,
        event_type: original.event_type,
        url: typeof body.to === 'string' ? body.to : original.url,
        body: original.body,
        status: 'pending',
        attempts: 0,
        attempt_log: [],
        next_at: now,
        last_status: null,
        last_error: null,
        finished_at: null,
        created_at: new Date(now).toISOString(),
        resend: true,
      };
      const shown = publicDelivery(delivery);
      store.saveResent(delivery, remember({ status: 202, body: shown, headers: {} }));
      deliverer.enqueue([delivery]);
      sendJson(res, 202, shown);
    },
  );
}

export function eventRoutes(services: SandboxServices): Route[] {
  return [
    { operation: 'listDeliveries', method: 'GET', handle: (ctx) => listDeliveries(services, ctx) },
    { operation: 'resendEvent', method: 'POST', handle: (ctx) => resendEvent(services, ctx) },
  ];
}
