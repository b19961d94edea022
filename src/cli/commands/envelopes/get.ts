/** `sign-cli envelopes get <id>`: one envelope, as a table or as JSON. */
import type { Command } from 'commander';
import { ExitCode } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { cellText as text, renderTable } from '../../table.js';
import type { Action } from '../../run.js';

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
    const fields: [string, unknown][] = [
      ['id', envelope.id],
      ['status', envelope.status],
      ['title', envelope.title],
      ['contract_id', envelope.contract_id],
      ['document', document.template_id === undefined ? undefined : `${text(document.template_id)} v${text(document.version)}`],
      ['sequential', envelope.sequential],
      ['signature_level', envelope.signature_level],
      ['locale', envelope.locale],
      ['webhook_url', envelope.webhook_url],
      ['created_at', envelope.created_at],
      ['expires_at', envelope.expires_at],
    ];
    output.line(await renderTable(output, [], fields.filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, text(v)]), { keep: [0] }));
    const signers = Array.isArray(envelope.signers) ? (envelope.signers as Record<string, unknown>[]) : [];
    if (signers.length > 0) {
      output.line(
        await renderTable(
          output,
          ['order', 'name', 'channel', 'contact', 'verification', 'status'],
          signers.map((s) => [text(s.order), text(s.name), text(s.channel), text(s.email ?? s.phone), text(s.verification), text(s.status)]),
          { keep: [0, 2, 5] },
        ),
      );
    }
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
