/** `sign-cli envelopes get <id>`: one envelope, as a table or as JSON. */
import type { Command } from 'commander';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { cellText as text, type Column } from '../../render/cell.js';
import { formatTime } from '../../render/time.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

/** The contact (an address) gives way on a narrow terminal; the rest is read by. */
export const SIGNER_COLUMNS: readonly Column[] = [
  { head: 'ORDER' },
  { head: 'NAME' },
  { head: 'CHANNEL' },
  { head: 'CONTACT', cut: true, min: 12 },
  { head: 'VERIFICATION' },
  { head: 'STATUS' },
];

/** The fields shown whole whatever the width: ids and times. */
const WHOLE_FIELDS = new Set(['id', 'contract_id', 'created_at', 'expires_at']);

export const doc: CommandDoc = {
  summary: 'show one envelope',
  details: [
    'Its fields, then its signers as a table; `--json` prints the envelope as the service returned it. An envelope of another account or environment is not found (exit 1).',
  ],
  examples: [
    'sign-cli envelopes get "$id"',
    'sign-cli envelopes get "$id" --json',
    'sign-cli envelopes get "$id" --query "signers[].status"',
  ],
};

export function registerGet(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'get', doc)
    .argument('<id>', 'envelope id, as printed by `envelopes create`')
    .action(action(getCommand));
}

export async function getCommand(ctx: CommandContext, _options: unknown, [id]: string[]): Promise<number> {
  const client = await ctx.client({}, ['getEnvelope']);
  try {
    const envelope = await client.getEnvelope(id ?? '', ctx.signal);
    const { output } = ctx;
    if (output.json) {
      output.jsonDocument(envelope);
      return ExitCode.ok;
    }
    const document = (envelope.document ?? {}) as Record<string, unknown>;
    // Every value but the ids and times is cut to its line on a terminal (table.ts: recordLines), so
    // that a title padded to the width cannot wrap into a `status:` line of its own.
    const fields: [string, string][] = [
      ['id', text(envelope.id)],
      ['status', text(envelope.status)],
      ['title', text(envelope.title)],
      ['contract_id', text(envelope.contract_id)],
      [
        'document',
        document.template_id === undefined ? '' : `${text(document.template_id)} v${text(document.version)}`,
      ],
      ['sequential', text(envelope.sequential)],
      ['signature_level', text(envelope.signature_level)],
      ['locale', text(envelope.locale)],
      ['webhook_url', text(envelope.webhook_url)],
      ['created_at', formatTime(envelope.created_at)],
      ['expires_at', formatTime(envelope.expires_at)],
    ];
    const { printRecord, printTable } = await import('../../render/table.js');
    await printRecord(
      output,
      fields
        .filter(([, v]) => v !== '')
        .map(([label, value]) => ({ label, value, ...(WHOLE_FIELDS.has(label) ? { whole: true } : {}) })),
    );
    const signers = Array.isArray(envelope.signers) ? (envelope.signers as Record<string, unknown>[]) : [];
    if (signers.length > 0) {
      output.line();
      await printTable(
        output,
        SIGNER_COLUMNS,
        signers.map((s) => [
          text(s.order),
          text(s.name),
          text(s.channel),
          text(s.email ?? s.phone),
          text(s.verification),
          text(s.status),
        ]),
      );
    }
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
