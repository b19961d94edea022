/**
 * `sign-cli webhooks resend <event-id> [--to <url>]`: asks the service to
 * deliver an event again, as a new delivery of the same body under the same
 * `webhook-id` (receivers de-duplicate it), signed afresh, to the event's own
 * URL or another. Deliberately repeatable: each run is a new resend.
 */
import type { Command } from 'commander';
import { ExitCode, UsageError } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { parseResendTarget, resendLine } from '../../delivery-rows.js';
import type { Action } from '../../action.js';

interface ResendOptions {
  to?: string;
}

export function registerResend(webhooks: Command, action: Action): void {
  webhooks
    .command('resend')
    .description('deliver an event again: same webhook-id, fresh timestamp and signature')
    .argument('<event-id>', 'the event (evt_…), as `webhooks deliveries` shows it')
    .option('--to <url>', "deliver it to this URL instead of the event's own (the envelope's webhook_url)")
    .addHelpText(
      'after',
      `
The service answers once the resend is queued; \`sign-cli webhooks deliveries\` shows its attempts.

Examples:
  $ sign-cli webhooks resend evt_3f9c0a1b2c3d4e5f60718293a4b5c6d7
  $ sign-cli webhooks resend evt_3f9c0a1b2c3d4e5f60718293a4b5c6d7 --to http://127.0.0.1:4020/hooks --json`,
    )
    .action(action(resendCommand));
}

async function resendCommand(ctx: CommandContext, options: ResendOptions, [eventId]: string[]): Promise<number> {
  const { output } = ctx;
  const id = eventId!.trim();
  if (id === '') throw new UsageError('the event id must not be empty', { hint: '`sign-cli webhooks deliveries` lists the events delivered' });
  // Checked before anything else, so a bad URL is exit 2 with nothing sent (and no key needed).
  const to = options.to === undefined ? undefined : parseResendTarget(options.to);
  const client = await ctx.client({}, ['resendEvent']);
  try {
    const delivery = await client.resendEvent(id, { to, signal: ctx.signal });
    if (output.json) output.jsonDocument(delivery);
    else output.line(`${output.out.green('✓')} ${resendLine(id, delivery)}`);
    if (!output.json && typeof delivery.envelope_id === 'string') output.info(`its attempts: sign-cli webhooks deliveries --envelope ${delivery.envelope_id}`);
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
