/**
 * The envelope resource: create, get, list, void, the signed copy and the
 * audit trail (docs/service.md, Envelope, and docs/assumptions.md for the rest).
 */
import { ENDPOINTS } from '../../core/endpoints.js';
import { isRecord, validateEnvelope } from '../../core/envelope/envelope.js';
import { sendError, sendJson } from '../http.js';
import { TERMINAL } from '../journey/journey.js';
import { listPage, parseListQuery } from '../store/listing.js';
import { findEnvelope, keyed } from '../http/middleware.js';
import { sameRealm } from '../store/realm.js';
import { buildEnvelope, publicEnvelope } from './resources.js';
import { VOID_REASON_MAX, sandboxBounds, widenHint } from '../rules.js';
import type { RequestContext, Route, SandboxServices } from '../http/services.js';
import { ensureSealed, signedCopy } from '../signing/seal.js';

/** POST /api/v1/envelopes: checked by the core's rules, stored with its idempotency record, then the journey starts. */
function createEnvelope(services: SandboxServices, ctx: RequestContext): Promise<void> {
  const { res, key } = ctx;
  const { faults, allowed, clock, journey, store, counters } = services;
  // The body alone: records written before void existed keep matching.
  return keyed(
    services,
    ctx,
    'create',
    (body) => body,
    async (body, remember) => {
      await faults.delay();
      // Fields the published interface does not name are ignored, not refused: it is silent on them
      // (docs/service.md, Envelope; docs/assumptions.md).
      const { errors } = validateEnvelope(body, {
        allowedValues: allowed,
        widenHint,
        allowUnknownFields: true,
      });
      errors.push(...sandboxBounds(body));
      if (errors.length > 0) {
        const summary = errors.map((e) => `${e.path || '(body)'} ${e.message}`).join('; ');
        sendError(
          res,
          422,
          'validation_failed',
          `${errors.length} invalid field${errors.length === 1 ? '' : 's'}: ${summary}`,
          { errors },
        );
        return;
      }
      const envelope = buildEnvelope(body as Record<string, unknown>, key, clock.now());
      const step = journey.begin(envelope, key);
      const shown = publicEnvelope(envelope);
      const headers = { location: `${ENDPOINTS.createEnvelope.path}/${envelope.id}` };
      store.saveCreated(
        envelope,
        remember({ status: 201, body: shown, headers }),
        step.audit,
        step.deliveries,
      );
      journey.started(envelope, step);
      counters.created++;
      if (faults.takeDropAfterCommit()) {
        // Committed, but the client never hears of it: the case Idempotency-Key exists for.
        res.socket?.destroy();
        return;
      }
      sendJson(res, 201, shown, headers);
    },
  );
}

/** POST /api/v1/envelopes/{id}/void {"reason"}: stops an envelope under way (docs/assumptions.md). */
function voidEnvelope(services: SandboxServices, ctx: RequestContext): Promise<void> {
  const { res, key, params } = ctx;
  const { journey, store } = services;
  const id = params[0]!;
  return keyed(
    services,
    ctx,
    'void',
    (body) => ({ void: id, body }),
    (body, remember) => {
      const reason = isRecord(body) ? body.reason : undefined;
      if (typeof reason !== 'string' || reason.trim() === '' || reason.length > VOID_REASON_MAX) {
        sendError(
          res,
          422,
          'validation_failed',
          `reason must be a non-empty string of at most ${VOID_REASON_MAX} characters`,
          {
            errors: [{ path: 'reason', message: 'required: why the envelope is voided' }],
          },
        );
        return;
      }
      const envelope = findEnvelope(services, res, id, key);
      if (!envelope) return;
      if (TERMINAL.has(envelope.status)) {
        sendError(
          res,
          409,
          'envelope_final',
          `the envelope is already ${envelope.status}; only an envelope still under way can be voided`,
          { envelope_status: envelope.status },
        );
        return;
      }
      const stored = structuredClone(envelope);
      const step = journey.void(envelope, reason, key);
      const shown = publicEnvelope(envelope);
      try {
        store.saveVoided(
          envelope,
          remember({ status: 200, body: shown, headers: {} }),
          step.audit,
          step.deliveries,
        );
      } catch (error) {
        // Not on disk, so not voided: the envelope is as it was, and the client is told to retry (503).
        Object.assign(envelope, stored);
        throw error;
      }
      journey.delivered(step);
      sendJson(res, 200, shown);
    },
  );
}

/** GET /api/v1/envelopes: newest first, filtered, one page at a time (listing.ts). */
function listEnvelopes({ store }: SandboxServices, { req, res, key }: RequestContext): void {
  const query = parseListQuery(new URL(req.url ?? '/', 'http://sandbox').searchParams);
  if (typeof query === 'string') {
    sendError(res, 400, 'invalid_query', query);
    return;
  }
  const page = listPage(
    [...store.envelopes.values()].filter((envelope) => sameRealm(envelope, key)),
    query,
  );
  if (!page)
    sendError(res, 400, 'invalid_query', 'cursor names no envelope of this service; start again without it');
  else sendJson(res, 200, { ...page, data: page.data.map(publicEnvelope) });
}

async function getEnvelope(services: SandboxServices, { res, params, key }: RequestContext): Promise<void> {
  await services.faults.delay();
  const envelope = findEnvelope(services, res, params[0]!, key);
  if (envelope) sendJson(res, 200, publicEnvelope(envelope));
}

/** GET …/signed-copy: the PDF once every signer has signed; 409 before. */
async function downloadSignedCopy(
  services: SandboxServices,
  { res, params, key }: RequestContext,
): Promise<void> {
  const envelope = findEnvelope(services, res, params[0]!, key);
  if (!envelope) return;
  if (envelope.status !== 'completed') {
    sendError(
      res,
      409,
      'envelope_not_completed',
      `the envelope is ${envelope.status}; a signed copy exists once every signer has signed`,
      { envelope_status: envelope.status },
    );
    return;
  }
  // Signed (PAdES) as a signing service delivers it; the trail's closing entry records its hash.
  await ensureSealed(services, envelope);
  const pdf = await signedCopy(services, envelope);
  res.writeHead(200, {
    'content-type': 'application/pdf',
    'content-length': pdf.length,
    'content-disposition': `attachment; filename="${envelope.id}-signed.pdf"`,
  });
  res.end(pdf);
}

/** GET …/audit-trail: the hash-chained entries and the head hash. */
async function getAuditTrail(services: SandboxServices, { res, params, key }: RequestContext): Promise<void> {
  const envelope = findEnvelope(services, res, params[0]!, key);
  if (!envelope) return;
  await ensureSealed(services, envelope);
  const entries = services.store.audits.get(envelope.id) ?? [];
  sendJson(res, 200, {
    envelope_id: envelope.id,
    hash_algorithm: 'sha256',
    head_hash: entries.at(-1)?.hash ?? null,
    entries,
  });
}

export function envelopeRoutes(services: SandboxServices): Route[] {
  const bind =
    (handler: (services: SandboxServices, ctx: RequestContext) => Promise<void> | void) =>
    (ctx: RequestContext) =>
      handler(services, ctx);
  return [
    { operation: 'createEnvelope', method: 'POST', handle: bind(createEnvelope) },
    { operation: 'listEnvelopes', method: 'GET', handle: bind(listEnvelopes) },
    { operation: 'voidEnvelope', method: 'POST', handle: bind(voidEnvelope) },
    { operation: 'getEnvelope', method: 'GET', handle: bind(getEnvelope) },
    { operation: 'downloadSignedCopy', method: 'GET', handle: bind(downloadSignedCopy) },
    { operation: 'getAuditTrail', method: 'GET', handle: bind(getAuditTrail) },
  ];
}
