/**
 * One envelope for a person is one envelope on the wire. The same text can
 * come in other bytes: a name in Unicode NFD (macOS, copy and paste) rather
 * than NFC, a trailing space, `Amal@Example.COM` rather than
 * `Amal@example.com`. Before an envelope is validated, its Idempotency-Key
 * derived and it is sent, every string is NFC-normalised and trimmed, and
 * each signer's e-mail domain is lower-cased (domains are case-insensitive;
 * the part before the @ is kept as given: some mail systems tell it apart
 * by case). What still differs (another signer, another version) stays a
 * different envelope.
 *
 * Apart from envelope.ts so that reading input needs no zod.
 */
import { isRecord } from './records.js';

const text = (value: string): string => value.normalize('NFC').trim();

/** `Amal@Example.COM` → `Amal@example.com`; anything that is not an address is only trimmed. */
export function normalizeEmail(value: string): string {
  const trimmed = text(value);
  const at = trimmed.lastIndexOf('@');
  return at <= 0 ? trimmed : `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

function normalizeValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return text(value);
  // Far deeper than an envelope goes: left as it is, for validation to refuse (no recursion without end).
  if (depth > 64) return value;
  if (Array.isArray(value)) return value.map((item) => normalizeValue(item, depth + 1));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    // A "__proto__" key from JSON is data: defined, never assigned (an assignment would set the prototype).
    Object.defineProperty(out, name, { value: normalizeValue(item, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * The envelope as it will be sent: a new value, the input untouched. Values
 * that are not envelopes (an array, a number) come back as they are, strings
 * in them normalised, for validation to judge.
 */
export function normalizeEnvelope<T>(envelope: T): T {
  const out = normalizeValue(envelope, 0);
  if (isRecord(out) && Array.isArray(out.signers)) {
    out.signers = out.signers.map((signer) => (isRecord(signer) && typeof signer.email === 'string' ? { ...signer, email: normalizeEmail(signer.email) } : signer));
  }
  return out as T;
}
