/**
 * Each signer's link, `/s/<token>`, as the service would send it: 32 base64url
 * characters (192 bits) of HMAC-SHA256 over the envelope's and the signer's
 * ids, keyed by a key derived from the sandbox's own API key. Nothing to
 * store or strip from API answers, the same after a restart, and not
 * guessable without the sandbox's secret. A link outlives nothing: once the
 * envelope has ended its page only says how it ended.
 */
import { createHmac } from 'node:crypto';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import type { SandboxStore } from '../store/store.js';

export interface SignerLink {
  envelope: EnvelopeRecord;
  signer: SignerRecord;
}

export class SignerLinks {
  private readonly key: Buffer;
  /** token -> ids, rebuilt when envelopes were added since it was last built. */
  private index = new Map<string, { envelopeId: string; signerId: string }>();
  private indexed = -1;

  constructor(
    private readonly store: SandboxStore,
    sandboxSecret: string,
  ) {
    this.key = createHmac('sha256', sandboxSecret).update('sign-cli sandbox signer links v1').digest();
  }

  token(envelope: EnvelopeRecord, signer: SignerRecord): string {
    return createHmac('sha256', this.key)
      .update(`${envelope.id}\u0000${signer.id}`)
      .digest('base64url')
      .slice(0, 32);
  }

  path(envelope: EnvelopeRecord, signer: SignerRecord): string {
    return `/s/${this.token(envelope, signer)}`;
  }

  resolve(token: string): SignerLink | undefined {
    if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return undefined;
    if (!this.index.has(token) && this.indexed !== this.store.envelopes.size) this.rebuild();
    const found = this.index.get(token);
    const envelope = found && this.store.envelopes.get(found.envelopeId);
    const signer = envelope?.signers.find((s) => s.id === found!.signerId);
    return envelope && signer ? { envelope, signer } : undefined;
  }

  private rebuild(): void {
    this.index = new Map();
    for (const envelope of this.store.envelopes.values())
      for (const signer of envelope.signers)
        this.index.set(this.token(envelope, signer), { envelopeId: envelope.id, signerId: signer.id });
    this.indexed = this.store.envelopes.size;
  }
}
