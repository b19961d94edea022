/**
 * The envelope fields whose full list of values the published interface does
 * not show (docs/service.md, Envelope). Apart from envelope.ts so that the CLI's
 * settings and completions can name them without loading zod.
 */
export const OPEN_FIELDS = ['signature_level', 'locale', 'channel', 'verification'] as const;
export type OpenField = (typeof OPEN_FIELDS)[number];
