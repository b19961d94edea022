/**
 * `sign-cli webhooks resend <event-id> [--to <url>]`: asks the service to
 * deliver an event again, as a new delivery of the same body under the same
 * `webhook-id` (receivers de-duplicate it), signed afresh, to the event's own
 * URL or another. Deliberately repeatable: each run is a new resend.
 */
import type { Command } from 'commander';
import { UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { parseResendTarget, resendLine } from '../../render/delivery-rows.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface ResendOptions {
  to?: string;
}

export const doc: CommandDoc = {
  summary: 'deliver an event again: same webhook-id, fresh timestamp and signature',
  details: [
    "A new delivery (its own `dlv_…` id) of the same body under the same `webhook-id`, so a receiver that de-duplicates sees the event it may already have, to the event's own URL (the envelope's `webhook_url`) or to `--to`. It goes out at once, in a queue of its own, and is retried like any delivery; `webhooks deliveries` shows its attempts.",
  ],
  more: [
    "It prints `✓ resent evt_… to <url>: delivery dlv_…` (`--json`: the new delivery, as `deliveries` shows it). Each run is a new resend: a fresh Idempotency-Key per run, the same for that run's retries. `--to` must be an absolute http(s) URL, checked before anything is sent (exit 2). An unknown event is exit 1 (404: only events sent to a `webhook_url` can be resent); a key without `envelopes:write` exit 3. The endpoint, `POST /api/v1/events/{id}/resend`, is an assumption (`paths.resendEvent`).",
  ],
  examples: [
    'evt=$(sign-cli webhooks deliveries --envelope "$id" --limit 1 --json --query event_id)',
    'sign-cli webhooks resend "$evt"                                     # to the envelope\'s webhook_url',
    'sign-cli webhooks resend "$evt" --to http://127.0.0.1:4020/hooks --json',
  ],
};

export function registerResend(webhooks: Command, action: Action): void {
  defineCommand(webhooks, 'resend', doc)
    .argument('<event-id>', 'the event (evt_…), as `webhooks deliveries` shows it')
    .option('--to <url>', "deliver it to this URL instead of the event's own (the envelope's webhook_url)")
    .action(action(resendCommand));
}

export async function resendCommand(
  ctx: CommandContext,
  options: ResendOptions,
  [eventId]: string[],
): Promise<number> {
  const { output } = ctx;
  const id = eventId!.trim();
  if (id === '')
    throw new UsageError('the event id must not be empty', {
      hint: '`sign-cli webhooks deliveries` lists the events delivered',
    });
  // Checked before anything else, so a bad URL is exit 2 with nothing sent (and no key needed).
  const to = options.to === undefined ? undefined : parseResendTarget(options.to);
  const client = await ctx.client({}, ['resendEvent']);
  try {
    const delivery = await client.resendEvent(id, { to, signal: ctx.signal });
    if (output.json) output.jsonDocument(delivery);
    else output.line(`${output.out.green('✓')} ${resendLine(id, delivery)}`);
    if (!output.json && typeof delivery.envelope_id === 'string')
      output.info(`its attempts: sign-cli webhooks deliveries --envelope ${delivery.envelope_id}`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
