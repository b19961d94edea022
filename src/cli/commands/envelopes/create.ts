/**
 * `sign-cli envelopes create`: read and validate every input first, then send
 * them, several at a time under the rate pacer, each with an Idempotency-Key
 * derived from its body and recorded in a journal, so that a re-run (after a
 * crash, a timeout, Ctrl-C, or success) never creates anything twice. This
 * file is the flow up to a dry run; the sending pass is create-send.ts.
 */
import type { Command } from 'commander';
import { UsageError, ValidationError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import { keyFingerprint } from '../../../core/service-identity.js';
import { joinUrl, resolveEndpoint } from '../../../core/endpoints.js';
import type { CommandContext } from '../../context.js';
import { collect, parseIntegerOption, parsePositiveNumberOption } from '../../flags/values.js';
import { defineCommand } from '../../help/command-doc.js';
import { doc } from './create-doc.js';
import type { CreateReport } from './create-report.js';
import type { InputSet } from '../../input/envelope-inputs.js';
import { formatIssue } from '../../render/output.js';
import type { Action } from '../../action.js';
import { hintOf } from '../../help/hints.js';
import { prepareJournalPaths, mayHaveJournals } from './journal-paths.js';
import { journalStore } from '../../config/journal-store.js';
import {
  allowUnknownFields,
  checkInput,
  FileWarnings,
  loadValidator,
  openCommandInputs,
  readingOptions,
  templateOption,
  delimiterOption,
  type InputFlags,
} from './check-inputs.js';

interface CreateOptions extends InputFlags {
  file?: string[];
  idempotencyKey?: string;
  new?: boolean;
  dryRun?: boolean;
  rate?: string;
  concurrency?: string;
  journal?: string;
  journalStore?: string;
  allowUnknownFields?: boolean;
  yes?: boolean;
}

/** Requests in flight at once: enough to reach the rate limit against a slow service (bench/bulk.mjs measures it). */
export const DEFAULT_CONCURRENCY = 32;
/** Inputs named one by one (warnings, errors, and a dry run's valid inputs); beyond this many, counted. */
const MAX_NAMED = 50;

export function registerCreate(envelopes: Command, action: Action): void {
  readingOptions(defineCommand(envelopes, 'create', doc))
    .option(
      '-f, --file <path|->',
      'envelope JSON file, a directory of *.json, or - for stdin (repeatable)',
      collect,
    )
    .option('--ndjson', 'the files (or stdin) hold one envelope per line; streamed')
    .option(
      '--csv <file|->',
      "one envelope per row of this CSV (a spreadsheet's export), filled into --template; streamed",
    )
    .addOption(templateOption())
    .addOption(delimiterOption())
    .option(
      '--idempotency-key <key>',
      'Idempotency-Key to send (one input only); default: derived from the envelope, so a re-run never duplicates',
    )
    .option('--new', 'create again even what was already created: fresh random Idempotency-Keys')
    .option('--dry-run', 'validate and show what would be sent, without sending')
    .option(
      '--allow-unknown-fields',
      'send fields sign-cli does not know (a warning each) instead of refusing them (also config allow_unknown_fields)',
    )
    .option('--rate <per-minute>', 'maximum requests per minute (default: config rate, else 600)')
    .option('--concurrency <n>', `requests in flight at once (default ${DEFAULT_CONCURRENCY})`)
    .option(
      '--journal <file>',
      'where to keep the journal of what was created (default: one per command in ~/.local/state/sign-cli)',
    )
    .option(
      '--journal-store <redis-url>',
      'keep the journal in Redis, shared by every runner: each input sent once across machines and parallel runs (env SIGN_JOURNAL_STORE)',
    )
    .option(
      '-y, --yes',
      'do not ask before creating more than one envelope in live (it is asked only on a terminal)',
    )
    .action(action(createCommand));
}

/** Rate and concurrency, checked before any input is read. */
async function pace(
  ctx: CommandContext,
  options: CreateOptions,
): Promise<{ rate: number; concurrency: number }> {
  return {
    rate: parsePositiveNumberOption(
      '--rate',
      options.rate ?? String((await ctx.setting<number>('rate')) ?? 600),
    ),
    concurrency: parseIntegerOption(
      '--concurrency',
      options.concurrency ?? String(DEFAULT_CONCURRENCY),
      1,
      1000,
    ),
  };
}

/**
 * The sending half (create-send.ts, with the per-envelope report and the progress line), imported
 * to send: a dry run or a file that fails validation never loads it (start-up).
 */
const sending = (): Promise<typeof import('./create-send.js')> => import('./create-send.js');

export async function createCommand(ctx: CommandContext, flags: CreateOptions): Promise<number> {
  const files = flags.file ?? [];
  // The flag or the setting, settled once: the validation pass and the client's own check agree.
  const options: CreateOptions = {
    ...flags,
    allowUnknownFields: await allowUnknownFields(ctx, flags.allowUnknownFields),
  };
  const pacing = await pace(ctx, options);
  if (files.length === 0 && options.csv === undefined) {
    if (!ctx.canPrompt) {
      throw new UsageError(
        'no envelope given: pass -f <file.json>, -f <directory>, or -f - to read JSON from stdin',
        {
          hint: 'the step-by-step prompt needs a terminal, without --no-input or CI; see `sign-cli envelopes create --help`',
        },
      );
    }
    const { promptForEnvelope } = await import('../../interactive/envelope-prompt.js');
    const prompted = await promptForEnvelope(ctx);
    if (prompted === undefined) return ExitCode.ok;
    return (await sending()).send(ctx, options, pacing, { prompted });
  }
  // The journal's store, checked before anything is read, asked or sent (a bad URL is exit 2).
  const store = await journalStore(ctx, options.journalStore);
  if (store && options.journal !== undefined)
    throw new UsageError(`--journal and ${store.source} name two journals`, {
      hint: 'keep one: a file on this machine (--journal) or the store runners share',
    });
  if (store && options.new)
    throw new UsageError(
      `--new creates every input again under fresh keys, and each runner sharing the journal of ${store.source} would do it`,
      { hint: `for a deliberate second set, run it once without ${store.source}` },
    );
  if (options.idempotencyKey !== undefined) {
    try {
      (await import('../../../core/client/idempotency.js')).checkIdempotencyKey(options.idempotencyKey);
    } catch (error) {
      // The core speaks of an Idempotency-Key; here it came from a flag.
      throw new UsageError(`--idempotency-key: ${(error as Error).message}`, { hint: hintOf(error) });
    }
  }
  const inputs = await openCommandInputs(ctx, files, options, '-f');
  try {
    // A human dry run shows at most MAX_NAMED inputs by name: noted during the
    // validation pass, so the inputs are read once. --json prints every envelope: a second pass.
    const shown = options.dryRun && !ctx.output.json ? [] : undefined;
    const count = await validateAll(ctx, inputs, options.allowUnknownFields === true, shown);
    if (count.invalid > 0) return ExitCode.usage;
    if (options.idempotencyKey !== undefined && count.total > 1) {
      throw new UsageError(
        `--idempotency-key applies to one envelope, but ${count.total} inputs were given`,
        {
          hint: 'drop --idempotency-key; each envelope gets its own key',
        },
      );
    }
    if (options.dryRun) return await dryRun(ctx, options, inputs, count.total, shown);
    const { confirmLive, send } = await sending();
    if (!(await confirmLive(ctx, options, count.total))) return ExitCode.ok;
    return await send(ctx, options, pacing, { inputs, total: count.total });
  } finally {
    inputs.close();
  }
}

/**
 * The validation pass: every input, streamed; every problem reported; nothing sent.
 * With `shown`, the names of the first MAX_NAMED valid inputs are noted in it.
 */
async function validateAll(
  ctx: CommandContext,
  inputs: InputSet,
  allowUnknown: boolean,
  shown?: string[],
): Promise<{ total: number; invalid: number }> {
  const { output } = ctx;
  const validate = await loadValidator({ allowUnknownFields: allowUnknown });
  let total = 0;
  let invalid = 0;
  let shownErrors = 0;
  let warnings = 0;
  const fileWarnings = new FileWarnings((source, issue) => {
    if (warnings++ < MAX_NAMED) output.warn(formatIssue(source, issue));
  });
  for await (const read of inputs.read()) {
    total++;
    const input = checkInput(read, validate);
    fileWarnings.add(input.source, input.warnings);
    if (input.errors.length > 0) {
      invalid++;
      if (shownErrors < MAX_NAMED) output.error(new ValidationError(input.source, input.errors));
      shownErrors += input.errors.length;
    } else if (shown && shown.length < MAX_NAMED) {
      shown.push(input.source);
    }
  }
  fileWarnings.flush();
  if (warnings > MAX_NAMED) output.warn(`… and ${warnings - MAX_NAMED} more warnings`);
  if (total === 0) throw new UsageError('the input holds no envelope');
  if (invalid > 0) {
    if (shownErrors > MAX_NAMED)
      output.info(`… errors in ${invalid} inputs in all (\`sign-cli envelopes validate\` lists every one)`);
    output.info(`${invalid} of ${total} input${total === 1 ? ' is' : 's are'} invalid; nothing was sent.`);
  }
  return { total, invalid };
}

/** After a clean validation pass; `shown` (human output): the inputs that pass noted, so nothing is read again. */
async function dryRun(
  ctx: CommandContext,
  options: CreateOptions,
  inputs: InputSet,
  total: number,
  shown?: string[],
): Promise<number> {
  const { output } = ctx;
  const connection = await ctx.resolveConnection();
  const { baseUrl } = connection;
  const environment = ctx.environmentOf(connection);
  // What a run would name: inputs whose contract already has an envelope from an earlier run
  // (only where a journal can be: a first run on a machine reads nothing, hashes nothing).
  if (!options.new && mayHaveJournals(ctx.env, options)) {
    const { dryRunContractWarnings } = await import('./contract-warnings.js');
    await dryRunContractWarnings(
      output,
      inputs,
      prepareJournalPaths(ctx, options, inputs.identity, baseUrl, environment, () => {}).path,
      keyFingerprint(connection.apiKey ?? ''),
    );
  }
  const url = joinUrl(baseUrl, resolveEndpoint('createEnvelope', await ctx.pathOverrides()).path);
  if (shown) {
    if (total <= MAX_NAMED)
      for (const source of shown)
        output.line(`${output.out.green('✓')} ${source}: valid; would POST to ${url}`);
    // From a template, what a row becomes is the question: the first one, as it would be sent.
    if ('unusedColumns' in inputs) {
      for await (const read of inputs.read()) {
        if ('error' in read) continue;
        output.line(`${read.source} renders to:`);
        output.line(JSON.stringify(read.value, null, 2));
        break;
      }
    }
  } else {
    // --json: every envelope as it would be sent, read again rather than held in memory.
    for await (const read of inputs.read()) {
      if ('error' in read) continue; // cannot happen after a clean validation pass
      output.jsonLine({
        input: read.source,
        status: 'valid',
        http_status: null,
        idempotency_key: null,
        envelope: read.value,
        error: null,
        environment,
      } satisfies CreateReport);
    }
  }
  output.info(
    `dry run: ${total} envelope${total === 1 ? '' : 's'} valid, nothing sent${total > MAX_NAMED && !output.json ? ` (would POST to ${url})` : ''}`,
  );
  return ExitCode.ok;
}

export type { CreateReport };
