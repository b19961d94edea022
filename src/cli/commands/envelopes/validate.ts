/** `sign-cli envelopes validate <path>...`: the request rules, offline. Exit 0 valid, 2 invalid. */
import type { Command } from 'commander';
import { ExitCode, ValidationError } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { readEnvelopeInputs } from '../../input.js';
import type { Action } from '../../run.js';
import { checkInputs } from './check-inputs.js';

export function registerValidate(envelopes: Command, action: Action): void {
  envelopes
    .command('validate')
    .description('check envelope files against the request rules without sending anything')
    .argument('<path...>', 'envelope JSON files, directories of *.json, or - for stdin')
    .addHelpText('after', '\nExample:\n  $ sign-cli envelopes validate examples/envelope.json')
    .action(action(validateCommand));
}

async function validateCommand(ctx: CommandContext, _options: unknown, paths: string[]): Promise<number> {
  const { output } = ctx;
  const { inputs, errors } = await readEnvelopeInputs(paths);
  const checked = await checkInputs(inputs, errors);
  let invalid = 0;
  for (const input of checked) {
    const valid = input.errors.length === 0;
    if (!valid) invalid++;
    if (output.json) {
      output.jsonLine({ input: input.source, valid, errors: input.errors, warnings: input.warnings });
      continue;
    }
    output.warnIssues(input.source, input.warnings);
    if (valid) output.line(`${output.out.green('✓')} ${input.source}: valid`);
    else output.error(new ValidationError(input.source, input.errors));
  }
  return invalid > 0 ? ExitCode.usage : ExitCode.ok;
}
