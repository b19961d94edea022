/** `--since <date|duration>`: an ISO date or date-time, or how long ago (`90m`, `12h`, `7d`, `2w`). */
import { UsageError } from '../../core/errors.js';

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/** A duration (`90s`, `10m`, `24h`, `7d`, `2w`) in milliseconds; undefined when `value` is not one. */
export function durationMs(value: string): number | undefined {
  const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(value.trim());
  return duration ? Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]! : undefined;
}

/** The instant `value` names, as ISO 8601; a bad value is a usage error naming the flag. */
export function parseSince(value: string, now: number, flag = '--since'): string {
  const text = value.trim();
  const ago = durationMs(text);
  if (ago !== undefined) return new Date(now - ago).toISOString();
  // A calendar date or a date-time with its zone; a bare date means midnight UTC (as Date.parse reads it).
  if (/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i.test(text)) {
    const at = Date.parse(text.replace(' ', 'T'));
    if (!Number.isNaN(at)) return new Date(at).toISOString();
  }
  throw new UsageError(
    `${flag} must be a date (2026-11-01), a date-time with its zone (2026-11-01T09:00Z) or a duration (90m, 12h, 7d, 2w), got ${JSON.stringify(value)}`,
  );
}

/** A retention such as `30d` or `12h`, at least a minute; a bad one is a usage error naming `source`. */
export function parseRetention(value: string, source: string): number {
  const ms = durationMs(value);
  if (ms === undefined || ms < 60_000)
    throw new UsageError(
      `${source} must be a duration of at least a minute (90m, 12h, 30d, 2w), got ${JSON.stringify(value.slice(0, 40))}`,
    );
  return ms;
}
