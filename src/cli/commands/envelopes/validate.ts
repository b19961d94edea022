/** `sign-cli envelopes validate <path>...`: the request rules, offline. Exit 0 valid, 2 invalid. */
import type { Command } from 'commander';
import { UsageError, ValidationError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../action.js';
import {
  allowUnknownFields,
  checkInput,
  FileWarnings,
  loadValidator,
  openCommandInputs,
  readingOptions,
  templateOption,
  delimiterOption,
  type InputFlags,
} from './check-inputs.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

export const doc: CommandDoc = {
  summary: 'check envelope files against the request rules without sending anything',
  details: [
    'Exit 0 when every input is valid, 2 otherwise; nothing is sent and no key is needed. Each problem names its input and JSON path (`batch.ndjson:250: signers[1].phone`, `recipients.csv:row 12: signers[0].phone`).',
  ],
  more: [
    '`--json` prints `{"input", "valid", "errors", "warnings"}` per input; each error is `{"path": "signers[1].phone", "message": "…"}`. The rules are those of `envelopes create`, which runs the same check before it sends.',
  ],
  examples: [
    'mkdir -p batch && sign-cli envelopes sample > batch/lease.json',
    'sign-cli envelopes validate envelope.json batch/   # a directory means its *.json files',
    'sign-cli envelopes sample --count 3 > three.ndjson',
    'sign-cli envelopes validate --ndjson three.ndjson',
    'sign-cli envelopes validate - --json < envelope.json',
    'sign-cli envelopes sample --csv > recipients.csv && sign-cli envelopes sample --template > template.json',
    'sign-cli envelopes validate --csv recipients.csv --template template.json',
  ],
};

export function registerValidate(envelopes: Command, action: Action): void {
  readingOptions(defineCommand(envelopes, 'validate', doc))
    .argument('[path...]', 'envelope JSON files, directories of *.json, or - for stdin')
    .option('--ndjson', 'the files hold one envelope per line')
    .option('--csv <file|->', 'one envelope per row of this CSV, filled into --template')
    .addOption(templateOption())
    .addOption(delimiterOption())
    .option(
      '--allow-unknown-fields',
      'fields sign-cli does not know are warnings, not errors (also config allow_unknown_fields)',
    )
    .action(action(validateCommand));
}

export async function validateCommand(
  ctx: CommandContext,
  options: InputFlags & { allowUnknownFields?: boolean },
  paths: string[] = [],
): Promise<number> {
  const { output } = ctx;
  if (paths.length === 0 && options.csv === undefined) {
    throw new UsageError(
      'no envelope given: name files or directories, - for stdin, or --csv <file> --template <envelope.json>',
      { hint: 'sign-cli envelopes validate envelope.json' },
    );
  }
  const validate = await loadValidator({
    allowUnknownFields: await allowUnknownFields(ctx, options.allowUnknownFields),
  });
  const inputs = await openCommandInputs(ctx, paths, options, 'a path');
  let invalid = 0;
  let total = 0;
  const warnings = new FileWarnings((source, issue) => output.warnIssues(source, [issue]));
  try {
    for await (const read of inputs.read()) {
      total++;
      const input = checkInput(read, validate);
      const valid = input.errors.length === 0;
      if (!valid) invalid++;
      if (output.json) {
        output.jsonLine({ input: input.source, valid, errors: input.errors, warnings: input.warnings });
        continue;
      }
      warnings.add(input.source, input.warnings);
      if (valid) output.line(`${output.out.green('✓')} ${input.source}: valid`);
      else output.error(new ValidationError(input.source, input.errors));
    }
    warnings.flush();
  } finally {
    inputs.close();
  }
  if (total === 0) throw new UsageError('the input holds no envelope');
  return invalid > 0 ? ExitCode.usage : ExitCode.ok;
}
