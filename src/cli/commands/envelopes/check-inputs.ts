/**
 * The "validate everything first" step shared by `envelopes create` and
 * `envelopes validate`: a parse error or a broken rule of any input is found
 * before a single request could be sent.
 */
import type { FieldIssue } from '../../../core/errors.js';
import type { ValidationResult } from '../../../core/envelope.js';
import type { ReadInput } from '../../input.js';

export interface CheckedInput {
  source: string;
  value: unknown;
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

export type Validator = (value: unknown) => ValidationResult;

/** zod is loaded only by commands that validate, so `--help` stays fast. */
export async function loadValidator(): Promise<Validator> {
  const { validateEnvelope } = await import('../../../core/envelope.js');
  return (value) => validateEnvelope(value);
}

export function checkInput(input: ReadInput, validate: Validator): CheckedInput {
  if ('error' in input) {
    const { error } = input;
    const suggestion = error.suggestion ? `; ${error.suggestion}` : '';
    return { source: input.source, value: undefined, errors: [{ path: '', message: `invalid JSON at line ${error.line}, column ${error.column}: ${error.detail}${suggestion}` }], warnings: [] };
  }
  return { ...input, ...validate(input.value) };
}
