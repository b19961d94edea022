/**
 * The envelope fields whose full list of values SPEC.md does not show (§2.1,
 * §2.2). Apart from envelope.ts so that the CLI's settings and completions
 * can name them without loading zod.
 */
export const OPEN_FIELDS = ['signature_level', 'locale', 'channel', 'verification'] as const;
export type OpenField = (typeof OPEN_FIELDS)[number];
