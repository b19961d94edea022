/**
 * `sign-cli envelopes watch <id>`: follows an envelope until it is final. On a
 * terminal the view is redrawn in place; piped or with --json, one line per
 * change. Exit 0 when completed, 1 when declined, failed, expired or voided.
 */
import type { Command } from 'commander';
import { FINAL_STATUSES } from '../../../core/envelope/states.js';
import type { Envelope } from '../../../core/envelope/schema.js';
import { SignError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { parsePositiveNumberOption } from '../../flags/values.js';
import { changeJson, changeLines, liveBlock, pollDelay, stateKey } from '../../render/envelope-view.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

export const doc: CommandDoc = {
  summary: 'follow an envelope and its signers until it is final (exit 0 completed, 1 otherwise)',
  details: [
    'Like `gh run watch`: on a terminal one block redrawn in place; piped, one line per change; with `--json`, one JSON line per change (`{"time", "id", "status", "signers": [{"id", "name", "order", "status"}]}`).',
  ],
  more: [
    'Exit 0 when it completes, 1 when it ends declined, failed, expired or voided (the error says which, and the void reason), 130 on Ctrl-C. It checks every `--interval` seconds while things change and slows down, up to 30 s, while nothing does; checks go through the rate pacer and are retried on 429 and 5xx like every request.',
  ],
  examples: ['sign-cli envelopes watch "$id"', 'sign-cli envelopes watch "$id" --json | tee journey.ndjson'],
};

export function registerWatch(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'watch', doc)
    .argument('<id>', 'envelope id')
    .option(
      '--interval <seconds>',
      'seconds between checks while things change; slower while nothing does (default: 2)',
      '2',
    )
    .action(action(watchCommand));
}

export async function watchCommand(
  ctx: CommandContext,
  options: { interval: string },
  [id]: string[],
): Promise<number> {
  const { output } = ctx;
  const intervalS = parsePositiveNumberOption('--interval', options.interval);
  const live = !output.json && output.columns !== undefined;
  // The live block is fitted to the terminal at every poll (its icons are not ASCII): the width measure, once.
  if (live) await (await import('../../render/table.js')).loadUnicodeWidth();
  const client = await ctx.client({}, ['getEnvelope']);
  let envelope: Envelope;
  try {
    let previous: Envelope | undefined;
    let quiet = 0;
    for (;;) {
      // Through the client: paced under the rate limit, 429 and 5xx retried with backoff.
      envelope = await client.getEnvelope(id!, ctx.signal);
      const at = new Date(ctx.io.clock.now());
      const changed = previous === undefined || stateKey(previous) !== stateKey(envelope);
      quiet = changed ? 0 : quiet + 1;
      if (live)
        output.redraw(liveBlock(envelope, output.out, { checkedAt: at, columns: output.columns, intervalS }));
      else if (changed && output.json) output.jsonLine(changeJson(envelope, at));
      else if (changed) for (const line of changeLines(previous, envelope, at)) output.line(line);
      previous = envelope;
      if ((FINAL_STATUSES as readonly unknown[]).includes(envelope.status)) break;
      await ctx.io.clock.sleep(pollDelay(intervalS * 1000, quiet), ctx.signal);
    }
  } finally {
    await client.close();
  }
  const status = String(envelope.status);
  if (status === 'completed') {
    output.success(
      `${id} is completed: every signer has signed (\`sign-cli envelopes download ${id}\` saves the signed copy)`,
    );
    return ExitCode.ok;
  }
  throw new SignError(
    `${id} ended ${status}${typeof envelope.void_reason === 'string' ? ` (${envelope.void_reason})` : ''}`,
    {
      hint: `\`sign-cli envelopes audit ${id}\` shows who did what and when`,
    },
  );
}
