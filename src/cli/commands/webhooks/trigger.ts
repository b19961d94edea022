/** `sign-cli webhooks trigger <type> --to <url>`: send a signed sample event to your own handler. */
import { Argument, Option, type Command } from 'commander';
import { NetworkError, UsageError } from '../../../core/errors.js';
import { oneOf } from '../../flags/choices.js';
import { ExitCode } from '../../exit-codes.js';
import { EVENT_TYPES, sampleEvent } from '../../../core/webhooks/events.js';
import {
  ED25519_PUBLIC_PREFIX,
  hmacSignature,
  signStandard,
  signStripe,
} from '../../../core/webhooks/webhooks.js';
import { VERSION } from '../../../core/version.js';
import { errorCode } from '../../../core/client/wire.js';
import type { CommandContext } from '../../context.js';
import { collect } from '../../flags/values.js';
import type { Action } from '../../action.js';
import { addSchemeOptions, loadSecrets, resolveScheme, type SchemeFlags } from './options.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { completes, valuesOf } from '../../completion/hints.js';

interface TriggerFlags extends SchemeFlags {
  to: string;
  set: string[];
  localOnly?: boolean;
}

/**
 * `--set data.signer.name=Omar` on the sample event, as `stripe trigger
 * --override`: the value is JSON when it parses as JSON (numbers, true, null,
 * "quoted"), else the text itself; missing objects on the path are created.
 */
export function applyOverrides(
  event: Record<string, unknown>,
  sets: readonly string[],
): Record<string, unknown> {
  for (const set of sets) {
    const at = set.indexOf('=');
    const path = at > 0 ? set.slice(0, at).split('.') : [];
    if (path.length === 0 || path.some((key) => !/^[\w-]+$/.test(key))) {
      throw new UsageError(
        `--set ${JSON.stringify(set.slice(0, 60))} must be <path>=<value>, such as data.signer.name=Omar`,
      );
    }
    const text = set.slice(at + 1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // not JSON: the text as given
    }
    let target = event;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      if (next !== undefined && (next === null || typeof next !== 'object' || Array.isArray(next))) {
        throw new UsageError(
          `--set ${path.join('.')}: ${key} is not an object in the ${String(event.type)} sample`,
        );
      }
      target = (target[key] ??= {}) as Record<string, unknown>;
    }
    target[path.at(-1)!] = value;
  }
  return event;
}

export const doc: CommandDoc = {
  summary: 'send a realistic, signed sample event to a URL',
  details: [
    'Like `stripe trigger`: a sample event of that type, signed with your secret, sent to your own handler. Exit 0 when the handler answers 2xx, 1 otherwise. `--set <path>=<value>` overrides a field of the sample (the value is parsed as JSON when it is JSON, else taken as text). With a `whsk_…` signing key as the secret it signs with Ed25519 (`v1a`); a `whpk_…` public key cannot sign (exit 2).',
    "It sends wherever `--to` points (a handler on a staging host or behind a tunnel is yours too). `--local-only` sends only to this machine or a private network, the address checked as the connection is made, so a name that resolves elsewhere by then (DNS rebinding) is refused with exit 2 and nothing sent; the MCP server's `trigger_webhook` always runs with it.",
  ],
  examples: [
    'sign-cli webhooks trigger signer.signed --to http://127.0.0.1:4020/hooks     # the listener of the second terminal',
    "sign-cli webhooks trigger signer.declined --to http://127.0.0.1:4020/hooks --set data.signer.name='Omar Khalil' --set data.reason=wrong_document",
  ],
};

export function registerTrigger(webhooks: Command, action: Action): void {
  const command = defineCommand(webhooks, 'trigger', doc)
    .addArgument(
      completes(new Argument('<type>', `event type: ${EVENT_TYPES.join(', ')}`), valuesOf(EVENT_TYPES)),
    )
    .requiredOption('--to <url>', 'where to POST it')
    .addOption(
      new Option(
        '--set <path=value>',
        'override a field of the sample, e.g. data.signer.name=Omar (JSON values parsed); repeatable',
      )
        .argParser(collect)
        .default([]),
    )
    .option(
      '--local-only',
      'send only to this machine or a private network, checked as the connection is made',
    );
  addSchemeOptions(command, false).action(action(triggerCommand));
}

export async function triggerCommand(
  ctx: CommandContext,
  flags: TriggerFlags,
  [typed]: string[],
): Promise<number> {
  const { output } = ctx;
  const type = oneOf(
    'event type',
    typed,
    EVENT_TYPES,
    (t) => `sign-cli webhooks trigger ${t} --to ${flags.to}`,
  );
  if (!/^https?:\/\/[^/]/.test(flags.to))
    throw new UsageError(`--to must be an http(s) URL, got ${JSON.stringify(flags.to)}`);
  const [secret] = loadSecrets(ctx, flags);
  const scheme = await resolveScheme(ctx, flags);
  const event = applyOverrides(sampleEvent(type) as unknown as Record<string, unknown>, flags.set);
  const id = typeof event.id === 'string' && event.id !== '' ? event.id : undefined;
  if (!id) throw new UsageError('--set id: the event id must be a non-empty string (it is the webhook-id)');
  if (secret!.startsWith(ED25519_PUBLIC_PREFIX)) {
    throw new UsageError('a whpk_ public key verifies but cannot sign', {
      hint: 'trigger signs with the whsk_ signing key (its public half, whpk_, goes to the receiver)',
    });
  }
  const body = JSON.stringify(event);
  const timestamp = Math.floor(ctx.io.clock.now() / 1000);
  let signature: Record<string, string>;
  try {
    signature =
      scheme === 'standard'
        ? { ...signStandard(secret!, id, timestamp, body) }
        : scheme === 'stripe'
          ? { 'stripe-signature': signStripe(secret!, timestamp, body) }
          : { [flags.signatureHeader.toLowerCase()]: hmacSignature(secret!, body, flags.algorithm) };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { request } = await import('undici');
  // One lookup per connection, made by the connection: what was checked is what is connected to.
  const local = flags.localOnly ? await import('../../../core/receiver-test/local-connector.js') : undefined;
  const dispatcher = local?.localOnlyAgent({ connectTimeoutMs: 10_000 });
  const started = ctx.io.clock.now();
  let status: number;
  try {
    const response = await request(flags.to, {
      ...(dispatcher ? { dispatcher } : {}),
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': `sign-cli/${VERSION} (webhooks trigger)`,
        ...signature,
      },
      body,
      signal: ctx.signal,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    await response.body.dump();
    status = response.statusCode;
  } catch (error) {
    if (local && errorCode(error) === local.NOT_LOCAL)
      throw new UsageError(
        `refused to connect: ${(error as Error).message} (--local-only); nothing was sent`,
        {
          hint: 'send to this machine (127.0.0.1, localhost) or an address of your private network',
        },
      );
    throw new NetworkError(
      `could not deliver ${type} to ${flags.to}: ${(error as Error).message}`,
      (error as { code?: string }).code,
      {
        hint: 'is your handler running on that address?',
      },
    );
  } finally {
    await dispatcher?.close();
  }
  const ms = ctx.io.clock.now() - started;
  const ok = status >= 200 && status < 300;
  if (output.json) output.jsonLine({ id, type, url: flags.to, status, duration_ms: ms });
  else
    output.line(
      `${ok ? output.out.green('✓') : output.out.red('✗')} ${type} ${id} → ${flags.to}: HTTP ${status} in ${ms} ms`,
    );
  return ok ? ExitCode.ok : ExitCode.failed;
}
