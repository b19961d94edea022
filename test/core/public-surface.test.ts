/**
 * The library's public names (src/core/index.ts), pinned: adding or removing
 * one is a change of the API, made here on purpose and in docs/library.md,
 * never as a side effect of an edit inside the core.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as lib from '../../src/core/index.js';
import { ROOT } from '../helpers/paths.js';

const VALUES = [
  'ApiError',
  'AuthError',
  'InterruptedError',
  'NetworkError',
  'NotAPdfError',
  'RatePacer',
  'SignClient',
  'SignError',
  'StorageError',
  'UnexpectedResponseError',
  'UsageError',
  'VERSION',
  'ValidationError',
  'WebhookVerifier',
  'newStandardSecret',
  'normalizeEnvelope',
  'signStandard',
  'validateEnvelope',
  'verifyAuditChain',
  'verifyPdf',
];

const TYPES = [
  'AuditTrail',
  'AuditVerification',
  'CreateEnvelopeResult',
  'Envelope',
  'EnvelopeFilter',
  'EnvelopeInput',
  'EnvelopePage',
  'EnvelopeStatus',
  'ErrorReason',
  'EventPayload',
  'FieldIssue',
  'PdfVerdict',
  'PdfVerifyOptions',
  'SignClientOptions',
  'TraceEvent',
  'ValidateOptions',
  'ValidationResult',
  'VerifierOptions',
  'VerifyResult',
  'WebhookScheme',
];

/** The names of the index's `export type { … }` lists, each under the name it is exported as. */
function exportedTypeNames(): string[] {
  const index = readFileSync(join(ROOT, 'src', 'core', 'index.ts'), 'utf8');
  const names = [...index.matchAll(/export type \{([^}]*)\}/g)].flatMap(([, list]) =>
    list!
      .split(',')
      .map((name) =>
        name
          .trim()
          .split(/\s+as\s+/)
          .at(-1)!,
      )
      .filter(Boolean),
  );
  return names.sort();
}

describe('the public surface of the library', () => {
  it('exports exactly these values', () => {
    expect(Object.keys(lib).sort()).toEqual(VALUES);
  });

  it('exports exactly these types, each in an `export type { … }` list', () => {
    const index = readFileSync(join(ROOT, 'src', 'core', 'index.ts'), 'utf8');
    // Every export of the index is an `export { … }` or `export type { … }` list: a star export,
    // a declaration, or an inline `type` name in a value list would escape the pin.
    expect(index.match(/^export\b.*/gm)!.filter((line) => !/^export (type )?\{/.test(line))).toEqual([]);
    for (const [, list] of index.matchAll(/export \{([^}]*)\}/g)) expect(list).not.toMatch(/\btype\s/);
    expect(exportedTypeNames()).toEqual(TYPES);
  });

  it('stays small: 40 names at most, values and types together', () => {
    expect(VALUES.length + TYPES.length).toBeLessThanOrEqual(40);
    expect(new Set([...VALUES, ...TYPES]).size).toBe(VALUES.length + TYPES.length);
  });
});
