/**
 * The one time format of every human output: `2026-11-23 07:44:36Z`, UTC and
 * marked as such (RFC 3339 with a space for the `T`). A person comparing what
 * the listener printed with what `envelopes list` shows, on two machines in
 * two time zones, reads the same text for the same instant; `--json` keeps
 * the service's own ISO strings. Dates without a time (a key's expiry) stay
 * `YYYY-MM-DD`.
 */

const ISO_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A Date in the one format. */
export function formatInstant(date: Date): string {
  const iso = date.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
}

/**
 * A time from a server or a file, in the one format: ISO strings (any offset,
 * converted to UTC), epoch seconds or milliseconds. Anything else is returned
 * as given (a service's own wording is shown, not hidden); null and absent
 * are ''.
 */
export function formatTime(value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  if (typeof value === 'number' && Number.isFinite(value))
    return formatInstant(new Date(value < 1e12 ? value * 1000 : value));
  if (typeof value !== 'string') return JSON.stringify(value);
  const match = ISO_TIME.exec(value.trim());
  if (!match) return value;
  // No offset: the service's times are UTC (the sandbox writes Z); say so rather than guess local.
  const parsed = Date.parse(match[3] ? value.trim() : `${match[1]}T${match[2]}Z`);
  return Number.isNaN(parsed) ? value : formatInstant(new Date(parsed));
}
