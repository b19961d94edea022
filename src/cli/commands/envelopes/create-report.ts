/**
 * What `envelopes create` says about each envelope as it finishes: a line for a
 * person, or one JSON object per envelope (docs/commands/envelopes-create.md).
 */
import { SignError, ValidationError } from '../../../core/errors.js';
import type { BulkOutcome } from '../../../core/bulk.js';
import type { CommandContext } from '../../context.js';
import { cellText } from '../../cell.js';
import { hintOf } from '../../hints.js';
import { untrusted } from '../../../core/text.js';

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
  /** The key's environment (`live`, `test`; from the profile or the key's prefix), or null when unknown. */
  environment: string | null;
}

function describeEnvelope(envelope: Record<string, unknown>): string {
  const signers = Array.isArray(envelope.signers) ? envelope.signers.length : 0;
  const status = typeof envelope.status === 'string' ? `, status ${cellText(envelope.status)}` : '';
  // The title as JSON (quoted), then escaped: JSON leaves DEL, C1 and bidi controls raw.
  return `${untrusted(JSON.stringify(envelope.title ?? ''))} (${signers} signer${signers === 1 ? '' : 's'}${status})`;
}

export function report(ctx: CommandContext, outcome: BulkOutcome, nameInput: boolean, environment: string | null): void {
  const { output } = ctx;
  const where = environment ? ` in ${environment}` : '';
  if (outcome.status === 'created') {
    const { result } = outcome;
    const envelope = result.envelope;
    if (output.json) {
      output.jsonLine({ input: outcome.ref, status: 'created', http_status: result.status, idempotency_key: result.idempotencyKey, envelope, error: null, already_created: result.existed, environment } satisfies CreateReport);
      return;
    }
    const id = cellText(envelope.id);
    if (result.existed) {
      // The service knew this Idempotency-Key: the envelope existed before this run.
      output.line(`${output.out.dim('=')} ${outcome.ref}: already created ${output.out.bold(id)}${where}: ${describeEnvelope(envelope)}; the service recognised it, nothing new was created (--new creates another)`);
      return;
    }
    // Replayed after this run's own lost answer: this run created it, and the service gave its answer again.
    const retried = result.attempts > 1 ? output.out.dim(` after ${result.attempts} attempts${result.replayed ? ', its answer replayed' : ''}`) : '';
    output.line(`${output.out.green('✓')} created ${output.out.bold(id)}${where} from ${outcome.ref}: ${describeEnvelope(envelope)}${retried}`);
    return;
  }
  if (outcome.status === 'skipped') {
    if (output.json) {
      output.jsonLine({ input: outcome.ref, status: 'created', http_status: null, idempotency_key: outcome.key, envelope: outcome.envelopeId ? { id: outcome.envelopeId } : null, error: null, already_created: true, skipped: true, environment } satisfies CreateReport);
    } else {
      output.line(`${output.out.dim('=')} ${outcome.ref}: already created${outcome.envelopeId ? ` ${output.out.bold(outcome.envelopeId)}` : ''}${where} by an earlier run; not sent again (--new creates another)`);
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
      error: { message: (error as Error).message, code: (error as { code?: string }).code, hint: hintOf(error) },
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
