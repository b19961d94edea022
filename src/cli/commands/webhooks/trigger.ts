/** `sign-cli webhooks trigger <type> --to <url>`: send a signed sample event to your own handler. */
import type { Command } from 'commander';
import { ExitCode, NetworkError, UsageError } from '../../../core/errors.js';
import { EVENT_TYPES, isEventType, sampleEvent } from '../../../core/events.js';
import { hmacSignature, signStandard, signStripe } from '../../../core/webhooks.js';
import { VERSION } from '../../../core/version.js';
import type { CommandContext } from '../../context.js';
import type { Action } from '../../run.js';
import { addSchemeOptions, loadSecrets, resolveScheme, type SchemeFlags } from './options.js';

interface TriggerFlags extends SchemeFlags {
  to: string;
}

export function registerTrigger(webhooks: Command, action: Action): void {
  const command = webhooks
    .command('trigger')
    .description('send a realistic, signed sample event to a URL')
    .argument('<type>', `event type: ${EVENT_TYPES.join(', ')}`)
    .requiredOption('--to <url>', 'where to POST it');
  addSchemeOptions(command, false)
    .addHelpText('after', '\nExample:\n  $ sign-cli webhooks trigger signer.signed --to http://localhost:3000/hooks --secret-file secret.txt')
    .action(action(triggerCommand));
}

async function triggerCommand(ctx: CommandContext, flags: TriggerFlags, [type]: string[]): Promise<number> {
  const { output } = ctx;
  if (!type || !isEventType(type)) {
    throw new UsageError(`unknown event type ${JSON.stringify(type)}`, { hint: `use one of: ${EVENT_TYPES.join(', ')}` });
  }
  if (!/^https?:\/\/[^/]/.test(flags.to)) throw new UsageError(`--to must be an http(s) URL, got ${JSON.stringify(flags.to)}`);
  const [secret] = loadSecrets(ctx, flags);
  const scheme = await resolveScheme(ctx, flags);
  const event = sampleEvent(type);
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  let signature: Record<string, string>;
  try {
    signature =
      scheme === 'standard'
        ? { ...signStandard(secret!, event.id, timestamp, body) }
        : scheme === 'stripe'
          ? { 'stripe-signature': signStripe(secret!, timestamp, body) }
          : { [flags.signatureHeader.toLowerCase()]: hmacSignature(secret!, body, flags.algorithm) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { request } = await import('undici');
  const started = Date.now();
  let status: number;
  try {
    const response = await request(flags.to, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `sign-cli/${VERSION} (webhooks trigger)`, ...signature },
      body,
      signal: ctx.signal,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    await response.body.dump();
    status = response.statusCode;
  } catch (error) {
    throw new NetworkError(`could not deliver ${type} to ${flags.to}: ${(error as Error).message}`, (error as { code?: string }).code, {
      hint: 'is your handler running on that address?',
    });
  }
  const ms = Date.now() - started;
  const ok = status >= 200 && status < 300;
  if (output.json) output.jsonLine({ id: event.id, type, url: flags.to, status, duration_ms: ms });
  else output.line(`${ok ? output.out.green('✓') : output.out.red('✗')} ${type} ${event.id} → ${flags.to}: HTTP ${status} in ${ms} ms`);
  return ok ? ExitCode.ok : ExitCode.failed;
}
