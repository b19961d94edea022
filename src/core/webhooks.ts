/**
 * Webhook signatures. SPEC §6 says only "signed with HMAC", so three schemes
 * are supported and `standard` is the default:
 *
 * standard  Standard Webhooks (https://www.standardwebhooks.com), as Svix:
 *           content = `${webhook-id}.${webhook-timestamp}.${raw body}`,
 *           `webhook-signature: v1,<base64 HMAC-SHA256>` (several, space-separated),
 *           secret `whsec_<base64>` whose base64 part, decoded, is the key.
 * stripe    `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, the
 *           secret string used as is.
 * hmac      An HMAC of the raw body alone in a header of your choice, hex or
 *           base64, SHA-256 or SHA-512 (as DocuSign Connect or GitHub do); it
 *           carries no timestamp, so only de-duplication guards against replays.
 *
 * Verification always runs over the raw bytes received and compares in
 * constant time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { PreparedHmac } from './hmac.js';

export const WEBHOOK_SCHEMES = ['standard', 'stripe', 'hmac'] as const;
export type WebhookScheme = (typeof WEBHOOK_SCHEMES)[number];
export type HmacAlgorithm = 'sha256' | 'sha512';

export const STANDARD_SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;
export const DEFAULT_HMAC_HEADER = 'x-signature';

/** A type, not an interface, so signed headers can be handed straight to `verify()` (a HeaderBag). */
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** A new Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function newStandardSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

const SHA256_BYTES = 32;

/** The bytes of `text` when it is the canonical base64 of exactly `length` bytes (padding included), else undefined. */
export function strictBase64(text: string, length: number): Buffer | undefined {
  if (text.length !== Math.ceil(length / 3) * 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === length && bytes.toString('base64') === text ? bytes : undefined;
}

/** The HMAC key of a Standard Webhooks secret (the base64 part, decoded). */
export function standardSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : secret;
  if (encoded === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new Error('a Standard Webhooks secret is "whsec_" followed by base64');
  }
  return Buffer.from(encoded, 'base64');
}

/** What a Standard Webhooks signature covers, ahead of the raw body: `${id}.${timestamp}.` */
function standardSignedPrefix(id: string, timestampSeconds: number): string {
  return `${id}.${timestampSeconds}.`;
}

/** What a Stripe signature covers, ahead of the raw body: `${t}.` */
function stripeSignedPrefix(timestampSeconds: number): string {
  return `${timestampSeconds}.`;
}

/** The base64 signature of one delivery under the Standard Webhooks scheme. */
export function standardSignature(secret: string | Buffer, id: string, timestampSeconds: number, body: string | Buffer): string {
  const key = typeof secret === 'string' ? standardSecretKey(secret) : secret;
  return createHmac('sha256', key).update(standardSignedPrefix(id, timestampSeconds)).update(body).digest('base64');
}

/** Headers for one delivery attempt, signed with the given secret. */
export function signStandard(secret: string, id: string, timestampSeconds: number, body: string | Buffer): WebhookHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${standardSignature(secret, id, timestampSeconds, body)}`,
  };
}

export function stripeSignature(secret: string, timestampSeconds: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(stripeSignedPrefix(timestampSeconds)).update(body).digest('hex');
}

/** The `Stripe-Signature` header value for a body. */
export function signStripe(secret: string, timestampSeconds: number, body: string | Buffer): string {
  return `t=${timestampSeconds},v1=${stripeSignature(secret, timestampSeconds, body)}`;
}

export function hmacSignature(secret: string, body: string | Buffer, algorithm: HmacAlgorithm = 'sha256', encoding: 'hex' | 'base64' = 'hex'): string {
  return createHmac(algorithm, secret).update(body).digest(encoding);
}

/** Constant-time comparison of two strings of possibly different lengths. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface VerifierOptions {
  scheme?: WebhookScheme;
  /** One or more secrets (several during a rotation); any may match. */
  secrets: readonly string[];
  /** Largest accepted distance between the signed timestamp and now; 0 turns the check off. */
  toleranceSeconds?: number;
  /** hmac scheme: the header carrying the signature. */
  signatureHeader?: string;
  /** hmac scheme: the digest. */
  algorithm?: HmacAlgorithm;
}

export type VerifyFailureCode =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'no_supported_signature'
  | 'signature_mismatch';

export type VerifyResult =
  | { ok: true; id: string | undefined; timestampSeconds: number | undefined; secretIndex: number }
  | { ok: false; status: 400 | 401; code: VerifyFailureCode; reason: string; id: string | undefined };

export type HeaderBag = Record<string, string | string[] | undefined>;

/** A header by its name or an alias (the listener calls this per delivery: no allocations). */
function header(headers: HeaderBag, name: string, alias?: string): string | undefined {
  const value = headers[name] ?? (alias === undefined ? undefined : headers[alias]);
  return Array.isArray(value) ? value.join(' ') : value;
}

/** Verifies deliveries for one scheme and set of secrets; keys are prepared once. */
export class WebhookVerifier {
  readonly scheme: WebhookScheme;
  readonly toleranceSeconds: number;
  readonly signatureHeader: string;
  readonly algorithm: HmacAlgorithm;
  /** One prepared HMAC per secret (the decoded key for the standard scheme, the string itself otherwise). */
  private readonly keys: PreparedHmac[];

  constructor(options: VerifierOptions) {
    this.scheme = options.scheme ?? 'standard';
    this.toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    this.signatureHeader = (options.signatureHeader ?? DEFAULT_HMAC_HEADER).toLowerCase();
    this.algorithm = options.algorithm ?? 'sha256';
    if (options.secrets.length === 0) throw new Error('no webhook secret given');
    this.keys = options.secrets.map((secret, i) => {
      if (this.scheme !== 'standard') return new PreparedHmac(this.scheme === 'hmac' ? this.algorithm : 'sha256', Buffer.from(secret, 'utf8'));
      try {
        return new PreparedHmac('sha256', standardSecretKey(secret));
      } catch {
        throw new Error(`webhook secret #${i + 1} is not a Standard Webhooks secret ("whsec_" followed by base64); use --scheme stripe or hmac for other secrets`);
      }
    });
  }

  /** Verifies one delivery: `headers` with lower-case names, `body` the raw bytes received. */
  verify(headers: HeaderBag, body: Buffer, nowMs = Date.now()): VerifyResult {
    switch (this.scheme) {
      case 'standard':
        return this.verifyStandard(headers, body, nowMs);
      case 'stripe':
        return this.verifyStripe(headers, body, nowMs);
      case 'hmac':
        return this.verifyHmac(headers, body);
    }
  }

  private fail(status: 400 | 401, code: VerifyFailureCode, reason: string, id?: string): VerifyResult {
    return { ok: false, status, code, reason, id };
  }

  /** Replay protection: the signed time must be within the tolerance of now, either way. */
  private checkTimestamp(text: string, headerName: string, nowMs: number, id?: string): VerifyResult | number {
    if (!/^\d{1,12}$/.test(text.trim())) return this.fail(400, 'malformed_header', `${headerName} is not a Unix time in seconds: ${JSON.stringify(text.slice(0, 40))}`, id);
    const timestamp = Number(text.trim());
    if (this.toleranceSeconds > 0) {
      const skew = Math.floor(nowMs / 1000) - timestamp;
      if (skew > this.toleranceSeconds) {
        return this.fail(401, 'timestamp_too_old', `timestamp is ${skew} s old, beyond the ${this.toleranceSeconds} s tolerance (a replay, or a clock out of sync)`, id);
      }
      if (-skew > this.toleranceSeconds) {
        return this.fail(401, 'timestamp_in_future', `timestamp is ${-skew} s in the future, beyond the ${this.toleranceSeconds} s tolerance (check this machine's clock)`, id);
      }
    }
    return timestamp;
  }

  private mismatch(candidates: number, id?: string): VerifyResult {
    const secrets = this.keys.length === 1 ? 'the secret' : `any of the ${this.keys.length} secrets`;
    return this.fail(401, 'signature_mismatch', `signature mismatch: ${candidates} signature${candidates === 1 ? '' : 's'} checked against ${secrets}; the body was changed in transit or the secret is wrong`, id);
  }

  private verifyStandard(headers: HeaderBag, body: Buffer, nowMs: number): VerifyResult {
    const id = header(headers, 'webhook-id', 'svix-id');
    const timestampText = header(headers, 'webhook-timestamp', 'svix-timestamp');
    const signatures = header(headers, 'webhook-signature', 'svix-signature');
    if (!id) return this.fail(401, 'missing_header', 'missing header webhook-id');
    if (!timestampText) return this.fail(401, 'missing_header', 'missing header webhook-timestamp', id);
    if (!signatures) return this.fail(401, 'missing_header', 'missing header webhook-signature', id);
    const timestamp = this.checkTimestamp(timestampText, 'webhook-timestamp', nowMs, id);
    if (typeof timestamp !== 'number') return timestamp;
    // Each "v1,<base64>" is decoded once and compared as bytes in constant time. Only canonical
    // base64 of a SHA-256 digest counts (as the standardwebhooks package): Buffer.from() would skip
    // junk characters and accept missing padding, so decoding alone is not proof of the signed text.
    const candidates: Buffer[] = [];
    let malformed = 0;
    for (const entry of signatures.split(' ')) {
      if (!entry.startsWith('v1,')) continue;
      const decoded = strictBase64(entry.slice(3), SHA256_BYTES);
      if (decoded) candidates.push(decoded);
      else malformed++;
    }
    // A malformed one is a signature that does not match (as the standardwebhooks package says too).
    if (candidates.length === 0) return malformed > 0 ? this.mismatch(malformed, id) : this.fail(401, 'no_supported_signature', 'webhook-signature has no v1 signature', id);
    const signedPrefix = standardSignedPrefix(id, timestamp);
    for (let i = 0; i < this.keys.length; i++) {
      const expected = this.keys[i]!.mac(signedPrefix, body);
      for (const candidate of candidates) {
        if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) {
          return { ok: true, id, timestampSeconds: timestamp, secretIndex: i };
        }
      }
    }
    return this.mismatch(candidates.length + malformed, id);
  }

  private verifyStripe(headers: HeaderBag, body: Buffer, nowMs: number): VerifyResult {
    const value = header(headers, 'stripe-signature');
    if (value === undefined || value.trim() === '') return this.fail(401, 'missing_header', 'missing header stripe-signature');
    let timestampText: string | undefined;
    const v1: string[] = [];
    for (const part of value.split(',')) {
      const at = part.indexOf('=');
      const key = part.slice(0, at).trim();
      const item = part.slice(at + 1).trim();
      if (key === 't') timestampText = item;
      else if (key === 'v1') v1.push(item);
    }
    if (timestampText === undefined) return this.fail(400, 'malformed_header', 'stripe-signature has no t= timestamp');
    const timestamp = this.checkTimestamp(timestampText, 'stripe-signature t=', nowMs);
    if (typeof timestamp !== 'number') return timestamp;
    if (v1.length === 0) return this.fail(401, 'no_supported_signature', 'stripe-signature has no v1= signature');
    for (let i = 0; i < this.keys.length; i++) {
      const expected = this.keys[i]!.mac(stripeSignedPrefix(timestamp), body).toString('hex');
      if (v1.some((candidate) => safeEqual(candidate, expected))) return { ok: true, id: undefined, timestampSeconds: timestamp, secretIndex: i };
    }
    return this.mismatch(v1.length);
  }

  private verifyHmac(headers: HeaderBag, body: Buffer): VerifyResult {
    const value = header(headers, this.signatureHeader);
    if (value === undefined || value.trim() === '') return this.fail(401, 'missing_header', `missing header ${this.signatureHeader}`);
    // GitHub-style "sha256=<hex>" prefixes are accepted.
    const candidate = value.trim().replace(/^(sha256|sha512)=/i, '');
    for (let i = 0; i < this.keys.length; i++) {
      const digest = this.keys[i]!.mac('', body);
      if (safeEqual(candidate.toLowerCase(), digest.toString('hex')) || safeEqual(candidate, digest.toString('base64'))) {
        return { ok: true, id: undefined, timestampSeconds: undefined, secretIndex: i };
      }
    }
    return this.mismatch(1);
  }
}

/** An id for de-duplication when the scheme carries none: the payload's `id`, else a hash of the body. */
export function deliveryId(verifiedId: string | undefined, payload: unknown, body: Buffer): string {
  if (verifiedId) return verifiedId;
  const id = payload && typeof payload === 'object' ? (payload as { id?: unknown }).id : undefined;
  if (typeof id === 'string' && id !== '') return id;
  return `sha256:${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
}
