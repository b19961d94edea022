/** `sign-cli envelopes get <id>`: one envelope, as a table or as JSON. */
import type { Command } from 'commander';
import { ExitCode } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { cellText as text, type Column } from '../../cell.js';
import { formatTime } from '../../time.js';
import type { Action } from '../../action.js';

/** The contact (an address) gives way on a narrow terminal; the rest is read by. */
export const SIGNER_COLUMNS: readonly Column[] = [
  { head: 'ORDER' },
  { head: 'NAME' },
  { head: 'CHANNEL' },
  { head: 'CONTACT', cut: true, min: 12 },
  { head: 'VERIFICATION' },
  { head: 'STATUS' },
];

export function registerGet(envelopes: Command, action: Action): void {
  envelopes
    .command('get')
    .description('show one envelope')
    .argument('<id>', 'envelope id, as printed by `envelopes create`')
    .addHelpText('after', '\nExample:\n  $ sign-cli envelopes get env_8Yq2VwM4bXc1 --json')
    .action(action(getCommand));
}

async function getCommand(ctx: CommandContext, _options: unknown, [id]: string[]): Promise<number> {
  const client = await ctx.client({}, ['getEnvelope']);
  try {
    const envelope = await client.getEnvelope(id ?? '', ctx.signal);
    const { output } = ctx;
    if (output.json) {
      output.jsonDocument(envelope);
      return ExitCode.ok;
    }
    const document = (envelope.document ?? {}) as Record<string, unknown>;
    const fields: [string, string][] = [
      ['id', text(envelope.id)],
      ['status', text(envelope.status)],
      ['title', text(envelope.title)],
      ['contract_id', text(envelope.contract_id)],
      ['document', document.template_id === undefined ? '' : `${text(document.template_id)} v${text(document.version)}`],
      ['sequential', text(envelope.sequential)],
      ['signature_level', text(envelope.signature_level)],
      ['locale', text(envelope.locale)],
      ['webhook_url', text(envelope.webhook_url)],
      ['created_at', formatTime(envelope.created_at)],
      ['expires_at', formatTime(envelope.expires_at)],
    ];
    const { printRecord, printTable } = await import('../../table.js');
    printRecord(output, fields.filter(([, v]) => v !== '').map(([label, value]) => ({ label, value })));
    const signers = Array.isArray(envelope.signers) ? (envelope.signers as Record<string, unknown>[]) : [];
    if (signers.length > 0) {
      output.line();
      printTable(
        output,
        SIGNER_COLUMNS,
        signers.map((s) => [text(s.order), text(s.name), text(s.channel), text(s.email ?? s.phone), text(s.verification), text(s.status)]),
      );
    }
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
