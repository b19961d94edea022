/**
 * The sending pass of `envelopes create` (create.ts checks every input first):
 * the question before a live run of several envelopes, then each envelope sent
 * under the pacer with its key recorded in the journal, reported as it
 * finishes, and the summary with what finishes an incomplete run. Apart from
 * the command's flow, which a dry run or a validation error ends before this.
 */
import { ApiError, UsageError } from '../../../core/errors.js';
import { ExitCode } from '../../exit-codes.js';
import type { SignClient } from '../../../core/client/client.js';
import type { Journal, JournalEntry } from '../../../core/journal/journal.js';
import { keyFingerprint, serviceIdentity } from '../../../core/service-identity.js';
import type { BulkOutcome, BulkSummary } from '../../../core/journal/bulk.js';
import type { EnvelopeInput } from '../../../core/envelope/schema.js';
import type { CommandContext } from '../../context.js';
import { prepareReport, report } from './create-report.js';
import type { InputSet } from '../../input/envelope-inputs.js';
import { Progress } from '../../render/progress.js';
import { prepareJournalPaths } from './journal-paths.js';
import { journalRetentionMs, journalStore } from '../../config/journal-store.js';

/** What the sending pass reads of the command's options. */
export interface SendOptions {
  idempotencyKey?: string;
  new?: boolean;
  journal?: string;
  journalStore?: string;
  allowUnknownFields?: boolean;
  yes?: boolean;
}

/**
 * Whether an envelope an earlier run created under another key is this key's
 * to see (bulk.ts asks once per key): a rotated key of the same account and
 * environment sees it; another account's or environment's key gets 404.
 */
function confirmWith(
  client: SignClient,
  signal: AbortSignal,
): (entry: JournalEntry) => Promise<'mine' | 'other'> {
  return async (entry) => {
    try {
      await client.getEnvelope(entry.envelope_id!, signal);
      return 'mine';
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return 'other';
      throw error;
    }
  };
}

type Source = { inputs: InputSet; total: number } | { prompted: unknown };

/** The sending pass, for an input set or one prompted envelope. */
export async function send(
  ctx: CommandContext,
  options: SendOptions,
  { rate, concurrency }: { rate: number; concurrency: number },
  source: Source,
): Promise<number> {
  const { output } = ctx;
  const total = 'inputs' in source ? source.total : 1;
  // create.ts checked it (and what it may not be combined with) before the inputs were read.
  const store = 'inputs' in source ? await journalStore(ctx, options.journalStore) : undefined;
  const retentionMs = await journalRetentionMs(ctx);
  const client = await ctx.client(
    { ratePerMinute: rate, validation: { allowUnknownFields: options.allowUnknownFields === true } },
    ['createEnvelope'],
  );
  const connection = await ctx.resolveConnection();
  const environment = ctx.environmentOf(connection);
  // Loaded by the sending pass only: a dry run or a validation error never needs them.
  const [
    { runBulk },
    { CreateJournal, pruneJournals },
    { LockedError },
    { warnSecondForContract: warnSecond },
  ] = await Promise.all([
    import('../../../core/journal/bulk.js'),
    import('../../../core/journal/journal.js'),
    import('../../../core/journal/pid-lock.js'),
    import('./contract-warnings.js'),
  ]);
  // A prompted envelope has no file to come back to: no journal; its key is derived from its body like any other.
  let journal: (Journal & { close(): void | Promise<void> }) | undefined;
  let unfinished: { count: number; where: string } | undefined;
  try {
    if (store) {
      const { openRedisJournal } = await import('../../../core/journal/redis-journal.js');
      // Unreachable: exit 1 before anything is sent, never a local journal instead (it could send twice).
      const shared = await openRedisJournal({
        url: store.url,
        service: serviceIdentity(client.baseUrl),
        environment,
        fingerprint: keyFingerprint(connection.apiKey ?? ''),
        retentionMs,
        clock: ctx.io.clock,
        onNote: (message) => output.trace(message),
      });
      output.trace(`journal shared through ${store.source} (${shared.namespace})`);
      journal = shared;
    } else if ('inputs' in source) {
      const paths = prepareJournalPaths(
        ctx,
        options,
        source.inputs.identity,
        client.baseUrl,
        environment,
        (dir, now) => pruneJournals(dir, now, retentionMs),
      );
      const file = new CreateJournal(
        paths.path,
        keyFingerprint(connection.apiKey ?? ''),
        paths.legacy,
        'or keep the journal elsewhere: --journal <file>, or SIGN_STATE_DIR',
      );
      journal = file;
      if (file.unfinished > 0) unfinished = { count: file.unfinished, where: file.path };
    }
  } catch (error) {
    await client.close();
    if (error instanceof LockedError)
      throw new UsageError(error.message, {
        hint: 'wait for it to finish, or stop it; then run this again to finish what is left',
      });
    throw error;
  }
  if (unfinished) output.info(`resuming an earlier run of this command (journal ${unfinished.where})`);
  await prepareReport(ctx);
  const progress = new Progress(output, total, ctx.io.clock);
  // Ctrl-C stops taking inputs; what is in flight finishes and is journaled.
  const stop = ctx.signal;
  let failedKey: string | undefined;
  const onOutcome = (outcome: BulkOutcome) => {
    progress.count(outcome.status === 'created' && outcome.result.existed ? 'skipped' : outcome.status);
    if (outcome.status === 'failed') failedKey = outcome.key;
    report(ctx, outcome, total > 1, environment);
  };
  let summary: BulkSummary;
  try {
    summary = await runBulk({
      inputs: 'inputs' in source ? adapt(source.inputs.read()) : single(source.prompted),
      // Inputs come from files; the client checks every rule again before sending.
      create: (value, opts) => client.createEnvelope(value as EnvelopeInput, opts),
      concurrency,
      journal,
      fixedKey: options.idempotencyKey,
      fresh: options.new === true,
      stop,
      confirm: confirmWith(client, ctx.signal),
      onOutcome,
      onSecondForContract: (ref, contractId, earlier) => warnSecond(output, ref, contractId, earlier),
      now: () => ctx.io.clock.now(),
    });
  } catch (error) {
    await journal?.close();
    throw error;
  } finally {
    progress.done();
    await client.close();
  }
  // Kept either way: a re-run after success reports "already created" instead of sending again.
  await journal?.close();
  const complete = summary.failed === 0 && !summary.notAttempted;
  if (total > 1 || summary.alreadyCreated > 0 || !complete) {
    output.info(
      counts(summary, environment, journal?.shared === true) +
        (summary.notAttempted ? ', the rest not sent' : '') +
        (!complete ? `; ${finishHint(options, journal !== undefined, failedKey)}` : '') +
        // Found in the journal, nothing went out; replayed by the service, a request went out but created nothing.
        (summary.alreadyCreated > 0 && summary.created === 0 && complete
          ? `; ${summary.skipped === summary.alreadyCreated ? 'nothing was sent' : 'nothing new was created'} (--new creates them again)`
          : ''),
    );
  }
  if (summary.stoppedBy === 'storage' && summary.storageError) {
    // Every envelope the service acknowledged was reported above; the rest was not sent.
    output.error(summary.storageError);
    if (summary.unrecorded > 0)
      output.warn(
        `${summary.unrecorded} outcome${summary.unrecorded === 1 ? '' : 's'} reported above could not be recorded in the journal: ` +
          'a re-run sends those inputs again with the same Idempotency-Keys, which the service replays while it remembers them',
      );
    return ExitCode.failed;
  }
  if (summary.stoppedBy === 'interrupt') return ExitCode.interrupted;
  if (summary.stoppedBy === 'auth') return ExitCode.auth;
  return summary.failed > 0 ? ExitCode.failed : ExitCode.ok;
}

/**
 * The summary's counts. With a journal runners share, this runner's part:
 * what it sent, and what another runner (or an earlier run elsewhere) created.
 */
function counts(summary: BulkSummary, environment: string | null, shared: boolean): string {
  const where = environment ? ` in ${environment}` : '';
  if (!shared)
    return `created ${summary.created}${where}, already created ${summary.alreadyCreated}, failed ${summary.failed}`;
  const replayed = summary.alreadyCreated - summary.skipped;
  return (
    `sent ${summary.sent}, created elsewhere ${summary.skipped}: created ${summary.created}${where}` +
    (replayed > 0 ? `, already created ${replayed}` : '') +
    `, failed ${summary.failed}` +
    (summary.failedElsewhere > 0 ? ` (${summary.failedElsewhere} by another runner)` : '')
  );
}

/**
 * Real people are notified in live: on a terminal, a live run of more than
 * one envelope says how many and asks once (as `stripe` asks before live
 * changes). `--yes` skips it; where nobody can answer (a pipe, CI,
 * --no-input) it is not asked.
 */
export async function confirmLive(
  ctx: CommandContext,
  options: SendOptions,
  total: number,
): Promise<boolean> {
  if (options.yes || total < 2 || !ctx.canPrompt) return true;
  const connection = await ctx.resolveConnection();
  if (ctx.environmentOf(connection) !== 'live') return true;
  const { confirmFirst } = await import('../../interactive/ask.js');
  const go = await confirmFirst(ctx, {
    message: `Create ${total} envelopes in live with ${ctx.keyLabel(connection)}? Their signers will be notified.`,
    unattended: 'proceed',
  });
  if (!go) ctx.output.info(`nothing was sent (${total} envelopes not created in live)`);
  return go;
}

/**
 * What finishes an incomplete run without a duplicate. With a journal, a re-run
 * sends what is in doubt again under the key it went out with; but --new would
 * draw fresh keys, so the re-run must leave it out. A prompted envelope has no
 * journal: its own key, given back, is what finishes it.
 */
function finishHint(options: SendOptions, journaled: boolean, failedKey: string | undefined): string {
  if (journaled)
    return options.new
      ? 're-run the same command without --new to finish without duplicates'
      : 're-run the same command to finish without duplicates';
  if (options.new || options.idempotencyKey !== undefined)
    return failedKey
      ? `run it again with --idempotency-key ${failedKey} to finish without a duplicate`
      : 'nothing was sent';
  return 'run it again with the same answers to finish without a duplicate (the key derives from the envelope)';
}

async function* adapt(reads: AsyncIterable<{ source: string; value?: unknown }>) {
  for await (const read of reads) yield { ref: read.source, value: read.value };
}

async function* single(value: unknown) {
  yield { ref: 'prompt', value };
}
