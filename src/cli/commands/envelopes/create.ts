/**
 * `sign-cli envelopes create`: read every input, validate every input, and
 * only then send, one Idempotency-Key per envelope, paced under the limit.
 */
import { Command, Option } from 'commander';
import { ExitCode, SignError, UsageError, ValidationError, exitCodeOf } from '../../../core/errors.js';
import { joinUrl, resolveEndpoint } from '../../../core/endpoints.js';
import { checkIdempotencyKey, newIdempotencyKey } from '../../../core/idempotency.js';
import type { SignClient } from '../../../core/client.js';
import { parsePositiveNumberOption, type CommandContext } from '../../context.js';
import { readEnvelopeInputs } from '../../input.js';
import { checkInputs, type CheckedInput } from './check-inputs.js';
import type { Action } from '../../run.js';

interface CreateOptions {
  file?: string[];
  idempotencyKey?: string;
  dryRun?: boolean;
  rate?: string;
}

/** One line of `--json` output per envelope (DESIGN.md §3). */
export interface CreateReport {
  input: string;
  status: 'created' | 'failed' | 'valid';
  http_status: number | null;
  idempotency_key: string | null;
  envelope: unknown;
  error: { message: string; code?: string | undefined; hint?: string | undefined } | null;
}

function describeEnvelope(envelope: Record<string, unknown>): string {
  const signers = Array.isArray(envelope.signers) ? envelope.signers.length : 0;
  const status = typeof envelope.status === 'string' ? `, status ${envelope.status}` : '';
  return `${JSON.stringify(envelope.title ?? '')} (${signers} signer${signers === 1 ? '' : 's'}${status})`;
}

export function registerCreate(envelopes: Command, action: Action): void {
  envelopes
    .command('create')
    .description('create envelopes from JSON files, a directory or stdin; everything is validated before anything is sent')
    .addOption(new Option('-f, --file <path|->', 'envelope JSON file, a directory of *.json, or - for stdin (repeatable)').argParser(collect))
    .option('--idempotency-key <key>', 'Idempotency-Key to send (one input only); default: a fresh UUID')
    .option('--dry-run', 'validate and show what would be sent, without sending')
    .option('--rate <per-minute>', 'maximum requests per minute (default: config rate, else 600)')
    .addHelpText(
      'after',
      `
Examples:
  $ sign-cli envelopes create -f examples/envelope.json
  $ cat envelope.json | sign-cli envelopes create -f - --json
  $ sign-cli envelopes create -f envelopes/ --dry-run`,
    )
    .action(action<CreateOptions>(createCommand));
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

async function createCommand(ctx: CommandContext, options: CreateOptions): Promise<number> {
  const { output } = ctx;
  const files = options.file ?? [];
  if (files.length === 0) {
    throw new UsageError('no envelope given: pass -f <file.json>, -f <directory>, or -f - to read JSON from stdin', {
      hint: 'see `sign-cli envelopes create --help`',
    });
  }
  const rate = parsePositiveNumberOption('--rate', options.rate ?? String((await ctx.setting<number>('rate')) ?? 600));
  if (options.idempotencyKey !== undefined) checkIdempotencyKey(options.idempotencyKey);

  const { inputs, errors: parseErrors } = await readEnvelopeInputs(files);
  const checked = await checkInputs(inputs, parseErrors);
  if (options.idempotencyKey !== undefined && checked.length > 1) {
    throw new UsageError(`--idempotency-key applies to one envelope, but ${checked.length} inputs were given`, {
      hint: 'drop --idempotency-key; each envelope gets its own key',
    });
  }
  for (const input of checked) output.warnIssues(input.source, input.warnings);
  const invalid = checked.filter((input) => input.errors.length > 0);
  if (invalid.length > 0) {
    for (const input of invalid) output.error(new ValidationError(input.source, input.errors));
    output.info(`${invalid.length} of ${checked.length} input${checked.length === 1 ? ' is' : 's are'} invalid; nothing was sent.`);
    return ExitCode.usage;
  }

  if (options.dryRun) return dryRun(ctx, checked);

  const client = await ctx.client({ ratePerMinute: rate }, ['createEnvelope']);
  let exitCode: number = ExitCode.ok;
  try {
    for (const input of checked) {
      if (ctx.signal.aborted) break;
      const report = await createOne(ctx, client, input, options.idempotencyKey);
      if (report.code !== ExitCode.ok && exitCode === ExitCode.ok) exitCode = report.code;
      // A key the service refuses will fail every other input the same way.
      if (report.code === ExitCode.auth || report.code === ExitCode.interrupted) break;
    }
  } finally {
    await client.close();
  }
  return ctx.signal.aborted ? ExitCode.interrupted : exitCode;
}

async function createOne(
  ctx: CommandContext,
  client: SignClient,
  input: CheckedInput,
  idempotencyKey: string | undefined,
): Promise<{ code: number }> {
  const { output } = ctx;
  // The key is fixed before the first attempt so that a failure message can name it for a safe re-run.
  const key = idempotencyKey ?? newIdempotencyKey();
  try {
    const result = await client.createEnvelope(input.value, { idempotencyKey: key, signal: ctx.signal, source: input.source });
    const envelope = result.envelope;
    if (output.json) {
      output.jsonLine({
        input: input.source,
        status: 'created',
        http_status: result.status,
        idempotency_key: result.idempotencyKey,
        envelope,
        error: null,
      } satisfies CreateReport);
    } else {
      const id = typeof envelope.id === 'string' ? envelope.id : '(no id in response)';
      const retried = result.attempts > 1 ? output.out.dim(` after ${result.attempts} attempts${result.replayed ? ', first response replayed' : ''}`) : '';
      output.line(`${output.out.green('✓')} created ${output.out.bold(id)} from ${input.source}: ${describeEnvelope(envelope)}${retried}`);
    }
    return { code: ExitCode.ok };
  } catch (error) {
    const code = exitCodeOf(error);
    const status = (error as { status?: unknown }).status;
    if (output.json) {
      output.jsonLine({
        input: input.source,
        status: 'failed',
        http_status: typeof status === 'number' ? status : null,
        idempotency_key: key,
        envelope: null,
        error: {
          message: (error as Error).message,
          code: (error as { code?: string }).code,
          hint: error instanceof SignError ? error.hint : undefined,
        },
      } satisfies CreateReport);
    }
    if (code === ExitCode.interrupted) {
      output.error(
        new SignError(`interrupted while creating ${input.source}; it may or may not have been created`, {
          hint: `re-run with --idempotency-key ${key} to finish without a duplicate`,
        }),
      );
    } else {
      output.error(error);
    }
    return { code };
  }
}

async function dryRun(ctx: CommandContext, checked: CheckedInput[]): Promise<number> {
  const { output } = ctx;
  const { baseUrl } = await ctx.resolveConnection();
  const url = joinUrl(baseUrl, resolveEndpoint('createEnvelope', await ctx.pathOverrides()).path);
  for (const input of checked) {
    if (output.json) {
      output.jsonLine({
        input: input.source,
        status: 'valid',
        http_status: null,
        idempotency_key: null,
        envelope: input.value,
        error: null,
      } satisfies CreateReport);
    } else {
      output.line(`${output.out.green('✓')} ${input.source}: valid; would POST to ${url}`);
    }
  }
  output.info(`dry run: ${checked.length} envelope${checked.length === 1 ? '' : 's'} valid, nothing sent`);
  return ExitCode.ok;
}
