/** Small checks on parsed JSON, apart from envelope.ts so that modules the CLI loads at start-up need no zod. */

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
