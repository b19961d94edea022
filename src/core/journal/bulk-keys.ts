/**
 * The decisions a bulk run makes about one input's key and failure (bulk.ts
 * runs them): which Idempotency-Key it goes out with, whether a failure may
 * still have created the envelope, and what another runner recorded.
 */
import { ApiError, AuthError, InterruptedError, NetworkError, SignError, UsageError } from '../errors.js';
import { derivedIdempotencyKey, newIdempotencyKey } from '../client/idempotency.js';
import { inDoubt, type JournalEntry } from './journal.js';
import { isRetryableStatus } from '../pacing/retry.js';

/** Another runner's attempt at an input failed (or its outcome is in doubt): what it recorded. */
export class SharedOutcomeError extends SignError {
  constructor(readonly entry: JournalEntry) {
    super(
      `another runner sent it with Idempotency-Key ${entry.key} and recorded it ${entry.state === 'failed' ? 'failed' : 'in doubt'}${entry.error ? `: ${entry.error}` : ''}`,
      {
        hint: 'run the same command again to finish it: an input in doubt is sent again with its key',
        reason: 'failed_elsewhere',
      },
    );
  }
}

/**
 * Whether a failed create may still have made an envelope: anything but a
 * clear refusal (4xx other than the retryable ones, auth, invalid input) or a
 * request that never reached the service.
 */
export function mayHaveCreated(error: unknown): boolean {
  if (error instanceof InterruptedError) return error.sent;
  if (error instanceof NetworkError) return !error.nothingSent;
  if (error instanceof UsageError || error instanceof AuthError) return false;
  if (error instanceof ApiError)
    return !(error.status >= 400 && error.status < 500 && !isRetryableStatus(error.status, true));
  return true;
}

/** Which key to send an input with, given what the journal knows; throws when the caller's key would risk a duplicate. */
export function chooseKey(
  options: { fixedKey?: string | undefined; fresh?: boolean | undefined },
  known: JournalEntry | undefined,
  hash: string,
  copy: number,
): string {
  const { fixedKey } = options;
  if (fixedKey !== undefined && known && fixedKey !== known.key && !options.fresh) {
    if (known.state === 'created') {
      throw new UsageError(
        `${known.ref} was already created${known.envelope_id ? ` as ${known.envelope_id}` : ''} with Idempotency-Key ${known.key}; the key given, ${fixedKey}, would create it again`,
        {
          hint: `leave the key out to have it reported as already created, or create another envelope deliberately (fresh keys)`,
          reason: 'key_conflict_created',
          reasonData: { given: fixedKey, known: known.key },
        },
      );
    }
    if (inDoubt(known)) {
      throw new UsageError(
        `${known.ref} was sent by an earlier run with Idempotency-Key ${known.key} and may exist; sending it with ${fixedKey} could create it twice`,
        {
          hint: `send it with ${known.key} (or leave the key out) to finish it safely`,
          reason: 'key_conflict_in_doubt',
          reasonData: { given: fixedKey, known: known.key },
        },
      );
    }
  }
  if (fixedKey !== undefined) return fixedKey;
  if (options.fresh) return newIdempotencyKey();
  // A key in doubt from an earlier run is the only one under which the envelope may exist.
  if (known && inDoubt(known)) return known.key;
  return derivedIdempotencyKey(hash, copy);
}
