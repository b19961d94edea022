/**
 * sign-cli as a library: `import { SignClient, validateEnvelope } from 'esign-envelopes-cli'`.
 * The public API, name by name (docs/library.md): what is not listed here is
 * internal and may change (the transport, the answer readers, file and lock
 * helpers). The shared rate budget over Redis is `sign-cli/shared-budget`.
 */

// The client and what it takes and returns.
export { SignClient, MAX_PAGE_SIZE } from './client.js';
export type {
  ApiResponse,
  AuditTrail,
  CreateEnvelopeResult,
  EnvelopeFilter,
  EnvelopePage,
  RequestOptions,
  SignClientOptions,
  TraceEvent,
} from './client.js';

// Envelopes: the request rules, normalisation, and the states.
export {
  validateEnvelope,
  envelopeSchema,
  signerSchema,
  formatPath,
  SEEN_VALUES,
  LOCAL_LIMITS,
  MAX_ENVELOPE_DEPTH,
} from './envelope.js';
export type {
  Envelope,
  EnvelopeInput,
  Signer,
  SignerInput,
  SignerState,
  ValidateOptions,
  ValidationResult,
  ValueLists,
} from './envelope.js';
export { normalizeEnvelope, normalizeEmail } from './normalize.js';
export { ENVELOPE_STATUSES, FINAL_STATUSES, type EnvelopeStatus } from './states.js';

// Endpoints and the service's identity.
export { ENDPOINTS, SCOPES, joinUrl, parseBaseUrl, resolveEndpoint, baseUrlEndsInApi } from './endpoints.js';
export type { Endpoint, Operation, PathOverrides, Scope } from './endpoints.js';
export { serviceIdentity, environmentOfKey, keyFingerprint } from './service-identity.js';
export { proxySettingsFrom, proxyFor, showProxyUrl, LOOPBACK_HOSTS, type ProxySettings } from './proxy.js';

// Errors.
export {
  ExitCode,
  exitCodeOf,
  parseErrorBody,
  SignError,
  UsageError,
  InputParseError,
  ValidationError,
  AuthError,
  ApiError,
  NetworkError,
  UnexpectedResponseError,
  InterruptedError,
  StorageError,
} from './errors.js';
export type { ErrorReason, FieldIssue, ServerErrorInfo, SignErrorOptions } from './errors.js';

// Exactly once: idempotency keys, bulk runs and their journal.
export { contentHash, derivedIdempotencyKey, newIdempotencyKey, checkIdempotencyKey } from './idempotency.js';
export { runBulk, mayHaveCreated } from './bulk.js';
export type { BulkInput, BulkOptions, BulkOutcome, BulkSummary, CreateCall } from './bulk.js';
export { CreateJournal, pruneJournals, inDoubt, JOURNAL_RETENTION_MS } from './journal.js';
export type { JournalEntry, JournalLookup, JournalState } from './journal.js';
export { LockedError } from './pid-lock.js';

// Pacing and retries.
export { RatePacer, DEFAULT_RATE_PER_MINUTE } from './pacing.js';
export type { PacerOptions, SharedBudget } from './pacing.js';
export {
  DEFAULT_RETRY_POLICY,
  decideRetry,
  isRetryableStatus,
  parseRetryAfter,
  parseRateLimitFields,
  retryDelay,
  backoffDelay,
} from './retry.js';
export type { AttemptOutcome, DelaySource, RetryDecision, RetryPolicy } from './retry.js';
export { systemClock, type Clock } from './clock.js';

// Keys.
export { maskKey, redactSecrets, expiryStatus, isScope, EXPIRING_SOON_DAYS } from './keys.js';
export type { ExpiryStatus, ListedKey } from './keys.js';

// Webhooks: signing, verifying, events, deliveries.
export {
  WebhookVerifier,
  signStandard,
  signStripe,
  newStandardSecret,
  standardSignature,
  stripeSignature,
  hmacSignature,
  safeEqual,
  deliveryId,
  WEBHOOK_SCHEMES,
  DEFAULT_TOLERANCE_SECONDS,
  DEFAULT_HMAC_HEADER,
} from './webhooks.js';
export type {
  HeaderBag,
  HmacAlgorithm,
  SchemeSuggestion,
  VerifierOptions,
  VerifyFailureCode,
  VerifyResult,
  WebhookScheme,
} from './webhooks.js';
export { EVENT_TYPES, isEventType, sampleEvent, newEventId } from './events.js';
export type { EventPayload, EventSigner, EventType } from './events.js';
export { DELIVERY_STATES, FAILING_STATES, isWebhookDelivery, webhookUrlProblem } from './deliveries.js';
export type {
  DeliveryFilter,
  DeliveryPage,
  DeliveryState,
  WebhookDelivery,
  WebhookDeliveryAttempt,
} from './deliveries.js';

// Audit trails.
export { verifyAuditChain, chainAuditEntry, auditEntryHash, GENESIS_HASH } from './audit.js';
export type { AuditEntry, AuditFields, AuditVerification } from './audit.js';

// JSON and text.
export { parseJsonText, MAX_JSON_DEPTH } from './json-source.js';
export { canonicalJson } from './canonical-json.js';
export { escapeControl, untrusted } from './text.js';
export { VERSION, USER_AGENT } from './version.js';
