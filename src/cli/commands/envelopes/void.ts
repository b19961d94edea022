/**
 * `sign-cli envelopes void <id> --reason <text>`: stops an envelope sent by
 * mistake. It notifies people, so it asks first on a terminal and refuses to
 * go ahead unasked elsewhere (without --yes), as `gh repo delete` does.
 */
import type { Command } from 'commander';
import { SignError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface VoidOptions {
  reason?: string;
  yes?: boolean;
}

export const doc: CommandDoc = {
  summary: 'void an envelope still under way: its signers can no longer sign (asks first)',
  details: [
    'The `envelope.voided` event is delivered like the others and the audit trail gets an entry with the reason. It asks first on a terminal; where it cannot ask (a pipe, CI, `--no-input`) it refuses without `--yes` (exit 2, nothing sent).',
  ],
  more: [
    'The request (`POST /api/v1/envelopes/{id}/void` with `{"reason"}`, scope `envelopes:write`) carries an Idempotency-Key derived from the id and the reason, so a retry or a re-run after a lost answer gets the first answer back. Voiding an envelope that is already completed, declined, failed, expired or voided is a 409 `envelope_final`, exit 1 (not retried). `--json` prints the voided envelope.',
  ],
  examples: [
    'sed s/layla.haddad@/layla.haddad+noview@/ envelope.json > unopened.json   # on the sandbox, a +noview signer never opens it: the envelope is still under way when it is voided',
    'bad=$(sign-cli envelopes create -f unopened.json --new --query envelope.id)',
    'sign-cli envelopes void "$bad" --reason "sent to the wrong signer" --yes',
    'sign-cli envelopes void "$bad" --reason "sent to the wrong signer" --yes --json   # again: the same answer, not an error',
  ],
};

export function registerVoid(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'void', doc)
    .argument('<id>', 'envelope id')
    .option(
      '--reason <text>',
      'why it is voided; kept in the audit trail and sent with the envelope.voided event (required)',
    )
    .option('-y, --yes', 'do not ask for confirmation (needed where there is no terminal to ask on)')
    .action(action(voidCommand));
}

export async function voidCommand(
  ctx: CommandContext,
  options: VoidOptions,
  [id]: string[],
): Promise<number> {
  const { output } = ctx;
  const reason = options.reason?.trim();
  if (!reason)
    throw new UsageError('--reason is required: say why the envelope is voided', {
      hint: 'e.g. --reason "sent to the wrong signer"',
    });
  if (reason.length > 500) throw new UsageError(`--reason is ${reason.length} characters; at most 500`);
  if (!options.yes) {
    const { confirmFirst } = await import('../../interactive/ask.js');
    const go = await confirmFirst(ctx, {
      message: `Void ${id}? Its signers will no longer be able to sign.`,
      unattended: new UsageError(`voiding ${id} needs confirmation, and there is no terminal to ask on`, {
        hint: 'pass --yes to void it without asking',
      }),
    });
    if (!go) {
      output.info(`${id} was not voided`);
      return ExitCode.ok;
    }
  }
  const client = await ctx.client({}, ['voidEnvelope']);
  try {
    const envelope = await client.voidEnvelope(id!, reason, { signal: ctx.signal });
    if (String(envelope.status) !== 'voided') {
      throw new SignError(
        `void ${id}: the service answered with the envelope in state ${String(envelope.status)}, not voided`,
      );
    }
    if (output.json) output.jsonDocument(envelope);
    else output.line(`${output.out.green('✓')} voided ${id}: ${reason}`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
