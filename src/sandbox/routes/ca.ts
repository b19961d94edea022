/**
 * The sandbox CA's endpoints, as a CA publishes them and its certificates'
 * AIA and CRL distribution points name them: the CA certificate in DER
 * (GET /_sandbox/ca.cer), the OCSP responder (RFC 6960 appendix A: POST
 * /_sandbox/ocsp with application/ocsp-request, or GET with the request in
 * base64 in the path), the CRL (GET /_sandbox/crl/ca.crl), all public and as
 * of now on the sandbox clock; and, with the sandbox's own key, revocations
 * (POST /_sandbox/revocations revokes the current signing or TSA certificate
 * and issues its successor; GET lists them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody, sendError, sendJson } from '../http.js';
import type { SandboxServices } from '../http/services.js';
import {
  CERTIFICATE_ROLES,
  REVOCATION_REASONS,
  type CertificateRole,
  type RevocationReason,
} from '../signing/certificate-ledger.js';

const send = (res: ServerResponse, type: string, body: Uint8Array) => {
  res.writeHead(200, { 'content-type': type, 'content-length': body.length });
  res.end(body);
};

/** Answers the CA's public endpoints; false when the path is none of them. */
export async function handleCaEndpoints(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  // What the CA knows is its clock's; what it answers is dated no later than the world's clock:
  // a sandbox sped up runs ahead of real time, and OpenSSL and NSS refuse an answer from the future.
  const knownAt = new Date(services.clock.now());
  const now = new Date(Math.min(knownAt.getTime(), services.realClock.now()));
  if (path === '/_sandbox/ca.cer' && req.method === 'GET') {
    send(res, 'application/pkix-cert', services.ca.ca);
    return true;
  }
  if (path.startsWith('/_sandbox/crl/')) {
    if (path !== '/_sandbox/crl/ca.crl')
      sendError(res, 404, 'not_found', 'the sandbox CA publishes one CRL: /_sandbox/crl/ca.crl');
    else if (req.method !== 'GET')
      sendError(res, 405, 'method_not_allowed', 'GET the CRL', {}, { allow: 'GET' });
    else {
      const { crlAt } = await import('../signing/revocation-status.js');
      send(res, 'application/pkix-crl', await crlAt(services.ca, now, knownAt));
    }
    return true;
  }
  if (path !== '/_sandbox/ocsp' && !path.startsWith('/_sandbox/ocsp/')) return false;
  const { answerOcspRequest, ocspError } = await import('../signing/revocation-status.js');
  let request: Uint8Array;
  if (req.method === 'GET' && path.startsWith('/_sandbox/ocsp/')) {
    // The DER request in base64, URL-encoded (its / may be left as is: the rest of the path is it).
    const text = decodeURIComponent(path.slice('/_sandbox/ocsp/'.length));
    request = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : new Uint8Array();
    send(
      res,
      'application/ocsp-response',
      request.length > 0 ? await answerOcspRequest(services.ca, request, now, knownAt) : ocspError(1),
    );
    return true;
  }
  if (req.method !== 'POST' || path !== '/_sandbox/ocsp') {
    sendError(
      res,
      405,
      'method_not_allowed',
      'the OCSP responder takes POST /_sandbox/ocsp (application/ocsp-request) or GET /_sandbox/ocsp/<base64 request>',
      {},
      { allow: 'POST, GET' },
    );
    return true;
  }
  if (!/^application\/ocsp-request\b/i.test(req.headers['content-type'] ?? '')) {
    sendError(
      res,
      415,
      'unsupported_media_type',
      'the OCSP responder takes Content-Type: application/ocsp-request (a DER OCSPRequest)',
    );
    return true;
  }
  try {
    request = await readBody(req, 64 * 1024);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    sendError(res, 413, 'body_too_large', 'an OCSPRequest is a few hundred bytes; this one is over 64 KB');
    return true;
  }
  send(res, 'application/ocsp-response', await answerOcspRequest(services.ca, request, now, knownAt));
  return true;
}

/** The revocation of one certificate, as the endpoints show it. */
const shown = (r: {
  role: CertificateRole;
  serial: string;
  at: string;
  reason: string;
  recorded: string;
}) => ({
  certificate: r.role,
  serial: r.serial,
  revoked_at: r.at,
  reason: r.reason,
  recorded_at: r.recorded,
});

/** Checks a revocation's input: the role, when (not after now), why. A string says what is wrong. */
function revocationInput(
  input: Record<string, unknown>,
  now: Date,
): { role: CertificateRole; at: Date; reason: RevocationReason } | string {
  const role = input.certificate;
  if (typeof role !== 'string' || !(CERTIFICATE_ROLES as readonly string[]).includes(role))
    return 'certificate must be "signing" or "tsa": the certificate to revoke';
  let at = now;
  if (input.at !== undefined) {
    const parsed =
      typeof input.at === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(input.at) ? new Date(input.at) : undefined;
    if (!parsed || Number.isNaN(parsed.getTime()))
      return 'at must be an ISO 8601 time, such as 2026-01-31T12:00:00Z';
    if (parsed.getTime() > now.getTime())
      return `at must not be after the sandbox's now (${now.toISOString()}): a CA revokes from now or a past time`;
    at = parsed;
  }
  const reason = input.reason ?? 'unspecified';
  if (typeof reason !== 'string' || !Object.hasOwn(REVOCATION_REASONS, reason))
    return `reason must be one of ${Object.keys(REVOCATION_REASONS).join(', ')}`;
  return { role: role as CertificateRole, at, reason: reason as RevocationReason };
}

/** POST /_sandbox/revocations revokes and reissues; GET lists. The caller checked the sandbox's key. */
export async function handleRevocations(
  services: SandboxServices,
  req: IncomingMessage,
  res: ServerResponse,
  input: Record<string, unknown>,
): Promise<void> {
  if (req.method === 'GET') {
    sendJson(res, 200, { object: 'list', data: services.ca.record.revocations.map(shown) });
    return;
  }
  if (req.method !== 'POST') {
    sendError(
      res,
      405,
      'method_not_allowed',
      'POST a revocation, or GET the list',
      {},
      { allow: 'POST, GET' },
    );
    return;
  }
  const now = new Date(services.clock.now());
  const checked = revocationInput(input, now);
  if (typeof checked === 'string') {
    sendError(res, 400, 'invalid_revocation', checked);
    return;
  }
  const { replacement } = await services.ca.revoke(checked.role, checked.at, checked.reason, now);
  const recorded = services.ca.record.revocations.at(-1)!;
  sendJson(res, 201, {
    ...shown(recorded),
    replaced_by: { serial: replacement.serial, since: replacement.since },
  });
}
