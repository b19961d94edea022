/**
 * The pieces the envelope's shape is made of (schema.ts): types, length and form checks, optional
 * fields, objects that let other fields through, arrays with a maximum. Each follows zod's own
 * rules for what it reports, so the shape reports what the zod schema of zod-schema.ts reports
 * (test/core/envelope-shape.test.ts compares them):
 * - a field's type is checked first; a failed type stops its other checks, except the length
 *   checks, which run on anything with a `length` (a string's counted in code points);
 * - a number that is not an integer stops every later check of its field;
 * - an array longer than its maximum is reported alone, its items unread;
 * - an optional field may be absent or undefined; an object's fields are read in their order,
 *   its other fields let through.
 */

/** A problem at a path below the value checked. */
export interface ShapeIssue {
  path: (string | number)[];
  message: string;
}

/** A message made from what failed: the value the field had. */
export type Message = (issue: { input?: unknown }) => string;

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

export const minLength = (minimum: number, message: Message | string): Check => ({
  length: true,
  run: (value) =>
    measure(value, (units) => units >= minimum && units < minimum * 2) >= minimum
      ? {}
      : problem(message, value),
});

export const maxLength = (maximum: number, message: Message): Check => ({
  length: true,
  run: (value) => (measure(value, (units) => units > maximum) <= maximum ? {} : problem(message, value)),
});

export const trim: Check = { run: (value) => ({ value: (value as string).trim() }) };

export const matches = (test: (value: string) => boolean, message: Message): Check => ({
  run: (value) => (test(value as string) ? {} : problem(message, value)),
});

/** zod's safe integer: a number that is not an integer stops the field; one beyond 2^53 does not. */
export const safeInteger = (message: Message): Check => ({
  run(value) {
    if (!Number.isInteger(value)) return problem(message, value, false);
    return Number.isSafeInteger(value) ? {} : problem(message, value);
  },
});

export const atLeast = (minimum: number, inclusive: boolean, message: Message): Check => ({
  run: (value) =>
    (inclusive ? (value as number) >= minimum : (value as number) > minimum) ? {} : problem(message, value),
});

/** A node of the shape: its type (what the CSV templates read) and how a value is checked against it. */
export type Shape =
  | { type: 'string' | 'number' | 'boolean'; optional: boolean; check: Checker }
  | { type: 'array'; optional: boolean; element: Shape; check: Checker }
  | { type: 'object'; optional: boolean; fields: Record<string, Shape>; check: Checker };

/** Adds the problems of `value` (at `path`) to `issues`. */
export type Checker = (value: unknown, path: (string | number)[], issues: ShapeIssue[]) => void;

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

export function scalar(
  type: 'string' | 'number' | 'boolean',
  typeError: Message,
  checks: readonly Check[] = [],
): Shape {
  const typed = (value: unknown): boolean =>
    type === 'number' ? typeof value === 'number' && Number.isFinite(value) : typeof value === type;
  return {
    type,
    optional: false,
    check(value, path, issues) {
      const ok = typed(value);
      if (!ok) issues.push({ path, message: typeError({ input: value }) });
      runChecks(value, !ok, checks, path, issues);
    },
  };
}

export function optional<S extends Shape>(shape: S): S {
  return {
    ...shape,
    optional: true,
    check: (value, path, issues) => {
      if (value !== undefined) shape.check(value, path, issues);
    },
  };
}

export function looseObject<F extends Record<string, Shape>>(
  fields: F,
  typeError: Message,
): Shape & { type: 'object'; fields: F } {
  return {
    type: 'object',
    optional: false,
    fields,
    check(value, path, issues) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        issues.push({ path, message: typeError({ input: value }) });
        return;
      }
      const record = value as Record<string, unknown>;
      for (const [key, field] of Object.entries(fields)) field.check(record[key], [...path, key], issues);
    },
  };
}

/** An array of `element`, with at most `maximum` items: a longer one is reported alone, its items unread. */
export function array(
  element: Shape,
  typeError: Message,
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
        issues.push({ path, message: typeError({ input: value }) });
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

/** Every problem of `value`'s shape, as zod's issues of the schema would be. */
export function shapeIssues(shape: Shape, value: unknown): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  shape.check(value, [], issues);
  return issues;
}
