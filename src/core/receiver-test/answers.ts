/** Reading a check's answers: which statuses passed, and what came back, in one line. */
import type { Attempt } from './types.js';

export const is2xx = (a: Attempt): boolean => a.status !== undefined && a.status >= 200 && a.status < 300;
export const is4xx = (a: Attempt): boolean => a.status !== undefined && a.status >= 400 && a.status < 500;

/** One answer as the scorecard says it: `401`, `timed out after 10 s`, `ECONNRESET`. */
export function answerText(a: Attempt, timeoutMs: number): string {
  if (a.status !== undefined) return String(a.status);
  if (a.timedOut) return `no answer within ${seconds(timeoutMs)}`;
  return a.error ?? 'no answer';
}

export const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1))} s`;

/**
 * Every answer on one line, grouped: `13 × 2xx`, or the odd ones out by
 * name first (`envelope.voided → 500; 12 × 2xx`), so the line says which
 * delivery failed.
 */
export function summarize(
  attempts: readonly Attempt[],
  good: (a: Attempt) => boolean,
  timeoutMs: number,
): string {
  const bad = attempts.filter((a) => !good(a));
  // A few deliveries with an odd one among them: each by name, so the line reads as what happened.
  if (bad.length > 0 && attempts.length <= 3)
    return attempts.map((a) => `${a.label} → ${answerText(a, timeoutMs)}`).join('; ');
  const counts = new Map<string, number>();
  for (const a of attempts.filter(good)) {
    const key = answerText(a, timeoutMs);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const shownBad = bad.slice(0, 3).map((a) => `${a.label} → ${answerText(a, timeoutMs)}`);
  if (bad.length > 3) shownBad.push(`${bad.length - 3} more`);
  const grouped = [...counts].map(([key, n]) => (attempts.length === 1 ? key : `${n} × ${key}`));
  return [...shownBad, ...grouped].join('; ');
}

/** Every answer counted, with no names: for many deliveries of one kind (a burst). */
export function tally(attempts: readonly Attempt[], timeoutMs: number): string {
  const counts = new Map<string, number>();
  for (const a of attempts)
    counts.set(answerText(a, timeoutMs), (counts.get(answerText(a, timeoutMs)) ?? 0) + 1);
  return [...counts].map(([key, n]) => `${n} × ${key}`).join('; ');
}

/** The q-quantile (0..1) of the times, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
