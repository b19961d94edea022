/**
 * Envelopes as rows for `envelopes list`, printed as pages arrive so a
 * listing of any length streams (table.ts: StreamedTable). Id, state, signed
 * count and time are read by; the contract id and the title give way on a
 * narrow terminal. Pure functions, tested without spawning.
 */
import type { Envelope } from '../core/envelope.js';
import { cellText as text, type Column } from './cell.js';
import { formatTime } from './time.js';

/** At 80 columns the read-by columns take 65; the contract id and title share the rest. */
export const LIST_COLUMNS: readonly Column[] = [
  { head: 'ID' },
  { head: 'STATUS' },
  { head: 'SIGNED' },
  { head: 'CREATED' },
  { head: 'CONTRACT', cut: true, min: 5 },
  { head: 'TITLE', cut: true, min: 5 },
];

/** `signed/total` signers. */
function signedCount(envelope: Envelope): string {
  const signers = Array.isArray(envelope.signers) ? (envelope.signers as { status?: unknown }[]) : [];
  return `${signers.filter((s) => s.status === 'signed').length}/${signers.length}`;
}

export function envelopeRow(envelope: Envelope): string[] {
  return [text(envelope.id), text(envelope.status), signedCount(envelope), formatTime(envelope.created_at), text(envelope.contract_id), text(envelope.title)];
}
