/**
 * The shape and types of the service's envelope and signer (docs/service.md, Envelope), as zod
 * schemas (zod/mini: the same checks and messages as zod's chained API, at half its start-up cost,
 * which every `validate` and `create` pays; the schemas still offer parse and safeParse). The rules
 * between fields are envelope.ts's.
 */
import * as z from 'zod/mini';
import { MAX_BODY_BYTES } from '../endpoints.js';

const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** zod error callback: "is required" when absent, else what was expected and what came. */
const expected = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `is required (${what})` : `must be ${what}, got ${describe(issue.input)}`;

/**
 * Sanity caps no real service would exceed (the published interface shows no
 * bounds: docs/service.md, Limits; the service decides below them): they keep a
 * runaway generator or a hostile file from being sent at all. docs/assumptions.md.
 */
export const LOCAL_LIMITS = { string: 10_000, signers: 1_000, bodyBytes: MAX_BODY_BYTES } as const;

const tooLong = (i: { input?: unknown }) =>
  `must be at most ${LOCAL_LIMITS.string.toLocaleString('en-US')} characters, got ${typeof i.input === 'string' ? i.input.length.toLocaleString('en-US') : '?'}`;

const nonEmptyString = (what = 'a non-empty string') =>
  z
    .string({ error: expected(what) })
    .check(
      z.trim(),
      z.minLength(1, { error: 'must not be empty' }),
      z.maxLength(LOCAL_LIMITS.string, { error: tooLong }),
    );

const positiveInteger = z
  .number({ error: expected('a positive integer') })
  .check(
    z.int({ error: (i) => `must be a positive integer, got ${describe(i.input)}` }),
    z.positive({ error: (i) => `must be a positive integer (1 or more), got ${describe(i.input)}` }),
  );

const httpUrl = z.string({ error: expected('an absolute http(s) URL') }).check(
  z.maxLength(LOCAL_LIMITS.string, { error: tooLong }),
  z.refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    },
    {
      error: (i) =>
        `must be an absolute http(s) URL such as https://example.com/hooks, got ${describe(i.input)}`,
    },
  ),
);

export const signerSchema = z.looseObject(
  {
    name: nonEmptyString(),
    email: z.optional(
      z.string({ error: expected('an e-mail address') }).check(
        z.maxLength(LOCAL_LIMITS.string, { error: tooLong }),
        z.regex(EMAIL_RE, {
          error: (i) => `must be an e-mail address such as name@example.com, got ${describe(i.input)}`,
        }),
      ),
    ),
    // What a number may be is phone.ts's (libphonenumber, for its country): checked with the rules between fields below.
    phone: z.optional(
      z
        .string({ error: expected('a phone number in international form') })
        .check(z.maxLength(LOCAL_LIMITS.string, { error: tooLong })),
    ),
    order: z.optional(
      z
        .number({ error: expected('an integer from 1') })
        .check(
          z.int({ error: (i) => `must be an integer from 1, got ${describe(i.input)}` }),
          z.gte(1, { error: (i) => `must be an integer from 1, got ${describe(i.input)}` }),
        ),
    ),
    channel: nonEmptyString('a channel name such as "email" or "whatsapp"'),
    verification: z.optional(nonEmptyString('a verification method name')),
  },
  { error: expected('a signer object') },
);

export const envelopeSchema = z.looseObject(
  {
    title: nonEmptyString(),
    contract_id: z.optional(nonEmptyString()),
    document: z.looseObject(
      {
        template_id: nonEmptyString(),
        version: positiveInteger,
      },
      { error: expected('an object with template_id and version') },
    ),
    signers: z.array(signerSchema, { error: expected('an array of signer objects') }).check(
      z.minLength(1, { error: 'must list at least one signer' }),
      z.maxLength(LOCAL_LIMITS.signers, {
        error: (i) =>
          `must list at most ${LOCAL_LIMITS.signers.toLocaleString('en-US')} signers, got ${Array.isArray(i.input) ? i.input.length.toLocaleString('en-US') : '?'}`,
      }),
    ),
    sequential: z.optional(z.boolean({ error: expected('true or false') })),
    signature_level: z.optional(nonEmptyString('a signature level name')),
    expires_in_days: z.optional(positiveInteger),
    locale: z.optional(nonEmptyString('a language code such as "ar"')),
    webhook_url: z.optional(httpUrl),
  },
  { error: expected('a JSON object (an envelope)') },
);

/** A signer as sent (docs/service.md, Envelope): what `createEnvelope` takes. */
export type SignerInput = z.input<typeof signerSchema>;
/**
 * An envelope creation request (docs/service.md, Envelope): what `createEnvelope` takes, checked at
 * compile time.
 */
export type EnvelopeInput = z.input<typeof envelopeSchema>;
/** @deprecated use SignerInput */
export type Signer = SignerInput;

/**
 * Envelope states the CLI knows (the published interface shows none: docs/service.md, States;
 * docs/assumptions.md). A service may report others.
 */
export type EnvelopeStatus = 'sent' | 'completed' | 'declined' | 'failed' | 'expired' | 'voided';

/** A signer as the service returns it: the request's fields, plus its id and state. */
export interface SignerState extends Partial<SignerInput> {
  id?: string;
  status?: string;
}

/**
 * An envelope as the service returns it. The published interface does not show
 * the response fields (docs/service.md, Envelope): the request's fields come back
 * with an `id` (always present: the client refuses an answer without one) and,
 * from the sandbox, `status`, timestamps and each signer's id and state. Other
 * fields pass through.
 */
export interface Envelope {
  id: string;
  status?: EnvelopeStatus | (string & {});
  title?: string;
  contract_id?: string;
  document?: { template_id: string; version: number };
  signers?: SignerState[];
  sequential?: boolean;
  signature_level?: string;
  expires_in_days?: number;
  locale?: string;
  webhook_url?: string;
  created_at?: string;
  updated_at?: string;
  expires_at?: string | null;
  [field: string]: unknown;
}
