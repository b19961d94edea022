/**
 * Envelope states. The published interface shows none (docs/service.md, States); these are
 * the sandbox's (docs/assumptions.md).
 * Apart from client.ts so that commands can name them without loading undici.
 */
export const ENVELOPE_STATUSES = ['sent', 'completed', 'declined', 'failed', 'expired', 'voided'] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

/** States after which nothing more happens. */
export const FINAL_STATUSES = [
  'completed',
  'declined',
  'failed',
  'expired',
  'voided',
] as const satisfies readonly EnvelopeStatus[];
