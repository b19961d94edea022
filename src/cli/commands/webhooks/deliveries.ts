/**
 * `sign-cli webhooks deliveries`: the webhook deliveries the service recorded,
 * newest first, each with every attempt (time, status, duration, error).
 * `--failed` shows what needs attention: deliveries that failed for good and
 * those failing still (retrying).
 */
import type { Command } from 'commander';
import {
  FAILING_STATES,
  type DeliveryFilter,
  type WebhookDelivery,
} from '../../../core/webhooks/deliveries.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { DELIVERY_COLUMNS, deliveryRow } from '../../render/delivery-rows.js';
import { askFor, listLimit, moreLine, upTo } from '../../flags/listing.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface DeliveriesOptions {
  envelope?: string;
  failed?: boolean;
  limit?: string;
  all?: boolean;
}

const DEFAULT_LIMIT = 20;

export const doc: CommandDoc = {
  summary: 'list the webhook deliveries the service recorded, newest first, with every attempt',
  details: [
    'One row per delivery (an event to a URL): the attempts so far, how the last one ended, the state and when the last attempt started. States: `pending` (not tried yet), `retrying` (an attempt failed, another is scheduled), `delivered`, `failed` (every retry failed); a resend is a delivery of its own, marked `(resend)`. `--failed` shows `failed` and `retrying`. With `--json`, one delivery per line (NDJSON) with its attempts, so `--query` applies to each.',
  ],
  more: [
    'Event ids alone take 36 columns, so below about 150 columns each delivery is shown stacked, one `label: value` line per column; wider, as a table. `--limit <n>` pages through as far as needed and says when there are more; `--all` follows the cursor to the last page.',
    '  {"object":"webhook_delivery","id":"dlv_…","event_id":"evt_…","event_type":"envelope.created","envelope_id":"env_…","url":"http://127.0.0.1:4020/webhooks","status":"retrying","resend":false,"attempt_count":2,"attempts":[{"attempt":1,"started_at":"2026-11-21T10:00:00.120Z","status":500,"duration_ms":3,"error":"HTTP 500"}],"last_status":500,"last_error":"HTTP 500","next_attempt_at":"2026-11-21T10:00:35.130Z","created_at":"2026-11-21T10:00:00.100Z","finished_at":null}',
    "The service's published interface shows no such endpoint: `GET /api/v1/webhook-deliveries` is an assumption (scope `envelopes:read`; docs/assumptions.md, path overridable as `paths.listDeliveries`), which the sandbox implements.",
  ],
  examples: [
    'sign-cli webhooks deliveries                      # the newest 20',
    'sign-cli webhooks deliveries --failed             # failed for good, or failing still (retrying)',
    'sign-cli webhooks deliveries --envelope "$id" --limit 50',
    'sign-cli webhooks deliveries --all --json > deliveries.ndjson   # every one, page by page',
    'sign-cli webhooks deliveries --envelope "$id" --json --query \'[event_type, status, attempts[].status]\'',
  ],
};

export function registerDeliveries(webhooks: Command, action: Action): void {
  defineCommand(webhooks, 'deliveries', doc)
    .option('--envelope <id>', 'only deliveries of this envelope')
    .option(
      '--failed',
      'only deliveries that failed for good or are failing still (state failed or retrying)',
    )
    .option('--limit <n>', `how many to show (default: ${DEFAULT_LIMIT})`)
    .option('--all', 'every matching delivery, page by page (not with --limit)')
    .action(action(deliveriesCommand));
}

export async function deliveriesCommand(ctx: CommandContext, options: DeliveriesOptions): Promise<number> {
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
      output.info(
        `no ${options.failed ? 'failed or retrying ' : ''}deliveries${options.envelope !== undefined ? ` of ${options.envelope}` : ''}`,
      );
      return ExitCode.ok;
    }
    const { out } = output;
    const { printTable } = await import('../../render/table.js');
    await printTable(
      output,
      DELIVERY_COLUMNS,
      all.map((d) => deliveryRow(d, out)),
    );
    if (seen.more) output.info(moreLine(limit ?? all.length));
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
