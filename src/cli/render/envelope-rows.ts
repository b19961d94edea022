/**
 * Envelopes as rows for `envelopes list`, printed as pages arrive so a
 * listing of any length streams (table.ts: StreamedTable). Id, state, signed
 * count, time and contract id are read by, never cut; only the title gives
 * way on a narrow terminal, and when even that is not enough (80 columns and a
 * contract id of more than a few characters) each envelope is shown stacked.
 * Pure functions, tested without spawning.
 */
import type { Envelope } from '../../core/envelope/schema.js';
import { cellText as text, type Column } from './cell.js';
import { formatTime } from './time.js';

/** The read-by columns take 65 columns before the contract id; the title has what is left. */
export const LIST_COLUMNS: readonly Column[] = [
  { head: 'ID', whole: true },
  { head: 'STATUS' },
  { head: 'SIGNED' },
  { head: 'CREATED', whole: true },
  { head: 'CONTRACT', whole: true },
  { head: 'TITLE', cut: true },
];

/** `signed/total` signers. */
function signedCount(envelope: Envelope): string {
  const signers = Array.isArray(envelope.signers) ? (envelope.signers as { status?: unknown }[]) : [];
  return `${signers.filter((s) => s.status === 'signed').length}/${signers.length}`;
}

export function envelopeRow(envelope: Envelope): string[] {
  return [
    text(envelope.id),
    text(envelope.status),
    signedCount(envelope),
    formatTime(envelope.created_at),
    text(envelope.contract_id),
    text(envelope.title),
  ];
}
