/**
 * The "validate everything first" step shared by `envelopes create` and
 * `envelopes validate`: a parse error or a broken rule of any input is found
 * before a single request could be sent.
 */
import type { FieldIssue } from '../../../core/errors.js';
import type { ValidationResult } from '../../../core/envelope.js';
import type { ReadInput } from '../../input.js';
import type { CommandContext } from '../../context.js';

export interface CheckedInput {
  source: string;
  value: unknown;
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

export type Validator = (value: unknown) => ValidationResult;

/** zod is loaded only by commands that validate, so `--help` stays fast. */
export async function loadValidator(options: { allowUnknownFields: boolean }): Promise<Validator> {
  const { validateEnvelope } = await import('../../../core/envelope.js');
  return (value) => {
    const result = validateEnvelope(value, { allowUnknownFields: options.allowUnknownFields });
    // The core says what is wrong; the command says how to send such a field deliberately.
    result.errors = result.errors.map((issue) =>
      issue.code === 'unknown_field' ? { ...issue, message: `${issue.message} (the fields are in docs/service.md; --allow-unknown-fields sends it as is)` } : issue,
    );
    return result;
  };
}

/** --allow-unknown-fields, else the setting allow_unknown_fields. */
export async function allowUnknownFields(ctx: CommandContext, flag: boolean | undefined): Promise<boolean> {
  return flag === true || (await ctx.setting<boolean>('allow_unknown_fields')) === true;
}

export function checkInput(input: ReadInput, validate: Validator): CheckedInput {
  if ('error' in input) {
    const { error } = input;
    const suggestion = error.suggestion ? `; ${error.suggestion}` : '';
    return { source: input.source, value: undefined, errors: [{ path: '', message: `invalid JSON at line ${error.line}, column ${error.column}: ${error.detail}${suggestion}` }], warnings: [] };
  }
  return { ...input, ...validate(input.value) };
}
