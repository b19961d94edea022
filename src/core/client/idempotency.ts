/**
 * Idempotency-Key handling (docs/service.md, Envelope). A create always
 * carries a key; the same key is reused for every retry of that create, so a
 * retry after a lost response returns the first envelope instead of making a
 * second one.
 *
 * The default key is derived from what is sent: the SHA-256 of the body's
 * canonical JSON (keys sorted), so a re-run of the same input, from any
 * machine and with any spelling of the base URL, carries the same key and
 * the service replays its first answer instead of notifying the signers a
 * second time. The n-th identical input of one run gets its own key
 * (`-2`, `-3`…), so a file that deliberately repeats an envelope still
 * creates each copy once. `--new` asks for fresh random keys instead.
 */
import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson } from '../envelope/canonical-json.js';
import { UsageError } from '../errors.js';

export function newIdempotencyKey(): string {
  return randomUUID();
}

/** The SHA-256 (hex) of a value's canonical JSON: what identifies an input's content. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** The default key of an input: `sc1-` and 48 hex digits of its content hash, plus `-<n>` for the n-th copy (n ≥ 2). */
export function derivedIdempotencyKey(hash: string, copy = 1): string {
  return `sc1-${hash.slice(0, 48)}${copy > 1 ? `-${copy}` : ''}`;
}

/** Keys are header values: visible ASCII, 1 to 255 characters. */
export function checkIdempotencyKey(key: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new UsageError(
      `an Idempotency-Key must be 1 to 255 visible ASCII characters without spaces, got ${JSON.stringify(key.slice(0, 40))}`,
      {
        hint: 'leave it out to have one derived from the envelope',
        reason: 'bad_idempotency_key',
      },
    );
  }
  return key;
}
