/**
 * The CLI's words for what the core reports by reason (errors.ts
 * ErrorReason): the core's hints are for any caller; here they name the
 * flags, variables and commands of sign-cli. An error without a reason, or
 * with one the CLI has nothing to add to, keeps the core's hint.
 */
import { SignError } from '../../core/errors.js';

type Advice = (data: Record<string, string | undefined>, error: SignError) => string | undefined;

const ADVICE: Partial<Record<NonNullable<SignError['reason']>, Advice>> = {
  connect_failed: () =>
    'check that the service is up and the base URL (--base-url, SIGN_BASE_URL) is right; `sign-cli sandbox` starts a local one',
  not_the_service: ({ baseUrl, idempotencyKey }) =>
    `is ${baseUrl} the signing service? check --base-url, SIGN_BASE_URL or the profile's base URL` +
    (idempotencyKey
      ? `; it was sent with Idempotency-Key ${idempotencyKey}: sending it again with that key cannot create a duplicate`
      : ''),
  key_refused: () =>
    'set a valid key with SIGN_API_KEY, --api-key-file or the active profile; it may be unknown, revoked or expired',
  not_completed: () =>
    'the envelope is not completed yet; add --wait to wait for it (or check its state with `sign-cli envelopes get`)',
  not_voidable: () =>
    'only an envelope still under way can be voided; check its state with `sign-cli envelopes get`',
  rate_limited: () => 'the rate limit was still exceeded after retries; lower --rate or try again later',
  maybe_resent: (_data, error) =>
    error.hint?.replace('the deliveries listing', '`sign-cli webhooks deliveries`'),
  reason_required: () => 'pass --reason "<why>"',
  event_not_found: () =>
    'check the event id: only events sent to a webhook_url can be resent, and `sign-cli webhooks deliveries` lists them',
  empty_event_id: () => 'pass an event id (evt_…) shown by `sign-cli webhooks deliveries`',
  bad_idempotency_key: () => 'drop --idempotency-key to let sign-cli derive one from the envelope',
  key_conflict_created: ({ given }) =>
    `drop --idempotency-key to see it reported as already created, or add --new to create another envelope with key ${given}`,
  key_conflict_in_doubt: ({ known }) =>
    `pass --idempotency-key ${known} (or drop --idempotency-key) to finish it safely; --new creates another envelope regardless`,
};

/** The hint to show for an error: the CLI's own words when it has them, else the error's. */
export function hintOf(error: unknown): string | undefined {
  if (!(error instanceof SignError)) return undefined;
  const advice = error.reason ? ADVICE[error.reason]?.(error.reasonData, error) : undefined;
  return advice ?? error.hint;
}
