/** `sign-cli webhooks listen`: a local receiver that verifies, de-duplicates, prints and forwards. */
import { Option, type Command } from 'commander';
import { SignError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import { maskKey } from '../../../core/keys.js';
import type { CommandContext } from '../../context.js';
import { collect, parseIntegerOption } from '../../flags/values.js';
import type { Action } from '../../action.js';
import { fitLine, free, whole, type LinePart } from '../../render/line-fit.js';
import { eventLine, forwardBodies, forwardParts, jsonEventLine, stamp } from '../../render/listen-lines.js';
import { addSchemeOptions, buildVerifier, schemeAdvice, type SchemeFlags } from './options.js';
import { addInspectOptions, openInspection, type InspectFlags } from './listen-inspect.js';
import type { Rejection } from '../../../listener/server.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface ListenFlags extends SchemeFlags, InspectFlags {
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

export const doc: CommandDoc = {
  summary: 'receive webhooks locally: verify each signature, print each event once, forward to your app',
  details: [
    "It verifies every delivery's signature over the raw bytes (constant-time), prints each verified event once (a redelivery shows as a duplicate), and can forward it to your app. Answers: 2xx only to a verified delivery; 401 for a missing or bad signature or a timestamp outside the tolerance; 400 malformed; 413 too large; 405 not POST. Ctrl-C prints a summary and exits 0.",
  ],
  more: [
    "Secrets come from `--secret-file` (one per line or comma-separated) or `SIGN_WEBHOOK_SECRET` (comma-separated). Several secrets are a rotation: any may match. `whsec_…` secrets verify HMAC signatures (`v1`); `whpk_…` public keys verify Ed25519 signatures (`v1a`, Standard Webhooks' asymmetric scheme); they may be mixed, and a delivery verifies when any of its signatures matches any key. Secrets are only ever shown masked (`whsec_****LaSw`).",
    [
      '- `--scheme standard` (default): Standard Webhooks, `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` (also the `svix-*` names), the `whsec_` secret base64-decoded, several space-separated signatures.',
      '- `--scheme stripe`: `Stripe-Signature: t=…,v1=<hex>`, the secret used as is.',
      '- `--scheme hmac`: an HMAC of the raw body in `--signature-header` (default `x-signature`), hex or base64, `--algorithm sha256|sha512`, a `sha256=` prefix allowed (DocuSign Connect, GitHub style).',
    ].join('\n'),
    "`--events` prints and forwards only those types (comma-separated globs, `*` matching anything); other deliveries are still verified and answered 2xx, so the sender does not retry them. `--forward-to` is repeatable, and `'signer.*=http://…'` takes only those types. Each event goes to every matching target at once; the line shows each app's status and time (`→ 200 12 ms`; a failure is marked `✗`, never silent). The sender gets the app's answer with one target; with several, 200 when all took it, else the first failure's status (502 when an app is down), so its retries follow your apps. `--forward-header` adds a header to every forward (the signature headers cannot be overridden).",
    'A slow, silent or half-open client is cut off with 408 once it has taken 5 s for its headers or 10 s for its whole request; bytes that are not HTTP get 400. Each rejection prints one line on stderr saying exactly why:',
    [
      '  ✗ 401 POST /hooks: timestamp is 3600 s old, beyond the 300 s tolerance (a replay, or a clock out of sync) (id evt_…)',
      '  ✗ 401 POST /hooks: signed the Stripe way (stripe-signature), not standard: use --scheme stripe',
      '  ✗ 401 POST /hooks: body altered in transit (the JSON re-serialised): the signature matches the body as it was sent, not as received (id evt_…)',
      '  ✗ 401 POST /hooks: signature mismatch: 1 signature checked against the secret; wrong secret, or a body rewritten in transit (id evt_…)',
    ].join('\n'),
    'A body altered in transit is told apart from a wrong secret by checking, after a mismatch only, whether the signature fits the body as proxies and frameworks commonly change it (a trailing newline, line ends, a byte-order mark, the JSON re-serialised).',
    'The same event can arrive more than once: a redelivery of an id already seen prints as `duplicate #2 of evt_… (signer.signed), not a new event` (`"duplicate": true` in JSON). The id is `webhook-id`, else the payload\'s `id`, else a hash of the body; `--state` keeps the ids seen across restarts (the newest 50,000). Every event already printed gets its answer out before Ctrl-C ends the listener; a delivery that arrives during the shutdown is refused with 503, so the service sends it again later.',
    '`--save-dir` keeps each delivery exactly as received, verified or refused, one file each (`<time>-<n>-<webhook-id>.http`, mode 0600), which `webhooks verify --request-file` reads. `--json` prints one line per verified event: `{"id", "type", "timestamp", "duplicate", "payload"}`; the apps\' answers then go to stderr.',
    "**The inspector.** `--inspect` serves a page beside the listener (default `127.0.0.1:4040`; `--inspect 0` picks a free port, printed on start): every delivery read whole, verified or refused, newest first, with its time, type, envelope, verdict (a refused one with its reason), redelivery and what each forward target answered, following new ones as they come and filtered by type, status and text. A delivery's page shows its headers, its body as formatted JSON (the raw bytes one click away), the signature's verdict (the secret that matched, masked; the signed timestamp's age) and every answer an app gave. From there it is replayed as received (the same bytes and signature, to the forward targets or to a URL on this machine or a private network; any address with `--allow-remote`), or edited and signed again with the listener's secret, in its scheme, with a fresh timestamp (and a new `webhook-id` when the body changed), so the app takes it.",
    'The same as JSON, for scripts and tests: `GET /api/deliveries` (newest first; `?type=`, `?status=verified|refused|duplicate|forward-failed`, `?q=`, `?before=<id>`, `?limit=`), `GET /api/deliveries/<id>` (with `headers`, `body`, `signature`, `replays`), `POST /api/deliveries/<id>/replay` with an optional `{"body": "…", "headers": {"name": "value"}, "to": "http://…"}` (a body or headers: edited, signed again). A script\'s JSON POST is taken; a browser\'s from another site is refused (403), and every request must name the inspector in `Host` (an IP address or `localhost`: DNS rebinding). Secrets are masked in the page and the API as everywhere.',
    'Deliveries are kept in SQLite (`inspector/deliveries.sqlite` in the state directory, or `--inspect-db <file>`; mode 0600, one listener a file), the newest `--inspect-keep` (default 10,000), the oldest dropped first, so a restarted listener shows what came before. They are written once deliveries pause for a tenth of a second, or every 5 s while they keep coming (so that writing does not slow the listener under load), and whenever the page or the API lists them; a stopped listener (Ctrl-C) writes them all first, while one killed outright under load may lose its last 5 s. That needs node:sqlite (Node 22.13 or later): on an older Node the inspector keeps them in memory, and says so, and `--inspect-db` is refused.',
  ],
  examples: [
    'sign-cli webhooks listen --port 4021                     # any path; the secret from SIGN_WEBHOOK_SECRET',
    '(umask 077; printenv SIGN_WEBHOOK_SECRET > secret.txt)   # in the scratch directory, never the repo',
    'sign-cli webhooks listen --port 4021 --secret-file secret.txt --forward-to http://localhost:3000/hooks   # your app on :3000',
    "sign-cli webhooks listen --port 4022 --events 'signer.*,envelope.completed' --forward-to 'signer.*=http://localhost:3000/signers' --forward-to http://localhost:3000/all",
    'sign-cli webhooks listen --port 4023 --save-dir deliveries --json',
    'sign-cli webhooks listen --port 4024 --inspect 127.0.0.1:4044   # every delivery at http://127.0.0.1:4044/, to replay or edit',
  ],
};

export function registerListen(webhooks: Command, action: Action): void {
  const command = defineCommand(webhooks, 'listen', doc)
    .option('--port <n>', 'port to listen on; 0 picks a free one', '4020')
    .option('--host <h>', 'address to bind', '127.0.0.1')
    .option(
      '--events <globs>',
      'only print and forward these event types, comma-separated globs (signer.*,envelope.completed); others are still verified and answered',
    )
    .addOption(
      new Option(
        '--forward-to <[glob=]url>',
        "forward verified deliveries (original body and signature headers) to this URL; 'signer.*=URL' only those types; repeatable",
      )
        .argParser(collect)
        .default([]),
    )
    .addOption(
      new Option(
        '--forward-header <header>',
        "add this header to every forward, written 'name: value'; repeatable",
      )
        .argParser(collect)
        .default([]),
    )
    .option(
      '--forward-insecure',
      "accept a local HTTPS app's self-signed certificate when forwarding; off unless given",
    )
    .option(
      '--state <file>',
      'keep the ids already seen in this file, so duplicates are caught across restarts',
    )
    .option('--max-body <bytes>', 'largest accepted body', String(1024 * 1024))
    .option(
      '--save-dir <dir>',
      'keep each delivery exactly as received (raw HTTP: headers and body), one file each, for `webhooks verify --request-file`',
    );
  addInspectOptions(addSchemeOptions(command)).action(action(listenCommand));
}

export async function listenCommand(ctx: CommandContext, flags: ListenFlags): Promise<number> {
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
    forwardHeaders = Object.fromEntries(
      flags.forwardHeader.map((line) =>
        routes.parseForwardHeader(
          line,
          new Set([...HOP_BY_HOP, 'webhook-id', 'webhook-timestamp', 'webhook-signature']),
        ),
      ),
    );
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (targets.length === 0 && (flags.forwardHeader.length > 0 || flags.forwardInsecure)) {
    throw new UsageError(
      `${flags.forwardInsecure ? '--forward-insecure' : '--forward-header'} needs --forward-to`,
    );
  }
  let capture: import('../../../listener/capture.js').DeliveryCapture | undefined;
  if (flags.saveDir !== undefined) {
    const { DeliveryCapture } = await import('../../../listener/capture.js');
    try {
      capture = new DeliveryCapture(flags.saveDir, ctx.io.clock);
    } catch (error) {
      throw new UsageError(
        `--save-dir ${flags.saveDir}: ${(error as NodeJS.ErrnoException).code === 'EEXIST' || (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'not a directory' : (error as Error).message}`,
      );
    }
  }
  let saveFailures = 0;
  const inspection = await openInspection(ctx, flags, {
    verifier,
    secrets,
    targets,
    forwardHeaders,
    forwardInsecure: flags.forwardInsecure === true,
    maxBodyBytes: maxBody,
  });
  // Lines are fitted to the terminal as events come, synchronously: the Unicode width measure is loaded now.
  if (output.columns !== undefined || output.errColumns !== undefined)
    await (await import('../../render/table.js')).loadUnicodeWidth();
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
      clock: ctx.io.clock,
      ...(events ? { events } : {}),
      ...(inspection ? { observer: inspection.observer } : {}),
      ...(capture
        ? {
            onReceived: (delivery) => {
              try {
                return capture.save(delivery);
              } catch (error) {
                // Said once, then counted: a full disk must not flood the screen or stop the listener.
                if (saveFailures++ === 0)
                  output.warn(
                    `could not save a delivery in ${capture.dir}: ${(error as Error).message}; deliveries are still verified and answered`,
                  );
                return undefined;
              }
            },
          }
        : {}),
      onEvent: (event) => {
        if (!output.json) {
          output.line(eventLine(output, event, stamp(ctx.io.clock)));
        } else {
          try {
            output.jsonLineText(jsonEventLine(event));
          } catch (error) {
            // A --query that fails on one event's data (a type error) must not take the listener down.
            output.error(error);
          }
          // The JSON line keeps its contract shape; what the apps answered goes to stderr.
          if (event.forwards)
            output.info(
              fitLine(
                [
                  whole(event.id),
                  ...event.forwards.flatMap((f, i) => [
                    i === 0 ? ' ' : '  ',
                    ...forwardParts(output.err, f, event.forwards!.length > 1),
                  ]),
                ],
                output.errColumns,
              ),
            );
        }
        if (output.verbose) for (const line of forwardBodies(event, output.errColumns)) output.info(line);
      },
      onReject: (rejection: Rejection) => {
        // The method, the path and parts of the reason are anyone's who can reach the port: escaped,
        // collapsed and cut to the terminal (the path first), so a path cannot wrap into a fake event line.
        const request: LinePart[] =
          rejection.method === undefined
            ? []
            : [' ', free(rejection.method, { min: 4 }), ' ', free(rejection.path ?? '/')];
        output.info(
          fitLine(
            [
              { text: '✗', paint: output.err.red },
              ' ',
              String(rejection.status),
              ...request,
              ': ',
              free(rejection.reason, { rank: 1, min: 60 }),
              schemeAdvice(rejection.suggestion),
            ],
            output.errColumns,
          ),
        );
      },
    });
  } catch (error) {
    await inspection?.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new SignError(`port ${port} on ${flags.host} is already in use`, {
        hint: 'pass --port 0 to pick a free port, or another --port',
      });
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
  if (inspection) {
    inspection.listening(listener.url);
    output.info(`inspect deliveries at ${output.err.bold(inspection.url)} (${inspection.keptIn})`);
  }
  await ctx.untilInterrupted();
  await listener.close();
  await inspection?.close();
  output.flush();
  // A terminal has echoed ^C where the cursor was: the summary starts on a line of its own.
  if (ctx.io.stderr.isTTY === true) output.info('');
  const { received, verified, rejected, duplicates, filtered } = listener.stats;
  output.info(
    `received ${received}, verified ${verified}, rejected ${rejected}, duplicates ${duplicates}${events ? `, not shown (outside --events) ${filtered}` : ''}` +
      (capture
        ? `; saved in ${capture.dir}${saveFailures > 0 ? ` (${saveFailures} could not be saved)` : ''}`
        : ''),
  );
  return ExitCode.ok;
}
