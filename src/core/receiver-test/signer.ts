/**
 * Signs the deliveries `webhooks test` sends, right and wrong on purpose, in
 * each scheme webhooks.ts describes: with the receiver's secret, with another
 * one, with both (a rotation), or not at all.
 */
import { randomBytes } from 'node:crypto';
import { ED25519_PUBLIC_PREFIX, ED25519_SECRET_PREFIX, newEd25519KeyPair } from '../webhooks/ed25519.js';
import {
  STANDARD_SECRET_PREFIX,
  hmacSignature,
  standardEd25519Signature,
  standardSignature,
  stripeSignature,
  type HmacAlgorithm,
  type WebhookScheme,
} from '../webhooks/webhook-signing.js';

export interface SignerOptions {
  scheme: WebhookScheme;
  /** The secret the receiver verifies with: `whsec_…` or a `whsk_…` signing key (standard), any text (stripe, hmac). */
  secret: string;
  /** hmac scheme: the header carrying the signature (lower case). */
  signatureHeader: string;
  algorithm: HmacAlgorithm;
}

export type Headers = Record<string, string>;

export class DeliverySigner {
  readonly scheme: WebhookScheme;
  private readonly options: SignerOptions;

  constructor(options: SignerOptions) {
    if (options.secret.startsWith(ED25519_PUBLIC_PREFIX))
      throw new Error('a whpk_ public key verifies but cannot sign; give the whsk_ signing key');
    const asymmetric = options.secret.startsWith(ED25519_SECRET_PREFIX);
    if (options.scheme === 'standard' && !asymmetric && !options.secret.startsWith(STANDARD_SECRET_PREFIX))
      throw new Error(
        'a Standard Webhooks secret starts with whsec_ (or whsk_ for Ed25519); other secrets need the stripe or the hmac scheme',
      );
    if (options.scheme !== 'standard' && asymmetric)
      throw new Error('an Ed25519 key (whsk_) signs only in the standard scheme');
    this.scheme = options.scheme;
    this.options = { ...options, signatureHeader: options.signatureHeader.toLowerCase() };
    // Refuse a malformed secret here, once, not on every delivery.
    this.signature(options.secret, 'evt_check', 0, '');
  }

  /** A secret of the same kind that is not the receiver's: what a forger would sign with. */
  otherSecret(): string {
    if (this.options.secret.startsWith(ED25519_SECRET_PREFIX)) return newEd25519KeyPair().secretKey;
    if (this.scheme === 'standard') return `${STANDARD_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
    return `forged_${randomBytes(18).toString('base64url')}`;
  }

  /** Whether one header can carry two signatures (the standard and stripe schemes), so a rotation can be shown. */
  get carriesSeveral(): boolean {
    return this.scheme !== 'hmac';
  }

  /** Whether deliveries carry a signed timestamp (not the hmac scheme). */
  get timestamped(): boolean {
    return this.scheme !== 'hmac';
  }

  /**
   * The headers of one delivery, signed by each of `secrets` in that order
   * (default: the receiver's secret alone). `id` is the webhook-id (standard
   * scheme); the other schemes carry the event id only in the body.
   */
  headers(
    id: string,
    timestampSeconds: number,
    body: string | Buffer,
    secrets: readonly string[] = [this.options.secret],
  ): Headers {
    const signatures = secrets.map((secret) => this.signature(secret, id, timestampSeconds, body));
    return this.wrap(id, timestampSeconds, signatures);
  }

  /** Signed twice, as during a rotation: by `other` and by the receiver's secret, `other` first or second. */
  rotation(
    id: string,
    timestampSeconds: number,
    body: string | Buffer,
    other: string,
    otherFirst: boolean,
  ): Headers {
    const own = this.options.secret;
    return this.headers(id, timestampSeconds, body, otherFirst ? [other, own] : [own, other]);
  }

  /** The headers with the signature part replaced by `value` as written (empty, garbled), or left out (undefined). */
  withSignature(id: string, timestampSeconds: number, value: string | undefined): Headers {
    const headers = this.wrap(id, timestampSeconds, ['x']);
    const name = this.signatureHeaderName;
    if (value === undefined) delete headers[name];
    else headers[name] = value;
    return headers;
  }

  /** The header that carries the signature in this scheme. */
  get signatureHeaderName(): string {
    return this.scheme === 'standard'
      ? 'webhook-signature'
      : this.scheme === 'stripe'
        ? 'stripe-signature'
        : this.options.signatureHeader;
  }

  private signature(secret: string, id: string, timestampSeconds: number, body: string | Buffer): string {
    switch (this.scheme) {
      case 'standard':
        return secret.startsWith(ED25519_SECRET_PREFIX)
          ? `v1a,${standardEd25519Signature(secret, id, timestampSeconds, body)}`
          : `v1,${standardSignature(secret, id, timestampSeconds, body)}`;
      case 'stripe':
        return `v1=${stripeSignature(secret, timestampSeconds, body)}`;
      case 'hmac':
        return hmacSignature(secret, body, this.options.algorithm);
    }
  }

  private wrap(id: string, timestampSeconds: number, signatures: readonly string[]): Headers {
    switch (this.scheme) {
      case 'standard':
        return {
          'webhook-id': id,
          'webhook-timestamp': String(timestampSeconds),
          'webhook-signature': signatures.join(' '),
        };
      case 'stripe':
        return { 'stripe-signature': [`t=${timestampSeconds}`, ...signatures].join(',') };
      case 'hmac':
        return { [this.options.signatureHeader]: signatures[0] ?? '' };
    }
  }
}
