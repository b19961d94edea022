import { describe, expect, it } from 'vitest';
import { hintOf } from '../../src/cli/help/hints.js';
import { ApiError, SignError, UsageError } from '../../src/core/errors.js';

// The core's hints are neutral (any caller); the CLI words them with its own flags and commands.
describe('hintOf', () => {
  it('words the core reasons with sign-cli flags and commands', () => {
    const notService = new SignError('create envelope: HTTP 202', {
      hint: 'is http://h the signing service? check the base URL',
      reason: 'not_the_service',
      reasonData: { baseUrl: 'http://h', idempotencyKey: 'k-1' },
    });
    expect(hintOf(notService)).toBe(
      "is http://h the signing service? check --base-url, SIGN_BASE_URL or the profile's base URL; it was sent with Idempotency-Key k-1: sending it again with that key cannot create a duplicate",
    );
    const inDoubt = new UsageError('sent earlier', {
      hint: 'send it with first-key',
      reason: 'key_conflict_in_doubt',
      reasonData: { given: 'k2', known: 'first-key' },
    });
    expect(hintOf(inDoubt)).toContain('pass --idempotency-key first-key');
    const missing = new ApiError('resend event: HTTP 404', 404, 'event_not_found', 'no delivery', {
      hint: 'check the event id',
      reason: 'event_not_found',
    });
    expect(hintOf(missing)).toContain('`sign-cli webhooks deliveries`');
    const resent = new ApiError('resend event: HTTP 503', 503, 'x', 'y', {
      hint: 'it may have been queued: the deliveries listing shows whether it was',
      reason: 'maybe_resent',
    });
    expect(hintOf(resent)).toBe(
      'it may have been queued: `sign-cli webhooks deliveries` shows whether it was',
    );
  });

  it('keeps the core hint when the CLI has nothing to add, and has none for other errors', () => {
    expect(hintOf(new SignError('x', { hint: 'the core says so' }))).toBe('the core says so');
    expect(hintOf(new SignError('x', { hint: 'h', reason: 'not_found' }))).toBe('h');
    expect(hintOf(new Error('plain'))).toBeUndefined();
  });
});
