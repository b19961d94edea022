/**
 * The request rules of the service's envelope and signer (docs/service.md, Envelope).
 *
 * Shape and types are schema.ts's (plain code that reports what the zod schema of zod-schema.ts
 * reports, which `sign-cli mcp` publishes); the rules that relate fields to each other
 * (channel -> contact field, distinct orders when sequential) run as a second
 * pass over the well-typed parts, so that one call reports every problem at
 * once instead of stopping at the first broken object.
 */
import { tooDeepAt } from './canonical-json.js';
import type { FieldIssue } from '../errors.js';
import { describe, ENVELOPE_SHAPE, LOCAL_LIMITS, shapeIssues, SIGNER_SHAPE } from './schema.js';
import { OPEN_FIELDS, type OpenField } from './open-fields.js';
import { isRecord } from './records.js';
import { closest } from './suggest.js';
import { checkPlainText } from './plain-text.js';
import { checkInvisible, invisibleIn } from './invisible.js';
import { phoneProblem } from './phone.js';

/**
 * Values the published interface says "have been seen" (docs/service.md, Envelope); the full
 * lists are not shown.
 */
export const SEEN_VALUES = {
  signature_level: ['advanced'],
  locale: ['ar'],
  channel: ['email', 'whatsapp'],
  // The published interface only says the seen value "names a national digital
  // identity service" (docs/service.md, Envelope); uae_pass is our reading of it
  // (see docs/assumptions.md).
  verification: ['uae_pass'],
} as const satisfies Record<OpenField, readonly string[]>;

/**
 * Values taken without a warning: those seen, and those sign-cli's own documentation, sample and
 * sandbox use (docs/sandbox.md; docs/assumptions.md, "Values taken without a warning"), so a user
 * who copies them is not told they are unknown. The sandbox accepts exactly these
 * (src/sandbox/rules.ts; a test keeps the two lists equal). Any other value is still sent, with
 * a warning: the service's full lists are not shown.
 */
export const KNOWN_VALUES = {
  signature_level: ['simple', 'advanced', 'qualified'],
  locale: ['ar', 'en', 'fr', 'de', 'es', 'tr', 'ur', 'hi'],
  channel: ['email', 'whatsapp'],
  verification: ['uae_pass', 'nafath', 'sms_otp', 'email_otp'],
} as const satisfies Record<OpenField, readonly string[]>;

export { OPEN_FIELDS, type OpenField };
export type ValueLists = Partial<Record<OpenField, readonly string[]>>;

export interface ValidateOptions {
  /** Extra values to accept without a warning (from config). */
  knownValues?: ValueLists;
  /**
   * When set, values outside these lists are errors rather than warnings.
   * The sandbox uses this: it is the server, so it has the last word.
   */
  allowedValues?: ValueLists;
  /**
   * Fields outside the envelope and signer tables (docs/service.md, Envelope) are
   * errors (with the known field they most likely stand for), because a misspelt
   * `webhookUrl` would otherwise be sent and silently ignored; with this set they
   * are warnings and sent as is.
   */
  allowUnknownFields?: boolean;
  /** Appended to an error for a value outside `allowedValues`: how to widen the list (the sandbox's --accept). */
  widenHint?: (field: OpenField, value: string) => string;
}

export interface ValidationResult {
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

const ENVELOPE_FIELDS = new Set(Object.keys(ENVELOPE_SHAPE.fields));
const SIGNER_FIELDS = new Set(Object.keys(SIGNER_SHAPE.fields));
const DOCUMENT_FIELDS = new Set(['template_id', 'version']);

/** `['signers', 1, 'phone']` -> `signers[1].phone` */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** A JSON object (not null, not an array). */
export { isRecord };

function checkOpenValue(
  field: OpenField,
  value: unknown,
  path: string,
  options: ValidateOptions,
  result: ValidationResult,
): void {
  if (typeof value !== 'string' || value.trim() === '') return; // type errors come from the schema
  const allowed = options.allowedValues?.[field];
  if (allowed) {
    if (!allowed.includes(value)) {
      const widen = options.widenHint?.(field, value);
      result.errors.push({
        path,
        message: `${JSON.stringify(value)} is not supported; use one of: ${allowed.join(', ')}${widen ? `; ${widen}` : ''}`,
      });
    }
    return;
  }
  const known = [...KNOWN_VALUES[field], ...(options.knownValues?.[field] ?? [])];
  // `Email` for `email`: a case slip the service would refuse, caught before anything is sent.
  const slip = known.find((k) => k !== value && k.toLowerCase() === value.toLowerCase());
  if (slip !== undefined) {
    result.errors.push({
      path,
      message: `${JSON.stringify(value)} is not a known ${field.replace('_', ' ')}; did you mean ${JSON.stringify(slip)}? (the values are case-sensitive)`,
      code: 'case_slip',
      suggestion: slip,
    });
    return;
  }
  if (!known.includes(value)) {
    result.warnings.push({
      path,
      message: `${JSON.stringify(value)} is not among the values sign-cli knows (${known.join(', ')}); sent as is, the service decides`,
    });
  }
}

function checkUnknownFields(
  value: Record<string, unknown>,
  known: Set<string>,
  prefix: string,
  what: string,
  options: ValidateOptions,
  result: ValidationResult,
): void {
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    const path = prefix ? `${prefix}.${key}` : key;
    const suggestion = closest(key, known);
    const guess = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
    if (options.allowUnknownFields) {
      result.warnings.push({
        path,
        message: `is not a field of ${what}${guess}; sent as is, the service may reject or ignore it`,
        code: 'unknown_field',
        ...(suggestion ? { suggestion } : {}),
      });
    } else {
      result.errors.push({
        path,
        message: `is not a field of ${what}${guess}`,
        code: 'unknown_field',
        ...(suggestion ? { suggestion } : {}),
      });
    }
  }
}

/** Rules between fields, checked only where the fields involved are well-typed. */
function checkCrossFieldRules(
  input: Record<string, unknown>,
  options: ValidateOptions,
  result: ValidationResult,
): void {
  checkUnknownFields(input, ENVELOPE_FIELDS, '', 'an envelope', options, result);
  if (isRecord(input.document))
    checkUnknownFields(input.document, DOCUMENT_FIELDS, 'document', 'a document', options, result);
  checkOpenValue('signature_level', input.signature_level, 'signature_level', options, result);
  checkOpenValue('locale', input.locale, 'locale', options, result);

  if (!Array.isArray(input.signers)) return;
  const sequential = input.sequential === true;
  /** Each order a signer took, with the first signer that took it. */
  const firstWithOrder = new Map<number, number>();
  input.signers.forEach((signer: unknown, index) => {
    if (!isRecord(signer)) return;
    checkSignerRules(signer, `signers[${index}]`, options, result);
    if (sequential) checkSignerOrder(signer.order, index, firstWithOrder, result);
  });
}

/** One signer's fields: unknown ones, open values, its phone number, and the contact its channel needs. */
function checkSignerRules(
  signer: Record<string, unknown>,
  path: string,
  options: ValidateOptions,
  result: ValidationResult,
): void {
  checkUnknownFields(signer, SIGNER_FIELDS, path, 'a signer', options, result);
  checkOpenValue('channel', signer.channel, `${path}.channel`, options, result);
  checkOpenValue('verification', signer.verification, `${path}.verification`, options, result);
  // An invisible character is the invisible rule's to name; the number is judged without it.
  if (
    typeof signer.phone === 'string' &&
    signer.phone.trim() !== '' &&
    !invisibleIn(signer.phone, 'machine')
  ) {
    const problem = phoneProblem(signer.phone);
    if (problem)
      result.errors.push({
        path: `${path}.phone`,
        message: `${problem.message}, got ${describe(signer.phone)}`,
        code: problem.code,
      });
  }
  if (signer.channel === 'email' && signer.email === undefined) {
    result.errors.push({
      path: `${path}.email`,
      message: 'is required when channel is "email"; add the signer\'s e-mail address',
    });
  }
  if (signer.channel === 'whatsapp' && signer.phone === undefined) {
    result.errors.push({
      path: `${path}.phone`,
      message:
        'is required when channel is "whatsapp"; add the number in international form, such as +971501234567',
    });
  }
}

/** When the signers sign in turn: each needs an order, and no two the same. */
function checkSignerOrder(
  order: unknown,
  index: number,
  firstWithOrder: Map<number, number>,
  result: ValidationResult,
): void {
  const path = `signers[${index}].order`;
  if (order === undefined) {
    result.errors.push({ path, message: 'is required when sequential is true; number the signers 1, 2, 3…' });
    return;
  }
  // A wrong type or a number below 1 is the schema's to name.
  if (typeof order !== 'number' || !Number.isInteger(order) || order < 1) return;
  const first = firstWithOrder.get(order);
  if (first === undefined) firstWithOrder.set(order, index);
  else
    result.errors.push({
      path,
      message: `duplicates the order of signers[${first}] (${order}); orders must be distinct when sequential is true`,
    });
}

/** An envelope needs four levels (signers[0].name); anything far deeper is hostile or broken. */
export const MAX_ENVELOPE_DEPTH = 32;

/**
 * Applies every request rule of the envelope and its signers (docs/service.md,
 * Envelope) that can be checked locally. Errors block sending; warnings are
 * values the published interface does not fully list.
 */
export function validateEnvelope(input: unknown, options: ValidateOptions = {}): ValidationResult {
  const result: ValidationResult = { errors: [], warnings: [] };
  // Checked first, without recursion: the rules below (and hashing, sending) must never see such a value.
  const deep = tooDeepAt(input, MAX_ENVELOPE_DEPTH);
  if (deep !== undefined) {
    result.errors.push({
      path: deep,
      message: `nested deeper than ${MAX_ENVELOPE_DEPTH} levels; an envelope needs at most 4, so remove the deep value`,
    });
    return result;
  }
  const bytes = Buffer.byteLength(JSON.stringify(input) ?? '');
  if (bytes > LOCAL_LIMITS.bodyBytes) {
    result.errors.push({
      path: '',
      message: `the envelope is ${bytes.toLocaleString('en-US')} bytes as JSON; at most 1 MiB is sent (look for a huge field)`,
    });
    return result;
  }
  for (const issue of shapeIssues(ENVELOPE_SHAPE, input))
    result.errors.push({ path: formatPath(issue.path), message: issue.message });
  if (isRecord(input)) checkCrossFieldRules(input, options, result);
  checkPlainText(input, '', 0, MAX_ENVELOPE_DEPTH, result.errors);
  checkInvisible(input, '', 0, MAX_ENVELOPE_DEPTH, result.errors);
  return result;
}
