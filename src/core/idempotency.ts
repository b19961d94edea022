/**
 * Idempotency-Key handling (SPEC §4.1). A create always carries a key; the
 * same key is reused for every retry of that create, so a retry after a lost
 * response returns the first envelope instead of making a second one.
 */
import { randomUUID } from 'node:crypto';
import { UsageError } from './errors.js';

export function newIdempotencyKey(): string {
  return randomUUID();
}

/** Keys are header values: visible ASCII, 1 to 255 characters. */
export function checkIdempotencyKey(key: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new UsageError(
      `--idempotency-key must be 1 to 255 visible ASCII characters without spaces, got ${JSON.stringify(key.slice(0, 40))}`,
      { hint: 'omit it to let sign-cli generate one' },
    );
  }
  return key;
}
