/**
 * The shape and types of the service's envelope and signer (docs/service.md, Envelope: each
 * field's type, length and form), as plain code: what `validateEnvelope` runs (the rules between
 * fields are envelope.ts's), what the CSV templates and the interactive prompt read. It reports
 * what the zod schema of zod-schema.ts reports (which `sign-cli mcp` publishes): the same issues,
 * messages and order, its pieces following zod's rules (shape-checks.ts);
 * test/core/envelope-shape.test.ts holds the two equal on every input it generates. zod builds its
 * schemas through its own machinery when loaded and runs them through more: on `envelopes
 * validate` that was a fifth of the start-up over a bare Node (docs/assumptions.md, Start-up).
 */
import { MAX_BODY_BYTES } from '../endpoints.js';
import {
  array,
  atLeast,
  looseObject,
  matches,
  maxLength,
  minLength,
  optional,
  safeInteger,
  scalar,
  trim,
  type Message,
} from './shape-checks.js';

export { shapeIssues, type Shape, type ShapeIssue } from './shape-checks.js';

/** A value as a message names it: `the string "x"`, `the number 3`, `an array`, … */
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

/** A field of the wrong type: "is required" when absent, else what was expected and what came. */
export const expected = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `is required (${what})` : `must be ${what}, got ${describe(issue.input)}`;

/**
 * Sanity caps no real service would exceed (the published interface shows no
 * bounds: docs/service.md, Limits; the service decides below them): they keep a
 * runaway generator or a hostile file from being sent at all. docs/assumptions.md.
 */
export const LOCAL_LIMITS = { string: 10_000, signers: 1_000, bodyBytes: MAX_BODY_BYTES } as const;

export const tooLong = (i: { input?: unknown }) =>
  `must be at most ${LOCAL_LIMITS.string.toLocaleString('en-US')} characters, got ${typeof i.input === 'string' ? i.input.length.toLocaleString('en-US') : '?'}`;

export const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** An absolute http(s) URL with a host. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

// The messages of the checks below, shared with zod-schema.ts.
export const MESSAGES = {
  empty: 'must not be empty',
  email: (i: { input?: unknown }) =>
    `must be an e-mail address such as name@example.com, got ${describe(i.input)}`,
  url: (i: { input?: unknown }) =>
    `must be an absolute http(s) URL such as https://example.com/hooks, got ${describe(i.input)}`,
  positiveInteger: (i: { input?: unknown }) => `must be a positive integer, got ${describe(i.input)}`,
  positive: (i: { input?: unknown }) => `must be a positive integer (1 or more), got ${describe(i.input)}`,
  order: (i: { input?: unknown }) => `must be an integer from 1, got ${describe(i.input)}`,
  noSigner: 'must list at least one signer',
  tooManySigners: (i: { input?: unknown }) =>
    `must list at most ${LOCAL_LIMITS.signers.toLocaleString('en-US')} signers, got ${Array.isArray(i.input) ? i.input.length.toLocaleString('en-US') : '?'}`,
} as const satisfies Record<string, Message | string>;

const nonEmptyString = (what = 'a non-empty string') =>
  scalar('string', expected(what), [
    trim,
    minLength(1, MESSAGES.empty),
    maxLength(LOCAL_LIMITS.string, tooLong),
  ]);

const positiveInteger = scalar('number', expected('a positive integer'), [
  safeInteger(MESSAGES.positiveInteger),
  atLeast(0, false, MESSAGES.positive),
]);

export const SIGNER_SHAPE = looseObject(
  {
    name: nonEmptyString(),
    email: optional(
      scalar('string', expected('an e-mail address'), [
        maxLength(LOCAL_LIMITS.string, tooLong),
        matches((value) => EMAIL_RE.test(value), MESSAGES.email),
      ]),
    ),
    // What a number may be is phone.ts's (libphonenumber, for its country): checked with the rules between fields (envelope.ts).
    phone: optional(
      scalar('string', expected('a phone number in international form'), [
        maxLength(LOCAL_LIMITS.string, tooLong),
      ]),
    ),
    order: optional(
      scalar('number', expected('an integer from 1'), [
        safeInteger(MESSAGES.order),
        atLeast(1, true, MESSAGES.order),
      ]),
    ),
    channel: nonEmptyString('a channel name such as "email" or "whatsapp"'),
    verification: optional(nonEmptyString('a verification method name')),
  },
  expected('a signer object'),
);

export const ENVELOPE_SHAPE = looseObject(
  {
    title: nonEmptyString(),
    contract_id: optional(nonEmptyString()),
    document: looseObject(
      { template_id: nonEmptyString(), version: positiveInteger },
      expected('an object with template_id and version'),
    ),
    signers: array(
      SIGNER_SHAPE,
      expected('an array of signer objects'),
      { minimum: 1, message: MESSAGES.noSigner },
      { maximum: LOCAL_LIMITS.signers, message: MESSAGES.tooManySigners },
    ),
    sequential: optional(scalar('boolean', expected('true or false'))),
    signature_level: optional(nonEmptyString('a signature level name')),
    expires_in_days: optional(positiveInteger),
    locale: optional(nonEmptyString('a language code such as "ar"')),
    webhook_url: optional(
      scalar('string', expected('an absolute http(s) URL'), [
        maxLength(LOCAL_LIMITS.string, tooLong),
        matches(isHttpUrl, MESSAGES.url),
      ]),
    ),
  },
  expected('a JSON object (an envelope)'),
);

/** A signer as sent (docs/service.md, Envelope): what `createEnvelope` takes. */
export interface SignerInput {
  [field: string]: unknown;
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  order?: number | undefined;
  channel: string;
  verification?: string | undefined;
}
/**
 * An envelope creation request (docs/service.md, Envelope): what `createEnvelope` takes, checked at
 * compile time (the types zod gives the schema of zod-schema.ts, written out: the library's types
 * name no zod). Fields beyond these pass: the service decides, and validateEnvelope names them.
 */
export interface EnvelopeInput {
  [field: string]: unknown;
  title: string;
  contract_id?: string | undefined;
  document: { [field: string]: unknown; template_id: string; version: number };
  signers: SignerInput[];
  sequential?: boolean | undefined;
  signature_level?: string | undefined;
  expires_in_days?: number | undefined;
  locale?: string | undefined;
  webhook_url?: string | undefined;
}
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
