/**
 * What `envelopes create` says about each envelope as it finishes: a line for a
 * person, or one JSON object per envelope (docs/commands/envelopes-create.md).
 */
import { SignError, ValidationError } from '../../../core/errors.js';
import type { BulkOutcome } from '../../../core/journal/bulk.js';
import type { CommandContext } from '../../context.js';
import { cellText } from '../../render/cell.js';
import { hintOf } from '../../help/hints.js';
import { fitLine, free, optional, whole, type LinePart } from '../../render/line-fit.js';

/** Loads what fitting the lines to a terminal needs, before the first envelope is reported. */
export async function prepareReport(ctx: CommandContext): Promise<void> {
  if (!ctx.output.json && ctx.output.columns !== undefined)
    await (await import('../../render/table.js')).loadUnicodeWidth();
}

/** One line of `--json` output per envelope (docs/commands/envelopes-create.md). */
export interface CreateReport {
  input: string;
  status: 'created' | 'failed' | 'valid';
  http_status: number | null;
  idempotency_key: string | null;
  envelope: unknown;
  error: { message: string; code?: string | undefined; hint?: string | undefined } | null;
  /** True when it existed before this run: found in the journal (nothing sent) or replayed by the service. */
  already_created?: boolean;
  /** True when the journal said an earlier run created it, so nothing was sent. */
  skipped?: boolean;
  /** True when that journal is shared by runners (`--journal-store`): another runner, or an earlier run elsewhere, created it. */
  elsewhere?: boolean;
  /** The key's environment (`live`, `test`; from the profile or the key's prefix), or null when unknown. */
  environment: string | null;
}

/**
 * The title (quoted, as JSON: free text, cut first) and, if there is room, how many signers and the
 * state. A replayed answer is the service's first one again: its state is the one the envelope had
 * when it was created (`sent`, however far it has gone since), and is said to be that.
 */
function describeEnvelope(envelope: Record<string, unknown>, replayed = false): LinePart[] {
  const signers = Array.isArray(envelope.signers) ? envelope.signers.length : 0;
  const status =
    typeof envelope.status === 'string'
      ? `, status ${cellText(envelope.status)}${replayed ? ' when created' : ''}`
      : '';
  // The title as JSON (quoted), then escaped and collapsed: JSON leaves DEL, C1 and bidi controls raw.
  return [
    free(JSON.stringify(envelope.title ?? ''), { min: 12 }),
    optional(` (${signers} signer${signers === 1 ? '' : 's'}${status})`, 1),
  ];
}

/**
 * A line a person reads per envelope, on stdout, fitted to the terminal
 * (line-fit.ts): the envelope id and the environment whole, the title cut
 * with …, then the input's name from its start (its file name stays), and
 * what happened said whole: a line that cannot hold it all wraps between
 * words. Fitting measures text as it comes: `prepareReport` loads the
 * measure first.
 */
export function report(
  ctx: CommandContext,
  outcome: BulkOutcome,
  nameInput: boolean,
  environment: string | null,
): void {
  const { output } = ctx;
  const where = environment ? ` in ${environment}` : '';
  // The input's name: cut after the title, from its start, so its file name stays.
  const ref = free(outcome.ref, { rank: 1, min: 16, keepEnd: true });
  if (outcome.status === 'created') {
    const { result } = outcome;
    const envelope = result.envelope;
    if (output.json) {
      output.jsonLine({
        input: outcome.ref,
        status: 'created',
        http_status: result.status,
        idempotency_key: result.idempotencyKey,
        envelope,
        error: null,
        already_created: result.existed,
        environment,
      } satisfies CreateReport);
      return;
    }
    const id = whole(envelope.id, { paint: output.out.bold });
    if (result.existed) {
      // The service knew this Idempotency-Key: the envelope existed before this run.
      output.line(
        fitLine(
          [
            { text: '=', paint: output.out.dim },
            ' ',
            ref,
            ': already created ',
            id,
            where,
            ': ',
            ...describeEnvelope(envelope, true),
            '; the service recognised it, nothing new was created (--new creates another)',
          ],
          output.columns,
        ),
      );
      return;
    }
    // Replayed after this run's own lost answer: this run created it, and the service gave its answer again.
    const retried =
      result.attempts > 1
        ? {
            text: ` after ${result.attempts} attempts${result.replayed ? ', its answer replayed' : ''}`,
            paint: output.out.dim,
          }
        : '';
    output.line(
      fitLine(
        [
          { text: '✓', paint: output.out.green },
          ' created ',
          id,
          where,
          ' from ',
          ref,
          ': ',
          ...describeEnvelope(envelope),
          retried,
        ],
        output.columns,
      ),
    );
    return;
  }
  if (outcome.status === 'skipped') {
    if (output.json) {
      output.jsonLine({
        input: outcome.ref,
        status: 'created',
        http_status: null,
        idempotency_key: outcome.key,
        envelope: outcome.envelopeId ? { id: outcome.envelopeId } : null,
        error: null,
        already_created: true,
        skipped: true,
        ...(outcome.elsewhere ? { elsewhere: true } : {}),
        environment,
      } satisfies CreateReport);
    } else {
      output.line(
        fitLine(
          [
            { text: '=', paint: output.out.dim },
            ' ',
            ref,
            outcome.elsewhere ? ': created elsewhere' : ': already created',
            outcome.envelopeId && ' ',
            outcome.envelopeId && whole(outcome.envelopeId, { paint: output.out.bold }),
            where,
            outcome.elsewhere ? '' : ' by an earlier run',
            '; not sent again (--new creates another)',
          ],
          output.columns,
        ),
      );
    }
    return;
  }
  const { error } = outcome;
  const status = (error as { status?: unknown }).status;
  if (output.json) {
    output.jsonLine({
      input: outcome.ref,
      status: 'failed',
      http_status: typeof status === 'number' ? status : null,
      idempotency_key: outcome.key,
      envelope: null,
      error: {
        message: (error as Error).message,
        code: (error as { code?: string }).code,
        hint: hintOf(error),
      },
      ...(outcome.elsewhere ? { elsewhere: true } : {}),
      environment,
    } satisfies CreateReport);
  }
  output.error(nameInput ? named(outcome.ref, error) : error);
}

/** The same error, its message prefixed with the input it is about (for display only). */
function named(ref: string, error: unknown): unknown {
  if (!(error instanceof SignError) || error instanceof ValidationError) return error;
  return new SignError(`${ref}: ${error.message}`, {
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.reason ? { reason: error.reason, reasonData: error.reasonData } : {}),
  });
}
