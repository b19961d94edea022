/**
 * Envelopes as rows for `envelopes list`: fixed columns printed as pages
 * arrive, so a listing of any length streams. The widths come from the first
 * page; on a terminal the title and contract columns are cut (with …) to fit
 * its width, while ids, states and times stay whole. Pure functions, tested
 * without spawning.
 */
import type { Envelope } from '../core/envelope.js';
import { cellText as text } from './table.js';

export const LIST_HEAD = ['ID', 'STATUS', 'SIGNED', 'CREATED', 'CONTRACT', 'TITLE'] as const;
/** Columns a person copies from are never cut; the others may shrink to this. */
const KEEP = new Set([0, 1, 2, 3]);
const MIN_WIDTH = 8;
const GAP = '  ';


/** `2026-11-22 10:41` (UTC) from an ISO time; the text as given when it is not one. */
export function shortTime(value: unknown): string {
  const iso = text(value);
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 16)}` : iso;
}

/** `signed/total` signers. */
function signedCount(envelope: Envelope): string {
  const signers = Array.isArray(envelope.signers) ? (envelope.signers as { status?: unknown }[]) : [];
  return `${signers.filter((s) => s.status === 'signed').length}/${signers.length}`;
}

export function envelopeRow(envelope: Envelope): string[] {
  return [text(envelope.id), text(envelope.status), signedCount(envelope), shortTime(envelope.created_at), text(envelope.contract_id), text(envelope.title)];
}

/** Column widths for these rows (and the head), shrunk to fit `columns` when given. */
export function rowWidths(rows: readonly string[][], columns: number | undefined): number[] {
  const widths = LIST_HEAD.map((head, i) => Math.max(head.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  if (columns === undefined) return widths;
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP.length * (widths.length - 1);
  while (total() > columns) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) if (!KEEP.has(i) && widths[i]! > MIN_WIDTH && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest]!--;
  }
  return widths;
}

/** One line of fixed columns; a longer cell is cut with … (the last column is not padded). */
export function formatRow(cells: readonly string[], widths: readonly number[]): string {
  return cells
    .map((cell, i) => {
      const chars = [...cell];
      const width = widths[i] ?? chars.length;
      const fitted = chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join('')}…` : cell;
      return i === cells.length - 1 ? fitted : fitted.padEnd(width + (fitted.length - [...fitted].length));
    })
    .join(GAP)
    .trimEnd();
}
