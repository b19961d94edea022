/** `sign-cli webhooks listen`: a local receiver that verifies, de-duplicates, prints and forwards. */
import type { ChalkInstance } from 'chalk';
import type { Command } from 'commander';
import { ExitCode, SignError, UsageError } from '../../../core/errors.js';
import { maskKey } from '../../../core/keys.js';
import { parseIntegerOption, type CommandContext } from '../../context.js';
import type { Output } from '../../output.js';
import type { Action } from '../../run.js';
import { addSchemeOptions, buildVerifier, type SchemeFlags } from './options.js';
import type { ListenedEvent, Rejection } from '../../../listener/server.js';

interface ListenFlags extends SchemeFlags {
  port: string;
  host: string;
  forwardTo?: string;
  state?: string;
  maxBody: string;
}

export function registerListen(webhooks: Command, action: Action): void {
  const command = webhooks
    .command('listen')
    .description('receive webhooks locally: verify each signature, print each event once, forward to your app')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '4020')
    .option('--host <h>', 'address to bind', '127.0.0.1')
    .option('--forward-to <url>', 'forward each verified delivery (original body and headers) to this URL')
    .option('--state <file>', 'keep the ids already seen in this file, so duplicates are caught across restarts')
    .option('--max-body <bytes>', 'largest accepted body', String(1024 * 1024));
  addSchemeOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  $ SIGN_WEBHOOK_SECRET=whsec_... sign-cli webhooks listen
  $ sign-cli webhooks listen --port 4020 --secret-file secret.txt --forward-to http://localhost:3000/hooks
  $ sign-cli webhooks listen --scheme stripe --secret-file stripe.txt --json | jq .type`,
    )
    .action(action(listenCommand));
}

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

/**
 * `{"id","type","timestamp","duplicate","payload"}` on one line. The payload is
 * the received JSON text itself when it is already one line (it was parsed, so
 * it is valid JSON), which spares serialising it again for every event.
 */
function jsonEventLine(event: ListenedEvent): string {
  const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.timestamp)},"duplicate":${event.duplicate},"payload":`;
  const payload = /[\r\n]/.test(event.rawBody) ? JSON.stringify(event.payload) : event.rawBody.trim();
  return `${head}${payload}}`;
}

function eventLine(output: Output, event: ListenedEvent): string {
  const { out } = output;
  const data = (event.payload as { data?: Record<string, unknown> } | null)?.data ?? {};
  const signer = (data.signer ?? {}) as { name?: string; status?: string };
  const envelope = typeof data.envelope_id === 'string' ? data.envelope_id : '';
  const status = signer.status ?? (typeof data.envelope_status === 'string' ? data.envelope_status : '');
  const colour = /completed|signed/.test(event.type) ? out.green : /declined|failed|expired/.test(event.type) ? out.red : out.cyan;
  let line = `${out.dim(clock())}  ${colour(event.type.padEnd(26))} ${envelope.padEnd(24)} ${(signer.name ?? '').padEnd(18)} ${status}`.trimEnd();
  if (event.duplicate) line = `${out.dim(clock())}  ${out.yellow(`duplicate #${event.delivery}`)} of ${event.id} (${event.type}), not a new event`;
  if (event.forward) line += `  ${forwardText(out, event.forward)}`;
  return line;
}

/** What the app answered a forwarded delivery (`→ 200 12 ms`), or why forwarding failed. */
function forwardText(colour: ChalkInstance, forward: NonNullable<ListenedEvent['forward']>): string {
  if (!('status' in forward)) return colour.red(`→ forward failed: ${forward.error}`);
  const status = String(forward.status);
  return `${colour.dim('→')} ${forward.status < 300 ? colour.green(status) : colour.red(status)} ${colour.dim(`${forward.durationMs} ms`)}`;
}

async function listenCommand(ctx: CommandContext, flags: ListenFlags): Promise<number> {
  const { output } = ctx;
  const { verifier, secrets } = await buildVerifier(ctx, flags);
  const port = parseIntegerOption('--port', flags.port, 0, 65535);
  const maxBody = parseIntegerOption('--max-body', flags.maxBody, 1);
  if (flags.forwardTo !== undefined && !/^https?:\/\/[^/]/.test(flags.forwardTo)) {
    throw new UsageError(`--forward-to must be an http(s) URL, got ${JSON.stringify(flags.forwardTo)}`);
  }
  output.batchStdout();
  const [{ startListener }, { SeenIds }] = await Promise.all([import('../../../listener/server.js'), import('../../../listener/seen-ids.js')]);
  let listener;
  try {
    listener = await startListener({
      host: flags.host,
      port,
      verifier,
      seen: new SeenIds(undefined, flags.state),
      maxBodyBytes: maxBody,
      forwardTo: flags.forwardTo,
      onEvent: (event) => {
        if (!output.json) {
          output.line(eventLine(output, event));
          return;
        }
        output.jsonLineText(jsonEventLine(event));
        // The JSON line keeps its contract shape; what the app answered goes to stderr.
        if (event.forward) output.info(`${event.id} ${forwardText(output.err, event.forward)}`);
      },
      onReject: (rejection: Rejection) => {
        const request = rejection.method === undefined ? '' : ` ${rejection.method} ${rejection.path ?? '/'}`;
        output.info(`${output.err.red('✗')} ${rejection.status}${request}: ${rejection.reason}`);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new SignError(`port ${port} on ${flags.host} is already in use`, { hint: 'pass --port 0 to pick a free port, or another --port' });
    }
    throw error;
  }
  const shown = secrets.map((s) => maskKey(s)).join(', ');
  output.info(
    `listening on ${output.err.bold(listener.url)} (${verifier.scheme} signatures, ${secrets.length} secret${secrets.length === 1 ? '' : 's'} ${shown}, ` +
      `tolerance ${verifier.toleranceSeconds} s)${flags.forwardTo ? `, forwarding to ${flags.forwardTo}` : ''}; Ctrl-C to stop`,
  );
  await ctx.untilInterrupted();
  await listener.close();
  output.flush();
  const { received, verified, rejected, duplicates } = listener.stats;
  output.info(`received ${received}, verified ${verified}, rejected ${rejected}, duplicates ${duplicates}`);
  return ExitCode.ok;
}
