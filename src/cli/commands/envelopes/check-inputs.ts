/**
 * The "validate everything first" step shared by `envelopes create` and
 * `envelopes validate`: parse errors and rule violations of every input are
 * collected before a single request could be sent.
 */
import { validateEnvelope, type FieldIssue, type InputParseError } from '../../../core/index.js';
import type { EnvelopeInput } from '../../input.js';

export interface CheckedInput extends EnvelopeInput {
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

export function checkInputs(inputs: EnvelopeInput[], parseErrors: InputParseError[]): CheckedInput[] {
  const checked: CheckedInput[] = parseErrors.map((error) => ({
    source: error.source,
    value: undefined,
    errors: [{ path: '', message: `invalid JSON at line ${error.line}, column ${error.column}: ${error.detail}` }],
    warnings: [],
  }));
  for (const input of inputs) checked.push({ ...input, ...validateEnvelope(input.value) });
  return checked;
}
