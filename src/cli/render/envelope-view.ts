/**
 * What `envelopes watch` shows, as pure functions tested without spawning:
 * the live block redrawn on a terminal (like `gh run watch`), the one line
 * per change written to a pipe, and the JSON line per change.
 */
import type { ChalkInstance } from 'chalk';
import type { Envelope } from '../../core/envelope/schema.js';
import { cellText as text } from './cell.js';
import { fitLine, free, optional, whole, type LinePart } from './line-fit.js';
import { cutTo, displayWidth } from '../layout/width.js';
import { formatInstant, formatTime } from './time.js';

interface SignerLike {
  id?: unknown;
  name?: unknown;
  order?: unknown;
  channel?: unknown;
  status?: unknown;
  signed_at?: unknown;
}

const signersOf = (envelope: Envelope): SignerLike[] =>
  Array.isArray(envelope.signers) ? envelope.signers : [];

/** What a change is: the envelope's state and each signer's. Two snapshots with the same key look the same. */
export function stateKey(envelope: Envelope): string {
  return JSON.stringify([envelope.status, signersOf(envelope).map((s) => s.status)]);
}

/** A signer's label: `1. Layla Haddad`. */
const signerLabel = (signer: SignerLike, index: number): string =>
  `${text(signer.order) || index + 1}. ${text(signer.name)}`;

function icon(out: ChalkInstance, status: string): string {
  if (status === 'signed' || status === 'completed') return out.green('✓');
  if (/declined|failed|expired|voided/.test(status)) return out.red('✗');
  if (status === 'pending' || status === 'sent') return out.dim('•');
  return out.yellow('◐');
}

/**
 * The block shown on a terminal, redrawn in place at every poll. Each line is
 * fitted to the width (line-fit.ts): titles, names and channels are cut with
 * …, ids and times never, and our own words are left out whole rather than
 * cut. The terminal must never wrap a line, or the redraw drifts: one that
 * still does not fit is wrapped here, between words, each of its lines
 * counted by the redraw; a word wider than the terminal (narrower than an
 * id) is cut, as a last resort. Measuring text that is not plain ASCII needs
 * `prepareWidths` done.
 */
export function liveBlock(
  envelope: Envelope,
  out: ChalkInstance,
  options: { checkedAt: Date; columns?: number | undefined; intervalS: number },
): string[] {
  const status = text(envelope.status);
  const signers = signersOf(envelope);
  const nameWidth = Math.min(32, Math.max(0, ...signers.map((s, i) => [...signerLabel(s, i)].length)));
  const channelWidth = Math.max(0, ...signers.map((s) => text(s.channel).length));
  const width = options.columns === undefined ? undefined : options.columns - 1;
  const lines: LinePart[][] = [
    [
      { text: icon(out, status) },
      ' ',
      whole(envelope.id, { paint: out.bold }),
      '  ',
      free(envelope.title, { min: 12 }),
      // The contract id is never cut: left out whole when the title would have to be cut short.
      ...(envelope.contract_id ? [optional(`  (${text(envelope.contract_id)})`)] : []),
    ],
    [
      '  status ',
      whole(envelope.status, { paint: out.bold }),
      optional(`, ${signers.filter((s) => s.status === 'signed').length} of ${signers.length} signed`),
    ],
    ...signers.map((s, i): LinePart[] => {
      const state = text(s.status);
      return [
        '  ',
        { text: icon(out, state) },
        ' ',
        { text: signerLabel(s, i), cut: true, pad: nameWidth },
        '  ',
        free(s.channel, { pad: channelWidth, rank: 1 }),
        '  ',
        whole(s.status),
        state === 'signed' && s.signed_at ? ` ${formatTime(s.signed_at)}` : '',
      ];
    }),
    [
      '  checked ',
      formatInstant(options.checkedAt),
      ` \u00b7 every ${options.intervalS} s`,
      optional(', slower while quiet', 0),
      optional(' \u00b7 Ctrl-C stops', 1),
    ].map((p) => (typeof p === 'string' ? { text: p, paint: out.dim } : { ...p, paint: out.dim })),
  ];
  return lines.flatMap((parts) =>
    fitLine(parts, width)
      .split('\n')
      .map((line) => (width !== undefined && displayWidth(line) > width ? cutTo(line, width) : line)),
  );
}

/** The lines a pipe gets for the change from `previous` to `next` (everything, the first time). */
export function changeLines(previous: Envelope | undefined, next: Envelope, at: Date): string[] {
  const time = formatInstant(at);
  const id = text(next.id);
  const lines: string[] = [];
  if (!previous)
    lines.push(
      `${time}  ${id}  ${text(next.status)}  ${JSON.stringify(text(next.title))}, ${signersOf(next).length} signer(s)`,
    );
  const before = previous ? signersOf(previous) : [];
  signersOf(next).forEach((signer, i) => {
    const old = before.find((s) => s.id !== undefined && s.id === signer.id) ?? before[i];
    if (old?.status === signer.status) return;
    lines.push(
      `${time}  ${id}  signer ${signerLabel(signer, i)}: ${old ? `${text(old.status)} → ` : ''}${text(signer.status)}`,
    );
  });
  if (previous && previous.status !== next.status)
    lines.push(`${time}  ${id}  ${text(previous.status)} → ${text(next.status)}`);
  return lines;
}

/** The JSON line per change: the time, the envelope's state and each signer's. */
export function changeJson(envelope: Envelope, at: Date): Record<string, unknown> {
  return {
    time: at.toISOString(),
    id: envelope.id,
    status: envelope.status ?? null,
    signers: signersOf(envelope).map((s) => ({
      id: s.id ?? null,
      name: s.name ?? null,
      order: s.order ?? null,
      status: s.status ?? null,
    })),
  };
}

/**
 * The wait before the next poll: the interval while things move, then slower
 * (×1.5 per quiet poll after the second) up to 30 s, or the interval if that
 * is longer. A change brings it back to the interval.
 */
export function pollDelay(intervalMs: number, quietPolls: number): number {
  return Math.min(intervalMs * 1.5 ** Math.max(0, quietPolls - 2), Math.max(intervalMs, 30_000));
}
