/**
 * The envelope's shape (docs/service.md, Envelope: each field's type, length and form) as plain
 * code: what `validateEnvelope` (envelope.ts) runs, and what the CSV templates and the interactive
 * prompt read. It reports what the zod schema of envelope-schema.ts reports (which `sign-cli mcp`
 * publishes): the same issues, with the same messages, in the same order, because it follows
 * zod's own rules for them (below); test/core/envelope-shape.test.ts holds the two equal on every
 * input it generates. zod builds each schema through its own machinery when it is loaded and runs
 * it through more: on `envelopes validate` that was a fifth of the start-up over a bare Node, where
 * this is a few functions (docs/benchmarks.md).
 *
 * zod's rules kept here: a field's type is checked first; a failed type stops its other checks,
 * except the length checks, which run on anything with a `length` (a string's counted in code
 * points); a number that is not an integer stops the rest; an array longer than its maximum is
 * reported alone, its items unread; an optional field may be absent or undefined; an object's
 * fields are read in the order below, its other fields let through.
 */
import { MAX_BODY_BYTES } from './endpoints.js';

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

// The messages of the checks below, shared with envelope-schema.ts.
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
} as const;

type Message = (issue: { input?: unknown }) => string;

/** A problem at a path below the value checked. */
export interface ShapeIssue {
  path: (string | number)[];
  message: string;
}

/** What a check found: its message, and whether the field's other checks still run. */
interface Found {
  message: string;
  /** zod's `continue`: false stops every later check of the field, length checks too. */
  goOn: boolean;
}

/** One check of a field, in zod's terms: a length check runs even after a failed type. */
interface Check {
  length?: true;
  /** The value after it (trim), or a problem with it. */
  run(value: unknown): { value?: unknown; found?: Found };
}

const problem = (message: Message | string, input: unknown, goOn = true): { found: Found } => ({
  found: { message: typeof message === 'string' ? message : message({ input }), goOn },
});

/** A string's length in code points (a surrogate pair is one), as zod counts it. */
function codePoints(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/**
 * What a length check measures: a string in code points, anything else its `length` as it is
 * (zod's rule; a string's code points are counted only where `inDoubt` says its length in
 * UTF-16 units could decide otherwise).
 */
function measure(value: unknown, inDoubt: (units: number) => boolean): number {
  const units = (value as { length: unknown }).length;
  return (typeof value === 'string' && inDoubt(value.length) ? codePoints(value) : units) as number;
}

const minLength = (minimum: number, message: Message | string): Check => ({
  length: true,
  run: (value) =>
    measure(value, (units) => units >= minimum && units < minimum * 2) >= minimum
      ? {}
      : problem(message, value),
});

const maxLength = (maximum: number, message: Message): Check => ({
  length: true,
  run: (value) => (measure(value, (units) => units > maximum) <= maximum ? {} : problem(message, value)),
});

const trim: Check = { run: (value) => ({ value: (value as string).trim() }) };

const matches = (test: (value: string) => boolean, message: Message): Check => ({
  run: (value) => (test(value as string) ? {} : problem(message, value)),
});

/** zod's safe integer: a number that is not an integer stops the field; one beyond 2^53 does not. */
const safeInteger = (message: Message): Check => ({
  run(value) {
    if (!Number.isInteger(value)) return problem(message, value, false);
    return Number.isSafeInteger(value) ? {} : problem(message, value);
  },
});

const atLeast = (minimum: number, inclusive: boolean, message: Message): Check => ({
  run: (value) =>
    (inclusive ? (value as number) >= minimum : (value as number) > minimum) ? {} : problem(message, value),
});

/** A node of the shape: its type (what the CSV templates read) and how a value is checked against it. */
export type Shape =
  | { type: 'string' | 'number' | 'boolean'; optional: boolean; check: Checker }
  | { type: 'array'; optional: boolean; element: Shape; check: Checker }
  | { type: 'object'; optional: boolean; fields: Record<string, Shape>; check: Checker };

/** Adds the problems of `value` (at `path`) to `issues`. */
type Checker = (value: unknown, path: (string | number)[], issues: ShapeIssue[]) => void;

/** Runs a field's checks after its type check, as zod does (see the top of this file). */
function runChecks(
  value: unknown,
  typeFailed: boolean,
  checks: readonly Check[],
  path: (string | number)[],
  issues: ShapeIssue[],
): void {
  let stopped = typeFailed;
  let stoppedAll = false;
  for (const check of checks) {
    if (check.length) {
      if (stoppedAll || value === null || value === undefined) continue;
      if ((value as { length?: unknown }).length === undefined) continue;
    } else if (stopped) continue;
    const { value: after, found } = check.run(value);
    if (after !== undefined) value = after;
    if (found) {
      issues.push({ path, message: found.message });
      if (!found.goOn) stopped = stoppedAll = true;
    }
  }
}

function scalar(type: 'string' | 'number' | 'boolean', what: string, checks: readonly Check[] = []): Shape {
  const typed = (value: unknown): boolean =>
    type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === type;
  return {
    type,
    optional: false,
    check(value, path, issues) {
      const ok = typed(value);
      if (!ok) issues.push({ path, message: expected(what)({ input: value }) });
      runChecks(value, !ok, checks, path, issues);
    },
  };
}

function optional<S extends Shape>(shape: S): S {
  return {
    ...shape,
    optional: true,
    check: (value, path, issues) => {
      if (value !== undefined) shape.check(value, path, issues);
    },
  };
}

function looseObject<F extends Record<string, Shape>>(
  fields: F,
  what: string,
): Shape & { type: 'object'; fields: F } {
  return {
    type: 'object',
    optional: false,
    fields,
    check(value, path, issues) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        issues.push({ path, message: expected(what)({ input: value }) });
        return;
      }
      const record = value as Record<string, unknown>;
      for (const [key, field] of Object.entries(fields)) field.check(record[key], [...path, key], issues);
    },
  };
}

/** An array of `element`, with at most `maximum` items: a longer one is reported alone, its items unread. */
function array(
  element: Shape,
  what: string,
  min: { minimum: number; message: string },
  max: { maximum: number; message: Message },
): Shape {
  const checks = [minLength(min.minimum, min.message), maxLength(max.maximum, max.message)];
  return {
    type: 'array',
    optional: false,
    element,
    check(value, path, issues) {
      if (Array.isArray(value) && value.length > max.maximum) {
        issues.push({ path, message: max.message({ input: value }) });
        return;
      }
      if (!Array.isArray(value)) {
        issues.push({ path, message: expected(what)({ input: value }) });
        runChecks(value, true, checks, path, issues);
        return;
      }
      // Every index, holes too (forEach would skip them).
      for (let index = 0; index < value.length; index++)
        element.check(value[index], [...path, index], issues);
      runChecks(value, false, checks, path, issues);
    },
  };
}

const nonEmptyString = (what = 'a non-empty string') =>
  scalar('string', what, [trim, minLength(1, MESSAGES.empty), maxLength(LOCAL_LIMITS.string, tooLong)]);

const positiveInteger = scalar('number', 'a positive integer', [
  safeInteger(MESSAGES.positiveInteger),
  atLeast(0, false, MESSAGES.positive),
]);

export const SIGNER_SHAPE = looseObject(
  {
    name: nonEmptyString(),
    email: optional(
      scalar('string', 'an e-mail address', [
        maxLength(LOCAL_LIMITS.string, tooLong),
        matches((value) => EMAIL_RE.test(value), MESSAGES.email),
      ]),
    ),
    // What a number may be is phone.ts's (libphonenumber, for its country): checked with the rules between fields (envelope.ts).
    phone: optional(
      scalar('string', 'a phone number in international form', [maxLength(LOCAL_LIMITS.string, tooLong)]),
    ),
    order: optional(
      scalar('number', 'an integer from 1', [safeInteger(MESSAGES.order), atLeast(1, true, MESSAGES.order)]),
    ),
    channel: nonEmptyString('a channel name such as "email" or "whatsapp"'),
    verification: optional(nonEmptyString('a verification method name')),
  },
  'a signer object',
);

export const ENVELOPE_SHAPE = looseObject(
  {
    title: nonEmptyString(),
    contract_id: optional(nonEmptyString()),
    document: looseObject(
      { template_id: nonEmptyString(), version: positiveInteger },
      'an object with template_id and version',
    ),
    signers: array(
      SIGNER_SHAPE,
      'an array of signer objects',
      { minimum: 1, message: MESSAGES.noSigner },
      { maximum: LOCAL_LIMITS.signers, message: MESSAGES.tooManySigners },
    ),
    sequential: optional(scalar('boolean', 'true or false')),
    signature_level: optional(nonEmptyString('a signature level name')),
    expires_in_days: optional(positiveInteger),
    locale: optional(nonEmptyString('a language code such as "ar"')),
    webhook_url: optional(
      scalar('string', 'an absolute http(s) URL', [
        maxLength(LOCAL_LIMITS.string, tooLong),
        matches(isHttpUrl, MESSAGES.url),
      ]),
    ),
  },
  'a JSON object (an envelope)',
);

/** Every problem of `value`'s shape, as zod's issues of the schema would be. */
export function shapeIssues(shape: Shape, value: unknown): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  shape.check(value, [], issues);
  return issues;
}
