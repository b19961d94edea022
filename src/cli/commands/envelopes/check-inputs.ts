/**
 * The "validate everything first" step shared by `envelopes create` and
 * `envelopes validate`: parse errors and rule violations of every input are
 * collected before a single request could be sent.
 */
import type { FieldIssue, InputParseError } from '../../../core/errors.js';
import type { EnvelopeInput } from '../../input.js';

export interface CheckedInput extends EnvelopeInput {
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

export async function checkInputs(inputs: EnvelopeInput[], parseErrors: InputParseError[]): Promise<CheckedInput[]> {
  // zod is loaded only by commands that validate, so `--help` stays fast.
  const { validateEnvelope } = await import('../../../core/envelope.js');
  const checked: CheckedInput[] = parseErrors.map((error) => ({
    source: error.source,
    value: undefined,
    errors: [{ path: '', message: `invalid JSON at line ${error.line}, column ${error.column}: ${error.detail}` }],
    warnings: [],
  }));
  for (const input of inputs) checked.push({ ...input, ...validateEnvelope(input.value) });
  return checked;
}
