/**
 * Taking a webhook delivery apart for the verifier (webhooks.ts): a header by
 * its name or alias, each scheme's signature header split into what it signs
 * with, the id a delivery is de-duplicated by; and, when nothing matches, what
 * else it could be: another scheme's headers, or a body changed in transit.
 * Apart from the verifier, which keeps the keys, the matching and the verdicts.
 */
import { createHash } from 'node:crypto';
import { ED25519_SIGNATURE_BYTES } from './ed25519.js';
import type { WebhookScheme } from './webhook-schemes.js';
import { SHA256_BYTES, strictBase64 } from './webhook-signing.js';

export type HeaderBag = Record<string, string | string[] | undefined>;

/** The scheme a delivery signed another way verifies with. */
export interface SchemeSuggestion {
  scheme: WebhookScheme;
  signatureHeader?: string;
}

/** A header by its name or an alias (the listener calls this per delivery: no allocations). */
export function header(headers: HeaderBag, name: string, alias?: string): string | undefined {
  const value = headers[name] ?? (alias === undefined ? undefined : headers[alias]);
  return Array.isArray(value) ? value.join(' ') : value;
}

/** The signatures of a Standard Webhooks `webhook-signature` header. */
export interface StandardSignatures {
  /** The `v1` (HMAC-SHA256) signatures, decoded. */
  hmacs: Buffer[];
  /** The `v1a` (Ed25519) signatures, decoded. */
  edSignatures: Buffer[];
  /** The `v1` and `v1a` signatures that are not canonical base64 of the right length. */
  malformed: number;
  /** The versions of the other signatures (none the verifier knows). */
  versions: Set<string>;
}

/** The space-separated signatures of a `webhook-signature` header, each decoded once. */
export function standardSignatures(value: string): StandardSignatures {
  // Only canonical base64 of the right length counts (as the standardwebhooks package): Buffer.from()
  // would skip junk characters and accept missing padding, so decoding alone is not proof of the signed text.
  const hmacs: Buffer[] = [];
  const edSignatures: Buffer[] = [];
  let malformed = 0;
  const versions = new Set<string>();
  for (const entry of value.split(' ')) {
    if (entry.startsWith('v1,')) {
      const decoded = strictBase64(entry.slice(3), SHA256_BYTES);
      if (decoded) hmacs.push(decoded);
      else malformed++;
    } else if (entry.startsWith('v1a,')) {
      const decoded = strictBase64(entry.slice(4), ED25519_SIGNATURE_BYTES);
      if (decoded) edSignatures.push(decoded);
      else malformed++;
    } else if (entry.includes(',')) versions.add(entry.slice(0, entry.indexOf(',')));
  }
  return { hmacs, edSignatures, malformed, versions };
}

/** A `Stripe-Signature` header's `t=` timestamp (as sent) and its `v1=` signatures. */
export function stripeSignatureParts(value: string): { timestampText: string | undefined; v1: string[] } {
  let timestampText: string | undefined;
  const v1: string[] = [];
  for (const part of value.split(',')) {
    const at = part.indexOf('=');
    const key = part.slice(0, at).trim();
    const item = part.slice(at + 1).trim();
    if (key === 't') timestampText = item;
    else if (key === 'v1') v1.push(item);
  }
  return { timestampText, v1 };
}

/** When a delivery carries another scheme's signature headers: what it is, and the scheme that verifies it. */
export function otherScheme(
  headers: HeaderBag,
  current: WebhookScheme,
): { reason: string; suggestion: SchemeSuggestion } | undefined {
  if (
    current !== 'standard' &&
    (headers['webhook-signature'] !== undefined || headers['svix-signature'] !== undefined)
  ) {
    return {
      reason: `signed the Standard Webhooks way (webhook-signature), not ${current}`,
      suggestion: { scheme: 'standard' },
    };
  }
  if (current !== 'stripe' && headers['stripe-signature'] !== undefined)
    return {
      reason: `signed the Stripe way (stripe-signature), not ${current}`,
      suggestion: { scheme: 'stripe' },
    };
  if (current === 'standard') {
    const named = ['x-hub-signature-256', 'x-signature', 'x-docusign-signature-1'].find(
      (name) => headers[name] !== undefined,
    );
    if (named)
      return {
        reason: `signed with a plain HMAC in ${named}, not the Standard Webhooks way`,
        suggestion: { scheme: 'hmac', signatureHeader: named },
      };
  }
  return undefined;
}

/** The ways a body is commonly changed between sender and receiver, each as the body before the change. */
export function* bodyVariants(body: Buffer): Generator<[string, Buffer]> {
  const text = body.toString('utf8');
  if (text.startsWith('\ufeff')) yield ['a byte-order mark added', Buffer.from(text.slice(1))];
  if (/\r?\n$/.test(text)) yield ['a trailing newline added', Buffer.from(text.replace(/\r?\n$/, ''))];
  else yield ['a trailing newline removed', Buffer.from(`${text}\n`)];
  if (text.includes('\r\n')) yield ['line ends converted to CRLF', Buffer.from(text.replace(/\r\n/g, '\n'))];
  else if (text.includes('\n')) yield ['line ends converted to LF', Buffer.from(text.replace(/\n/g, '\r\n'))];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  const compact = JSON.stringify(parsed);
  if (compact !== text) yield ['the JSON re-serialised', Buffer.from(compact)];
  const pretty = JSON.stringify(parsed, null, 2);
  if (pretty !== text) yield ['the JSON re-serialised', Buffer.from(pretty)];
}

/** An id for de-duplication when the scheme carries none: the payload's `id`, else a hash of the body. */
export function deliveryId(verifiedId: string | undefined, payload: unknown, body: Buffer): string {
  if (verifiedId) return verifiedId;
  const id = payload && typeof payload === 'object' ? (payload as { id?: unknown }).id : undefined;
  if (typeof id === 'string' && id !== '') return id;
  return `sha256:${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
}
