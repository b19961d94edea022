/**
 * One envelope for a person is one envelope on the wire. The same text can
 * come in other bytes: a name in Unicode NFD (macOS, copy and paste) rather
 * than NFC, a trailing space, `Amal@Example.COM` rather than
 * `Amal@example.com`. Before an envelope is validated, its Idempotency-Key
 * derived and it is sent, every string is NFC-normalised and trimmed, and
 * each signer's e-mail domain is lower-cased (domains are case-insensitive;
 * the part before the @ is kept as given: some mail systems tell it apart
 * by case), and each phone is written in E.164 where it means one number
 * (`+966 50 123 4567`, `00966…`, Arabic-Indic digits). What still differs
 * (another signer, another version) stays a different envelope.
 *
 * Why it runs at three places on the CLI's way to the wire (the CLI's input reader, runBulk,
 * SignClient.createEnvelope) and not once: each needs the normalised form itself (the reader
 * for what a dry run shows and validation names, runBulk for the content hash its key derives
 * from, the client for the body it sends: the key and the body must agree), and neither
 * runBulk's exactly-once nor the public client may depend on a caller having done it. It is idempotent, and
 * costs a few microseconds an envelope against the milliseconds of a request, so a second
 * pass changes nothing and a missed one would send one envelope as two. Validation runs twice
 * for a like reason: every input before the first is sent (a batch with one bad input sends
 * nothing), then in the client, the guard no caller can bypass.
 *
 * Apart from envelope.ts so that reading input needs no zod.
 */
import { isRecord } from './records.js';
import { normalizePhone } from './phone.js';

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
    Object.defineProperty(out, name, {
      value: normalizeValue(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

export interface NormalizeOptions {
  /** ISO 3166 country (`SA`) whose national numbers (`0501234567`) become E.164; otherwise they are refused. */
  defaultCountry?: string;
}

/**
 * The envelope as it will be sent: a new value, the input untouched. Values
 * that are not envelopes (an array, a number) come back as they are, strings
 * in them normalised, for validation to judge. Each phone that means one
 * number without doubt becomes E.164 (phone.ts).
 */
export function normalizeEnvelope<T>(envelope: T, options: NormalizeOptions = {}): T {
  const out = normalizeValue(envelope, 0);
  if (isRecord(out) && Array.isArray(out.signers)) {
    out.signers = (out.signers as unknown[]).map((signer) => {
      if (!isRecord(signer)) return signer;
      const next = { ...signer };
      if (typeof signer.email === 'string') next.email = normalizeEmail(signer.email);
      if (typeof signer.phone === 'string' && signer.phone !== '')
        next.phone = normalizePhone(signer.phone, options.defaultCountry);
      return next;
    });
  }
  return out as T;
}
