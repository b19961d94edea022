/**
 * `sign-cli envelopes sample`: a valid envelope to start from, on stdout, so
 * that an installed user (who has no examples/ directory) can try every
 * command at once: `sign-cli envelopes sample > envelope.json`. `--count n`
 * prints n distinct envelopes as NDJSON, for trying a bulk create.
 */
import type { Command } from 'commander';
import { UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { CommandContext } from '../../context.js';
import { parseIntegerOption } from '../../flags/values.js';
import type { Action } from '../../action.js';
import { defineCommand, type CommandDoc } from '../../help/command-doc.js';
import { SAMPLE_CSV, SAMPLE_TEMPLATE } from './sample-csv.js';

/**
 * Two signers, one per channel, in order; its events go to a `webhooks listen`
 * on this machine (127.0.0.1:4020, the listener's default). The same envelope
 * as examples/envelope.json (a test keeps them equal).
 */
export const SAMPLE_ENVELOPE = {
  title: 'Office lease renewal 2027',
  contract_id: 'CTR-2027-0042',
  document: { template_id: 'tpl_lease_renewal', version: 3 },
  signers: [
    {
      name: 'Layla Haddad',
      email: 'layla.haddad@example.com',
      channel: 'email',
      order: 1,
      verification: 'uae_pass',
    },
    { name: 'Omar Khalil', phone: '+971501234567', channel: 'whatsapp', order: 2 },
  ],
  sequential: true,
  signature_level: 'advanced',
  expires_in_days: 14,
  locale: 'ar',
  webhook_url: 'http://127.0.0.1:4020/webhooks',
} as const;

/** The n-th of a batch: its own contract id and title, so each is an envelope of its own. */
export function sampleEnvelope(n?: number): Record<string, unknown> {
  if (n === undefined) return structuredClone(SAMPLE_ENVELOPE);
  const number = String(n).padStart(4, '0');
  return {
    ...structuredClone(SAMPLE_ENVELOPE),
    title: `${SAMPLE_ENVELOPE.title} #${n}`,
    contract_id: `CTR-2027-${number}`,
  };
}

export const doc: CommandDoc = {
  summary: 'print a valid example envelope to start from (JSON on stdout)',
  details: [
    'Two signers, one per channel, its events sent to a `webhooks listen` on this machine (http://127.0.0.1:4020/), so an installed sign-cli needs no example files. `--count <n>` prints n distinct envelopes (their own contract ids), one per line, for trying a bulk create. `--csv` prints a spreadsheet of four recipients and `--template` the envelope template its rows fill in, for trying `--csv … --template …`.',
  ],
  examples: [
    'sign-cli envelopes sample > envelope.json',
    'sign-cli envelopes sample | sign-cli envelopes create -f -',
    'sign-cli envelopes sample --count 100 > batch.ndjson',
    'sign-cli envelopes sample --csv > recipients.csv',
    'sign-cli envelopes sample --template > template.json',
    'sign-cli envelopes validate --csv recipients.csv --template template.json',
  ],
};

export function registerSample(envelopes: Command, action: Action): void {
  defineCommand(envelopes, 'sample', doc)
    .option('--count <n>', 'print n distinct envelopes, one per line (NDJSON), for a bulk create')
    .option('--csv', 'print a sample recipients CSV instead (for --csv with --template)')
    .option('--template', 'print the envelope template that CSV fills in')
    .action(action(sampleCommand));
}

export async function sampleCommand(
  ctx: CommandContext,
  options: { count?: string; csv?: boolean; template?: boolean },
): Promise<number> {
  const { output } = ctx;
  const chosen = [
    options.count !== undefined && '--count',
    options.csv && '--csv',
    options.template && '--template',
  ].filter(Boolean);
  if (chosen.length > 1)
    throw new UsageError(`${chosen.join(' and ')}: give one of them (each prints its own sample)`);
  if (options.csv || options.template) {
    // As the files are: each CSV row ends with a newline; the template is indented JSON.
    output.verbatim((options.csv ? SAMPLE_CSV : SAMPLE_TEMPLATE).trimEnd());
    return ExitCode.ok;
  }
  if (options.count === undefined) {
    // Indented on a terminal and in a file alike: it is a file to edit.
    output.verbatim(JSON.stringify(sampleEnvelope(), null, 2));
    return ExitCode.ok;
  }
  const count = parseIntegerOption('--count', options.count, 1, 100_000);
  for (let n = 1; n <= count; n++) output.jsonLine(sampleEnvelope(n));
  return ExitCode.ok;
}
