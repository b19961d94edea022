/** `sign-cli envelopes list`: envelopes newest first, filtered; `--all` follows the cursor and streams. */
import { Option, type Command } from 'commander';
import type { EnvelopeFilter } from '../../../core/client/client.js';
import { ExitCode } from '../../exit-codes.js';
import { ENVELOPE_STATUSES } from '../../../core/envelope/states.js';
import type { CommandContext } from '../../context.js';
import { LIST_COLUMNS, envelopeRow } from '../../render/envelope-rows.js';
import { checkChoices } from '../../flags/choices.js';
import { askFor, listLimit, moreLine, upTo } from '../../flags/listing.js';
import type { Action } from '../../action.js';
import { parseSince } from '../../flags/since.js';
import { completes, valuesOf } from '../../completion/hints.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';

interface ListOptions {
  status: string[];
  contractId?: string;
  since?: string;
  limit?: string;
  all?: boolean;
}

const DEFAULT_LIMIT = 20;

/** Repeatable and comma-separated: `--status sent,declined --status failed`. */
const collectList = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

export const doc: CommandDoc = {
  summary: 'list envelopes, newest first',
  details: [
    'A table that fits the terminal; `--json` prints one envelope per line (NDJSON), so `--query` picks a field of each. A state that is not one is refused before sending (exit 2) with the state meant.',
  ],
  more: [
    '`--since` takes a date (`2026-11-01`, `2026-11-01T09:00Z`) or a duration ago (`90m`, `12h`, `7d`, `2w`). `--limit` beyond a page (100) follows the cursor.',
    '`--all` follows the service\'s cursor (`GET /api/v1/envelopes`, `{object: "list", data, has_more, next_cursor}`; an assumption, see docs/assumptions.md) and prints each page as it arrives, so 10,000 envelopes list in the memory of one page. Pages are requests like any other: paced under the rate limit, retried on 429 and 5xx. A service that says there is more but gives no cursor, or gives the same cursor twice, is exit 1, not a silent cut.',
  ],
  examples: [
    'sign-cli envelopes list                                        # the newest 20',
    'sign-cli envelopes list --status sent --status declined --since 7d',
    'sign-cli envelopes list --contract-id CTR-2027-0042 --query id',
    'sign-cli envelopes list --all --json > envelopes.ndjson        # every envelope, page by page',
  ],
};

export function registerEnvelopesList(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'list', doc)
    .addOption(
      completes(
        new Option(
          '--status <state>',
          `only envelopes in this state (repeatable or comma-separated: ${ENVELOPE_STATUSES.join(', ')})`,
        )
          .argParser(collectList)
          .default([]),
        valuesOf(ENVELOPE_STATUSES),
      ),
    )
    .option('--contract-id <id>', 'only envelopes of this contract')
    .option(
      '--since <date|duration>',
      'only envelopes created since then: 2026-11-01, 2026-11-01T09:00Z, 12h, 7d',
    )
    .option('--limit <n>', `how many to show (default: ${DEFAULT_LIMIT})`)
    .option('--all', 'every matching envelope, page by page (streams; not with --limit)')
    .action(action(listCommand));
}

export async function listCommand(ctx: CommandContext, options: ListOptions): Promise<number> {
  const { output } = ctx;
  const limit = listLimit(options, 'envelope', DEFAULT_LIMIT);
  const filter: EnvelopeFilter = {
    ...(options.status.length > 0 ? { status: options.status } : {}),
    ...(options.contractId !== undefined ? { contractId: options.contractId } : {}),
    ...(options.since !== undefined ? { createdAfter: parseSince(options.since, ctx.io.clock.now()) } : {}),
  };
  // Checked here: a misspelt state would otherwise be a 400 from the service (or an empty listing).
  checkChoices('--status', options.status, ENVELOPE_STATUSES);
  const client = await ctx.client({}, ['listEnvelopes']);
  try {
    const seen = { more: false };
    const envelopes = upTo(client.envelopes(filter, { ...askFor(limit), signal: ctx.signal }), limit, seen);
    if (output.json) {
      for await (const envelope of envelopes) output.jsonLine(envelope);
      return ExitCode.ok;
    }
    let count = 0;
    // The layout comes from the first rows (a page's worth), then stays: every later row prints as it arrives.
    const { StreamedTable } = await import('../../render/table.js');
    const table = new StreamedTable(output, LIST_COLUMNS);
    const head: string[][] = [];
    for await (const envelope of envelopes) {
      count++;
      if (table.started) await table.write([envelopeRow(envelope)]);
      else {
        head.push(envelopeRow(envelope));
        if (head.length === 100) await table.write(head.splice(0));
      }
    }
    await table.write(head);
    if (count === 0) {
      output.info('no envelopes match');
      return ExitCode.ok;
    }
    if (seen.more) output.info(moreLine(count));
    return ExitCode.ok;
  } finally {
    await client.close();
  }
}
