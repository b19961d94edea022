/** `sign-cli webhooks listen`: a local receiver that verifies, de-duplicates, prints and forwards. */
import type { ChalkInstance } from 'chalk';
import { Option, type Command } from 'commander';
import { ExitCode, SignError, UsageError } from '../../../core/errors.js';
import { maskKey } from '../../../core/keys.js';
import { collect, parseIntegerOption, type CommandContext } from '../../context.js';
import type { Output } from '../../output.js';
import type { Action } from '../../action.js';
import { formatInstant } from '../../time.js';
import { cellText } from '../../cell.js';
import { untrusted } from '../../../core/text.js';
import { addSchemeOptions, buildVerifier, schemeAdvice, type SchemeFlags } from './options.js';
import type { ForwardOutcome, ListenedEvent, Rejection } from '../../../listener/server.js';

interface ListenFlags extends SchemeFlags {
  port: string;
  host: string;
  forwardTo: string[];
  forwardHeader: string[];
  forwardInsecure?: boolean;
  events?: string;
  state?: string;
  maxBody: string;
  saveDir?: string;
}

export function registerListen(webhooks: Command, action: Action): void {
  const command = webhooks
    .command('listen')
    .description('receive webhooks locally: verify each signature, print each event once, forward to your app')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '4020')
    .option('--host <h>', 'address to bind', '127.0.0.1')
    .option('--events <globs>', 'only print and forward these event types, comma-separated globs (signer.*,envelope.completed); others are still verified and answered')
    .addOption(
      new Option('--forward-to <[glob=]url>', "forward verified deliveries (original body and signature headers) to this URL; 'signer.*=URL' only those types; repeatable")
        .argParser(collect)
        .default([]),
    )
    .addOption(new Option('--forward-header <header>', "add this header to every forward, written 'name: value'; repeatable").argParser(collect).default([]))
    .option('--forward-insecure', "accept a local HTTPS app's self-signed certificate when forwarding; off unless given")
    .option('--state <file>', 'keep the ids already seen in this file, so duplicates are caught across restarts')
    .option('--max-body <bytes>', 'largest accepted body', String(1024 * 1024))
    .option('--save-dir <dir>', 'keep each delivery exactly as received (raw HTTP: headers and body), one file each, for `webhooks verify --request-file`');
  addSchemeOptions(command)
    .addHelpText(
      'after',
      `
Examples:
  $ SIGN_WEBHOOK_SECRET=whsec_... sign-cli webhooks listen
  $ sign-cli webhooks listen --port 4020 --secret-file secret.txt --forward-to http://localhost:3000/hooks
  $ sign-cli webhooks listen --events 'signer.*,envelope.completed' --forward-to 'signer.*=http://localhost:3000/signers' --forward-to http://localhost:3000/all
  $ sign-cli webhooks listen --scheme stripe --secret-file stripe.txt --json | jq .type
  $ sign-cli webhooks listen --save-dir deliveries/
  $ sign-cli webhooks verify --request-file deliveries/<file>.http --tolerance 0   # later, offline`,
    )
    .action(action(listenCommand));
}

/** When the delivery arrived, in the one time format (UTC, marked): the same text on every machine. */
function clock(): string {
  return formatInstant(new Date());
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

/**
 * One line per event, always: every value comes from a delivery, so each is
 * escaped (a signer named `Omar\n06:43:00  envelope.completed …` shows as
 * one name, not a second event) before sign-cli colours it.
 */
export function eventLine(output: Pick<Output, 'out'>, event: ListenedEvent, at: string = clock()): string {
  const { out } = output;
  const payload = event.payload as { data?: unknown } | null;
  const data = (payload && typeof payload.data === 'object' && payload.data !== null ? payload.data : {}) as Record<string, unknown>;
  const signer = (typeof data.signer === 'object' && data.signer !== null ? data.signer : {}) as Record<string, unknown>;
  const type = cellText(event.type);
  const status = cellText(signer.status ?? data.envelope_status);
  const colour = /completed|signed/.test(type) ? out.green : /declined|failed|expired/.test(type) ? out.red : out.cyan;
  let line = `${out.dim(at)}  ${colour(type.padEnd(26))} ${cellText(data.envelope_id).padEnd(24)} ${cellText(signer.name).padEnd(18)} ${status}`.trimEnd();
  if (event.duplicate) line = `${out.dim(at)}  ${out.yellow(`duplicate #${event.delivery}`)} of ${cellText(event.id)} (${type}), not a new event`;
  if (event.forwards) line += `  ${event.forwards.map((f) => forwardText(out, f, event.forwards!.length > 1)).join('  ')}`;
  return line;
}

/** What the app answered a forwarded delivery (`→ 200 12 ms`, with its URL when there are several), or why forwarding failed. */
function forwardText(colour: ChalkInstance, forward: ForwardOutcome, withUrl: boolean): string {
  const where = withUrl ? ` ${forward.url}` : '';
  // A failed forward is never silent: red, and marked ✗ for a terminal without colour.
  if (!('status' in forward)) return `${colour.dim('→')}${where} ${colour.red(`forward failed: ${untrusted(forward.error)} ✗`)}`;
  const ok = forward.status >= 200 && forward.status < 300;
  return `${colour.dim('→')}${where} ${ok ? colour.green(String(forward.status)) : colour.red(`${forward.status} ✗`)} ${colour.dim(`${forward.durationMs} ms`)}`;
}

/** --verbose: what each app answered, one line each. */
function forwardBodies(event: ListenedEvent): string[] {
  return (event.forwards ?? []).flatMap((f) => ('body' in f ? [`  ← ${f.url}: ${untrusted(f.body.replace(/\s+/g, ' ').trim().slice(0, 200)) || '(empty body)'}`] : []));
}

async function listenCommand(ctx: CommandContext, flags: ListenFlags): Promise<number> {
  const { output } = ctx;
  const { verifier, secrets } = await buildVerifier(ctx, flags);
  const port = parseIntegerOption('--port', flags.port, 0, 65535);
  const maxBody = parseIntegerOption('--max-body', flags.maxBody, 1);
  const [{ startListener, HOP_BY_HOP }, { SeenIds }, routes] = await Promise.all([
    import('../../../listener/server.js'),
    import('../../../listener/seen-ids.js'),
    import('../../../listener/routes.js'),
  ]);
  // Every flag is checked before the port is opened: a mistake is exit 2, and nothing listens.
  let targets, events, forwardHeaders: Record<string, string>;
  try {
    targets = flags.forwardTo.map(routes.parseForwardTarget);
    events = flags.events === undefined ? undefined : routes.eventFilter(flags.events);
    forwardHeaders = Object.fromEntries(flags.forwardHeader.map((line) => routes.parseForwardHeader(line, new Set([...HOP_BY_HOP, 'webhook-id', 'webhook-timestamp', 'webhook-signature']))));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (targets.length === 0 && (flags.forwardHeader.length > 0 || flags.forwardInsecure)) {
    throw new UsageError(`${flags.forwardInsecure ? '--forward-insecure' : '--forward-header'} needs --forward-to`);
  }
  let capture: import('../../../listener/capture.js').DeliveryCapture | undefined;
  if (flags.saveDir !== undefined) {
    const { DeliveryCapture } = await import('../../../listener/capture.js');
    try {
      capture = new DeliveryCapture(flags.saveDir);
    } catch (error) {
      throw new UsageError(`--save-dir ${flags.saveDir}: ${(error as NodeJS.ErrnoException).code === 'EEXIST' || (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'not a directory' : (error as Error).message}`);
    }
  }
  let saveFailures = 0;
  output.batchStdout();
  let listener;
  try {
    listener = await startListener({
      host: flags.host,
      port,
      verifier,
      seen: new SeenIds(undefined, flags.state),
      maxBodyBytes: maxBody,
      forwardTo: targets,
      forwardHeaders,
      forwardInsecure: flags.forwardInsecure === true,
      ...(events ? { events } : {}),
      ...(capture
        ? {
            onReceived: (delivery) => {
              try {
                return capture.save(delivery);
              } catch (error) {
                // Said once, then counted: a full disk must not flood the screen or stop the listener.
                if (saveFailures++ === 0) output.warn(`could not save a delivery in ${capture.dir}: ${(error as Error).message}; deliveries are still verified and answered`);
                return undefined;
              }
            },
          }
        : {}),
      onEvent: (event) => {
        if (!output.json) {
          output.line(eventLine(output, event));
        } else {
          try {
            output.jsonLineText(jsonEventLine(event));
          } catch (error) {
            // A --query that fails on one event's data (a type error) must not take the listener down.
            output.error(error);
          }
          // The JSON line keeps its contract shape; what the apps answered goes to stderr.
          if (event.forwards) output.info(`${cellText(event.id)} ${event.forwards.map((f) => forwardText(output.err, f, event.forwards!.length > 1)).join('  ')}`);
        }
        if (output.verbose) for (const line of forwardBodies(event)) output.info(line);
      },
      onReject: (rejection: Rejection) => {
        // The method, the path and parts of the reason are the sender's: escaped before the ✗ is coloured.
        const request = rejection.method === undefined ? '' : ` ${untrusted(rejection.method)} ${untrusted(rejection.path ?? '/')}`;
        output.info(`${output.err.red('✗')} ${rejection.status}${request}: ${untrusted(rejection.reason)}${schemeAdvice(rejection.suggestion)}`);
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
      `tolerance ${verifier.toleranceSeconds} s)${flags.events ? `, only ${flags.events}` : ''}` +
      `${targets.length > 0 ? `, forwarding ${targets.map((t) => (t.pattern ? `${t.pattern} to ${t.url}` : `to ${t.url}`)).join(', ')}` : ''}` +
      `${capture ? `, saving each delivery in ${capture.dir}` : ''}; Ctrl-C to stop`,
  );
  await ctx.untilInterrupted();
  await listener.close();
  output.flush();
  const { received, verified, rejected, duplicates, filtered } = listener.stats;
  output.info(
    `received ${received}, verified ${verified}, rejected ${rejected}, duplicates ${duplicates}${events ? `, not shown (outside --events) ${filtered}` : ''}` +
      (capture ? `; saved in ${capture.dir}${saveFailures > 0 ? ` (${saveFailures} could not be saved)` : ''}` : ''),
  );
  return ExitCode.ok;
}
