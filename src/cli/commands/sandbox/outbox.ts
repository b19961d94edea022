/**
 * `sign-cli sandbox outbox`: what the sandbox would have sent to people
 * (invitations, reminders, codes, ID requests, completion notices), read from
 * its GET /_sandbox/outbox, as a mail catcher shows them; `--follow` prints
 * new ones as they arrive, until Ctrl-C.
 */
import type { Command } from 'commander';
import { checkEnvelopeId } from '../../../core/client/client-requests.js';
import { InterruptedError, UnexpectedResponseError } from '../../../core/errors.js';
import { isRecord } from '../../../core/envelope/records.js';
import { ExitCode } from '../../exit-codes.js';
import type { Action } from '../../action.js';
import type { CommandContext } from '../../context.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { cellText as text } from '../../render/cell.js';
import { fitLine, free, whole, type LinePart } from '../../render/line-fit.js';
import { prepareWidths } from '../../layout/width.js';
import { formatTime } from '../../render/time.js';
import { getSandboxJson } from './sandbox-api.js';

interface OutboxOptions {
  envelope?: string;
  follow?: boolean;
}

/** One message as the sandbox lists it (docs/sandbox.md); kept whole for --json. */
export type OutboxMessage = Record<string, unknown> & { id: string };

/** How often --follow asks for new messages. */
export const FOLLOW_INTERVAL_MS = 1_000;

const NOT_THE_SANDBOX =
  'the outbox exists only in the sandbox (`sign-cli sandbox`); real signers receive their messages from the service';

export const doc: CommandDoc = {
  summary: 'show the messages the sandbox sent to signers: invitations, reminders, codes, links',
  details: [
    "Like a mail catcher: one block per message, oldest first: its time, channel, recipient and kind (`invitation`, `reminder`, `code`, `id_request`, `completed`), its envelope, then its subject and its link. It reads the sandbox of the base URL and key in use (SIGN_BASE_URL, a profile, `--base-url`): the sandbox's own key sees every message, another key those of its account and environment. `--json` prints each message whole, its text included, one per line (NDJSON), so `--query` picks a field of each.",
    '`--follow` asks every second for new messages and prints them as they arrive, until Ctrl-C (exit 0, its normal end). Against a service that is not the sandbox it fails (exit 1): real signers get their messages from the service.',
  ],
  more: [
    "A journey started with `sign-cli sandbox --journey manual` waits for people: the outbox holds what each of them was sent (an invitation with the link to their signing page, a one-time code), and `sign-cli envelopes open <id>` opens a signer's page. No messages: it says so on stderr and exits 0.",
  ],
  examples: [
    'sign-cli sandbox outbox',
    'sign-cli sandbox outbox --envelope "$id" --json --query "[kind, to, link]"',
    'sign-cli sandbox outbox --follow                     # new messages as they arrive, until Ctrl-C',
  ],
};

export function registerOutbox(sandbox: Command, action: Action): void {
  defineCommand(sandbox, 'outbox', doc)
    .option('--envelope <id>', 'only the messages of this envelope')
    .option('--follow', 'keep printing new messages as they arrive, until Ctrl-C')
    .action(action(outboxCommand));
}

/** The messages of one answer, checked: `{"data": [{"id", …}, …]}`. */
function messagesOf(body: Record<string, unknown>): OutboxMessage[] {
  const data = body.data;
  if (!Array.isArray(data) || !data.every((m) => isRecord(m) && typeof m.id === 'string' && m.id !== ''))
    throw new UnexpectedResponseError(
      'GET /_sandbox/outbox: the answer has no list of messages with ids under "data"',
      200,
      'application/json',
    );
  return data as OutboxMessage[];
}

/**
 * A message as a block of lines, fitted to a terminal of `width` columns (line-fit.ts; undefined:
 * a pipe): every text the server gave on one line, escaped; the time, recipient, kind, envelope id
 * and link whole (a line of them wider than the terminal wraps between them, never inside an id),
 * the subject cut with ….
 */
export function messageLines(message: OutboxMessage, width?: number): string[] {
  const head: LinePart[] = [
    whole(formatTime(message.at)),
    ...[
      text(message.channel) && whole(message.channel),
      text(message.to) && whole(`to ${text(message.to)}`),
      text(message.kind) && whole(message.kind),
      text(message.envelope_id) && whole(message.envelope_id),
    ].flatMap((part) => (part ? ['  ', part] : [])),
  ];
  const lines = [fitLine(head, width)];
  if (typeof message.subject === 'string' && message.subject !== '')
    lines.push(fitLine(['  ', free(message.subject)], width));
  if (typeof message.link === 'string' && message.link !== '')
    lines.push(fitLine(['  ', whole(message.link)], width));
  return lines;
}

export async function outboxCommand(ctx: CommandContext, options: OutboxOptions): Promise<number> {
  const { output } = ctx;
  if (options.envelope !== undefined) checkEnvelopeId(options.envelope);
  const follow = options.follow === true;
  // Ctrl-C is how a follow ends: no "interrupting…" line, and exit 0 (as `webhooks listen`).
  if (follow) ctx.serving = true;
  const client = await ctx.client();
  let shown = 0;
  // Each look lists the whole outbox (of the envelope): messages are made from the envelopes' state,
  // and one can appear with a time earlier than one already shown, so no cursor is safe; ids are.
  const seen = new Set<string>();
  const show = (message: OutboxMessage) => {
    if (seen.has(message.id)) return;
    seen.add(message.id);
    if (output.json) output.jsonLine(message);
    else {
      if (shown > 0) output.line();
      for (const line of messageLines(message, output.columns)) output.line(line);
    }
    shown++;
  };
  try {
    if (follow && !output.json)
      output.info(
        `following the outbox${options.envelope === undefined ? '' : ` of ${options.envelope}`} at ${client.baseUrl}; Ctrl-C stops`,
      );
    for (;;) {
      const body = await getSandboxJson(client, {
        path: '/_sandbox/outbox',
        query: { envelope: options.envelope },
        label: 'GET /_sandbox/outbox',
        notTheSandbox: `${client.baseUrl} has no outbox: ${NOT_THE_SANDBOX}`,
        signal: ctx.signal,
      });
      const messages = messagesOf(body);
      // Subjects in Arabic are measured by string-width, loaded once some text needs it.
      if (output.columns !== undefined)
        await prepareWidths(messages.flatMap((m) => [text(m.subject), text(m.to), text(m.link)]));
      for (const message of messages) show(message);
      if (!follow) break;
      await ctx.io.clock.sleep(FOLLOW_INTERVAL_MS, ctx.signal);
    }
  } catch (error) {
    if (follow && error instanceof InterruptedError && ctx.signal.aborted) return ExitCode.ok;
    throw error;
  } finally {
    await client.close();
  }
  if (shown === 0)
    output.info(
      options.envelope === undefined
        ? 'no messages in the outbox: none of the envelopes this key sees has notified anyone yet'
        : `no messages in the outbox for ${options.envelope}`,
    );
  return ExitCode.ok;
}
