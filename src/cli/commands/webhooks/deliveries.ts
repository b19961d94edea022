/**
 * `sign-cli webhooks deliveries`: the webhook deliveries the service recorded,
 * newest first, each with every attempt (time, status, duration, error).
 * `--failed` shows what needs attention: deliveries that failed for good and
 * those failing still (retrying).
 */
import type { Command } from 'commander';
import { FAILING_STATES, type DeliveryFilter, type WebhookDelivery } from '../../../core/deliveries.js';
import { ExitCode } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { DELIVERY_COLUMNS, deliveryRow } from '../../delivery-rows.js';
import { askFor, listLimit, upTo } from '../../listing.js';
import type { Action } from '../../action.js';

interface DeliveriesOptions {
  envelope?: string;
  failed?: boolean;
  limit?: string;
  all?: boolean;
}

const DEFAULT_LIMIT = 20;

export function registerDeliveries(webhooks: Command, action: Action): void {
  webhooks
    .command('deliveries')
    .description('list the webhook deliveries the service recorded, newest first, with every attempt')
    .option('--envelope <id>', 'only deliveries of this envelope')
    .option('--failed', 'only deliveries that failed for good or are failing still (state failed or retrying)')
    .option('--limit <n>', `how many to show (default: ${DEFAULT_LIMIT})`)
    .option('--all', 'every matching delivery, page by page (not with --limit)')
    .addHelpText(
      'after',
      `
States: pending (not tried yet), retrying (an attempt failed, another is scheduled),
delivered, failed (every retry failed). A resend is a delivery of its own, marked (resend).
With --json, one delivery per line (NDJSON) with its attempts, so --query applies to each.

Examples:
  $ sign-cli webhooks deliveries
  $ sign-cli webhooks deliveries --failed
  $ sign-cli webhooks deliveries --envelope env_8Yq2VwM4bXc1 --json
  $ sign-cli webhooks deliveries --failed --json --query event_id
  $ sign-cli webhooks deliveries --all --json > deliveries.ndjson`,
    )
    .action(action(deliveriesCommand));
}

async function deliveriesCommand(ctx: CommandContext, options: DeliveriesOptions): Promise<number> {
  const { output } = ctx;
  const limit = listLimit(options, 'delivery', DEFAULT_LIMIT);
  const filter: DeliveryFilter = {
    ...(options.envelope !== undefined ? { envelopeId: options.envelope } : {}),
    ...(options.failed ? { status: FAILING_STATES } : {}),
  };
  const client = await ctx.client({}, ['listDeliveries']);
  try {
    const seen = { more: false };
    const deliveries = upTo(client.deliveries(filter, { ...askFor(limit), signal: ctx.signal }), limit, seen);
    // --json streams each delivery as it comes; the table needs every row for its widths.
    const all: WebhookDelivery[] = [];
    for await (const delivery of deliveries) {
      if (output.json) output.jsonLine(delivery);
      else all.push(delivery);
    }
    if (output.json) return ExitCode.ok;
    if (all.length === 0) {
      output.info(`no ${options.failed ? 'failed or retrying ' : ''}deliveries${options.envelope !== undefined ? ` of ${options.envelope}` : ''}`);
      return ExitCode.ok;
    }
    const { out } = output;
    const { printTable } = await import('../../table.js');
    printTable(output, DELIVERY_COLUMNS, all.map((d) => deliveryRow(d, out)));
    if (seen.more) output.info(`showing the newest ${limit}; there are more: --limit <n> shows more, --all shows every one`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
