/**
 * Webhook signatures. The published interface says only "signed with HMAC"
 * (docs/service.md, Events (webhooks)), so three schemes are supported and
 * `standard` is the default:
 *
 * standard  Standard Webhooks (https://www.standardwebhooks.com), as Svix:
 *           content = `${webhook-id}.${webhook-timestamp}.${raw body}`,
 *           `webhook-signature: v1,<base64 HMAC-SHA256>` with a secret
 *           `whsec_<base64>` (its base64 part, decoded, is the key), and/or
 *           `v1a,<base64 Ed25519 signature>` with a public key `whpk_<base64>`
 *           (signed with its `whsk_<base64>` seed); several signatures,
 *           space-separated, and several keys, of both kinds, for rotation.
 * stripe    `Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`, the
 *           secret string used as is.
 * hmac      An HMAC of the raw body alone in a header of your choice, hex or
 *           base64, SHA-256 or SHA-512 (as DocuSign Connect or GitHub do); it
 *           carries no timestamp, so only de-duplication guards against replays.
 *
 * Verification always runs over the raw bytes received and compares in
 * constant time.
 */
import { createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import {
  ED25519_PUBLIC_PREFIX,
  ED25519_SECRET_PREFIX,
  ed25519PrivateKey,
  ed25519PublicKey,
  ed25519Verify,
} from './ed25519.js';
import { PreparedHmac } from './hmac.js';
import {
  bodyVariants,
  header,
  otherScheme,
  standardSignatures,
  stripeSignatureParts,
  type HeaderBag,
  type SchemeSuggestion,
} from './webhook-parsing.js';
import {
  DEFAULT_HMAC_HEADER,
  DEFAULT_TOLERANCE_SECONDS,
  safeEqual,
  standardSecretKey,
  standardSignedPrefix,
  stripeSignedPrefix,
  type HmacAlgorithm,
  type WebhookScheme,
} from './webhook-signing.js';

// Signing lives in webhook-signing.ts; importers of this module get both.
export * from './webhook-signing.js';

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
  /** Signed with another scheme than the one configured (a Stripe-Signature under `standard`…). */
  | 'other_scheme'
  /** Signed only with kinds of key not given (v1a with only whsec_ secrets, v1 with only whpk_ keys). */
  | 'key_kind_mismatch'
  /** The signature matches the body as it was sent, not as received: a proxy or framework changed it. */
  | 'body_altered'
  /** No key matches: the secret is not the sender's (or the body was rewritten beyond repair). */
  | 'signature_mismatch';

export type VerifyResult =
  | { ok: true; id: string | undefined; timestampSeconds: number | undefined; secretIndex: number }
  | {
      ok: false;
      status: 400 | 401;
      code: VerifyFailureCode;
      reason: string;
      id: string | undefined;
      /** With `other_scheme`: the scheme (and signature header) the delivery verifies with. */
      suggestion?: SchemeSuggestion;
    };

/** Verifies deliveries for one scheme and set of secrets; keys are prepared once. */
export class WebhookVerifier {
  readonly scheme: WebhookScheme;
  readonly toleranceSeconds: number;
  readonly signatureHeader: string;
  readonly algorithm: HmacAlgorithm;
  /** One prepared HMAC per HMAC secret (the decoded key for the standard scheme, the string itself otherwise). */
  private readonly keys: PreparedHmac[] = [];
  /** The Ed25519 public keys (standard scheme, `v1a`). */
  private readonly publicKeys: KeyObject[] = [];
  /** Each key's position among the secrets given, for `secretIndex`: HMAC keys first, then public keys. */
  private readonly positions: number[] = [];

  constructor(options: VerifierOptions) {
    this.scheme = options.scheme ?? 'standard';
    this.toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    this.signatureHeader = (options.signatureHeader ?? DEFAULT_HMAC_HEADER).toLowerCase();
    this.algorithm = options.algorithm ?? 'sha256';
    if (options.secrets.length === 0) throw new Error('no webhook secret given');
    const publicPositions: number[] = [];
    options.secrets.forEach((secret, i) => {
      const asymmetric = secret.startsWith(ED25519_PUBLIC_PREFIX) || secret.startsWith(ED25519_SECRET_PREFIX);
      if (this.scheme !== 'standard') {
        if (asymmetric)
          throw new Error(
            `webhook secret #${i + 1} is an Ed25519 key, which only the standard scheme uses (v1a)`,
          );
        this.keys.push(
          new PreparedHmac(this.scheme === 'hmac' ? this.algorithm : 'sha256', Buffer.from(secret, 'utf8')),
        );
        this.positions.push(i);
        return;
      }
      try {
        if (asymmetric) {
          // A whsk_ signing key verifies too (its public half), as in the Standard Webhooks libraries.
          this.publicKeys.push(
            secret.startsWith(ED25519_PUBLIC_PREFIX)
              ? ed25519PublicKey(secret)
              : createPublicKey(ed25519PrivateKey(secret)),
          );
          publicPositions.push(i);
        } else {
          this.keys.push(new PreparedHmac('sha256', standardSecretKey(secret)));
          this.positions.push(i);
        }
      } catch (error) {
        throw new Error(
          asymmetric
            ? `webhook secret #${i + 1}: ${(error as Error).message}`
            : `webhook secret #${i + 1} is not a Standard Webhooks secret ("whsec_" or "whpk_" followed by base64); other secrets need the stripe or the hmac scheme`,
          { cause: error },
        );
      }
    });
    this.positions.push(...publicPositions);
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

  private otherScheme(other: { reason: string; suggestion: SchemeSuggestion }): VerifyResult {
    return { ...this.fail(401, 'other_scheme', other.reason), suggestion: other.suggestion } as VerifyResult;
  }

  private fail(status: 400 | 401, code: VerifyFailureCode, reason: string, id?: string): VerifyResult {
    return { ok: false, status, code, reason, id };
  }

  /** Replay protection: the signed time must be within the tolerance of now, either way. */
  private checkTimestamp(
    text: string,
    headerName: string,
    nowMs: number,
    id?: string,
  ): VerifyResult | number {
    if (!/^\d{1,12}$/.test(text.trim()))
      return this.fail(
        400,
        'malformed_header',
        `${headerName} is not a Unix time in seconds: ${JSON.stringify(text.slice(0, 40))}`,
        id,
      );
    const timestamp = Number(text.trim());
    if (this.toleranceSeconds > 0) {
      const skew = Math.floor(nowMs / 1000) - timestamp;
      if (skew > this.toleranceSeconds) {
        return this.fail(
          401,
          'timestamp_too_old',
          `timestamp is ${skew} s old, beyond the ${this.toleranceSeconds} s tolerance (a replay, or a clock out of sync)`,
          id,
        );
      }
      if (-skew > this.toleranceSeconds) {
        return this.fail(
          401,
          'timestamp_in_future',
          `timestamp is ${-skew} s in the future, beyond the ${this.toleranceSeconds} s tolerance (check this machine's clock)`,
          id,
        );
      }
    }
    return timestamp;
  }

  private mismatch(candidates: number, id?: string): VerifyResult {
    const count = this.keys.length + this.publicKeys.length;
    const secrets = count === 1 ? 'the secret' : `any of the ${count} secrets`;
    return this.fail(
      401,
      'signature_mismatch',
      `signature mismatch: ${candidates} signature${candidates === 1 ? '' : 's'} checked against ${secrets}; wrong secret (not the one the sender signs with), or a body rewritten in transit`,
      id,
    );
  }

  private verifyStandard(headers: HeaderBag, body: Buffer, nowMs: number): VerifyResult {
    const id = header(headers, 'webhook-id', 'svix-id');
    const timestampText = header(headers, 'webhook-timestamp', 'svix-timestamp');
    const signatures = header(headers, 'webhook-signature', 'svix-signature');
    if (!id && !timestampText && !signatures) {
      const other = otherScheme(headers, 'standard');
      if (other) return this.otherScheme(other);
    }
    if (!id) return this.fail(401, 'missing_header', 'missing header webhook-id');
    if (!timestampText) return this.fail(401, 'missing_header', 'missing header webhook-timestamp', id);
    if (!signatures) return this.fail(401, 'missing_header', 'missing header webhook-signature', id);
    const timestamp = this.checkTimestamp(timestampText, 'webhook-timestamp', nowMs, id);
    if (typeof timestamp !== 'number') return timestamp;
    // Each "v1,<base64>" (HMAC) and "v1a,<base64>" (Ed25519), decoded once (strictly: webhook-parsing.ts).
    const { hmacs, edSignatures, malformed, versions } = standardSignatures(signatures);
    if (hmacs.length === 0 && edSignatures.length === 0) {
      // A malformed one is a signature that does not match (as the standardwebhooks package says too).
      if (malformed > 0) return this.mismatch(malformed, id);
      const found =
        versions.size > 0
          ? ` (found ${[...versions]
              .slice(0, 3)
              .map((v) => JSON.stringify(v.slice(0, 12)))
              .join(', ')})`
          : '';
      return this.fail(
        401,
        'no_supported_signature',
        `webhook-signature has no v1 or v1a signature${found}`,
        id,
      );
    }
    const signedPrefix = standardSignedPrefix(id, timestamp);
    const match = this.matchStandard(signedPrefix, body, hmacs, edSignatures);
    if (match >= 0) return { ok: true, id, timestampSeconds: timestamp, secretIndex: this.positions[match]! };
    // Nothing matched: say why, in the terms a person can act on.
    if (hmacs.length > 0 && this.keys.length === 0 && edSignatures.length === 0) {
      return this.fail(
        401,
        'key_kind_mismatch',
        `signed with HMAC (v1) only, but only Ed25519 public keys (whpk_) were given; add the sender's whsec_ secret`,
        id,
      );
    }
    if (edSignatures.length > 0 && this.publicKeys.length === 0 && hmacs.length === 0) {
      return this.fail(
        401,
        'key_kind_mismatch',
        `signed with Ed25519 (v1a) only, but no public key (whpk_) was given; add the sender's whpk_ key to the secrets`,
        id,
      );
    }
    const altered = this.alteration(signedPrefix, body, hmacs, edSignatures);
    if (altered) {
      return this.fail(
        401,
        'body_altered',
        `body altered in transit (${altered}): the signature matches the body as it was sent, not as received; verify the raw bytes, before any parsing or re-encoding`,
        id,
      );
    }
    return this.mismatch(hmacs.length + edSignatures.length + malformed, id);
  }

  /** The index (HMAC keys, then public keys) of the key that made one of the signatures, or -1. */
  private matchStandard(signedPrefix: string, body: Buffer, hmacs: Buffer[], edSignatures: Buffer[]): number {
    if (hmacs.length > 0) {
      for (let i = 0; i < this.keys.length; i++) {
        const expected = this.keys[i]!.mac(signedPrefix, body);
        for (const candidate of hmacs)
          if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return i;
      }
    }
    if (edSignatures.length > 0 && this.publicKeys.length > 0) {
      const content = Buffer.concat([Buffer.from(signedPrefix), body]);
      for (let i = 0; i < this.publicKeys.length; i++) {
        for (const candidate of edSignatures)
          if (ed25519Verify(this.publicKeys[i]!, content, candidate)) return this.keys.length + i;
      }
    }
    return -1;
  }

  /**
   * After a mismatch only (never on the hot path): whether the signature fits
   * the body as a proxy or framework commonly changes it (a newline added or
   * taken away, line ends converted, a byte-order mark, JSON re-serialised).
   * Then the secret is right and the body is what changed.
   */
  private alteration(
    signedPrefix: string,
    body: Buffer,
    hmacs: Buffer[],
    edSignatures: Buffer[],
  ): string | undefined {
    for (const [how, variant] of bodyVariants(body))
      if (this.matchStandard(signedPrefix, variant, hmacs, edSignatures) >= 0) return how;
    return undefined;
  }

  private verifyStripe(headers: HeaderBag, body: Buffer, nowMs: number): VerifyResult {
    const value = header(headers, 'stripe-signature');
    if (value === undefined || value.trim() === '') {
      const other = otherScheme(headers, 'stripe');
      return other
        ? this.otherScheme(other)
        : this.fail(401, 'missing_header', 'missing header stripe-signature');
    }
    const { timestampText, v1 } = stripeSignatureParts(value);
    if (timestampText === undefined)
      return this.fail(400, 'malformed_header', 'stripe-signature has no t= timestamp');
    const timestamp = this.checkTimestamp(timestampText, 'stripe-signature t=', nowMs);
    if (typeof timestamp !== 'number') return timestamp;
    if (v1.length === 0)
      return this.fail(401, 'no_supported_signature', 'stripe-signature has no v1= signature');
    for (let i = 0; i < this.keys.length; i++) {
      const expected = this.keys[i]!.mac(stripeSignedPrefix(timestamp), body).toString('hex');
      if (v1.some((candidate) => safeEqual(candidate, expected)))
        return { ok: true, id: undefined, timestampSeconds: timestamp, secretIndex: i };
    }
    return this.mismatch(v1.length);
  }

  private verifyHmac(headers: HeaderBag, body: Buffer): VerifyResult {
    const value = header(headers, this.signatureHeader);
    if (value === undefined || value.trim() === '') {
      const other = otherScheme(headers, 'hmac');
      return other
        ? this.otherScheme(other)
        : this.fail(401, 'missing_header', `missing header ${this.signatureHeader}`);
    }
    // GitHub-style "sha256=<hex>" prefixes are accepted.
    const candidate = value.trim().replace(/^(sha256|sha512)=/i, '');
    for (let i = 0; i < this.keys.length; i++) {
      const digest = this.keys[i]!.mac('', body);
      if (
        safeEqual(candidate.toLowerCase(), digest.toString('hex')) ||
        safeEqual(candidate, digest.toString('base64'))
      ) {
        return { ok: true, id: undefined, timestampSeconds: undefined, secretIndex: i };
      }
    }
    return this.mismatch(1);
  }
}
