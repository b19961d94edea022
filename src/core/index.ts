/**
 * sign-cli as a library: `import { SignClient, validateEnvelope } from 'esign-envelopes-cli'`.
 * The public API, name by name (docs/library.md): the client, envelope
 * validation, webhook signing and verification, audit-trail and PDF
 * verification, the errors a caller catches, and their types. Everything else
 * in src/core is internal and may change; the shared rate budget over Redis is
 * `esign-envelopes-cli/shared-budget`. test/core/public-surface.test.ts pins
 * this list, so adding or removing a name is a deliberate change of the API.
 */

// The client, and the pacer several clients share to stay under one rate.
export { SignClient } from './client/client.js';
export type {
  AuditTrail,
  CreateEnvelopeResult,
  EnvelopeFilter,
  EnvelopePage,
  SignClientOptions,
  TraceEvent,
} from './client/client.js';
export { RatePacer } from './pacing/pacing.js';

// Envelopes: the request rules and what is sent.
export { validateEnvelope } from './envelope/envelope.js';
export type { ValidateOptions, ValidationResult } from './envelope/envelope.js';
export type { Envelope, EnvelopeInput } from './envelope/schema.js';
export { normalizeEnvelope } from './envelope/normalize.js';
export type { EnvelopeStatus } from './envelope/states.js';

// Webhooks: verifying deliveries, signing test ones.
export { WebhookVerifier, signStandard, newStandardSecret } from './webhooks/webhooks.js';
export type { VerifierOptions, VerifyResult, WebhookScheme } from './webhooks/webhooks.js';
export type { EventPayload } from './webhooks/events.js';

// Audit trails and signed PDFs.
export { verifyAuditChain } from './envelope/audit.js';
export type { AuditVerification } from './envelope/audit.js';
export { verifyPdf, NotAPdfError } from './pades/verify.js';
export type { PdfVerdict, VerifyOptions as PdfVerifyOptions } from './pades/verify.js';

// Errors: what the client and the verifiers throw, each with a machine reason.
export {
  SignError,
  UsageError,
  ValidationError,
  AuthError,
  ApiError,
  NetworkError,
  UnexpectedResponseError,
  InterruptedError,
  StorageError,
} from './errors.js';
export type { ErrorReason, FieldIssue } from './errors.js';

export { VERSION } from './version.js';
