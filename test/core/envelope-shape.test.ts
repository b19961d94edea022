/**
 * The envelope's shape as plain code (src/core/envelope/schema.ts, what validate, create and the
 * library run) against the zod schema it stands for (src/core/envelope/zod-schema.ts, what MCP
 * publishes): the same issues, messages and order for every value tried in every field, for
 * whole envelopes made of many of them at once, and for each field alone as the interactive
 * prompt checks it; the same type for every field the CSV templates fill.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import { envelopeSchema, signerSchema } from '../../src/core/envelope/zod-schema.js';
import {
  ENVELOPE_SHAPE,
  shapeIssues,
  SIGNER_SHAPE,
  type EnvelopeInput,
  type Shape,
  type SignerInput,
} from '../../src/core/envelope/schema.js';
import { formatPath } from '../../src/core/envelope/envelope.js';
import { fieldKind } from '../../src/core/envelope/template.js';
import { ROOT } from '../helpers/cli.js';
import { seededRandom } from '../helpers/fault-proxy.js';

/** The example every guide starts from: each field the shape names, valid. */
const VALID = JSON.parse(readFileSync(join(ROOT, 'examples', 'envelope.json'), 'utf8')) as {
  signers: unknown[];
};

const ABSENT = Symbol('absent');
const long = (n: number, unit = 'a') => unit.repeat(n);

/** Values of every kind, at every edge the rules have (types, trimming, lengths in code points, integers, URLs). */
const VALUES: unknown[] = [
  ABSENT,
  undefined,
  null,
  true,
  false,
  0,
  -0,
  1,
  -1,
  1.5,
  -1.5,
  1000,
  2 ** 53,
  -(2 ** 53),
  1e21,
  -1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  '',
  ' ',
  '\t\n',
  'x',
  '  x  ',
  '1',
  long(10_000),
  long(10_001),
  ` ${long(10_000)} `,
  long(5_000, '😀'),
  long(5_001, '😀'),
  long(10_001, '😀'),
  `${long(9_999)}😀`,
  '\ud800',
  '\ud800'.repeat(10_001),
  'layla@example.com',
  'not an e-mail',
  'a@b',
  ' a@b.co',
  'https://example.com/hooks',
  'http://127.0.0.1:4020/webhooks',
  'ftp://example.com',
  'https://',
  'http:/x',
  '+971501234567',
  [],
  [1],
  ['a'],
  [{}],
  new Array(1_001).fill('x'),
  {},
  { length: 0 },
  { length: 1 },
  { length: 'abc' },
  { length: 20_000 },
  { template_id: 'x', version: 1 },
  { name: 'n', channel: 'email' },
];

const issuesOf = (value: unknown) =>
  shapeIssues(ENVELOPE_SHAPE, value).map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message,
  }));

/** A zod schema, as far as these tests read it. */
interface Parses {
  safeParse(value: unknown): {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  };
}

function zodIssuesOf(schema: Parses, value: unknown) {
  const parsed = schema.safeParse(value);
  return (parsed.error?.issues ?? []).map((issue) => ({
    path: formatPath(issue.path as (string | number)[]),
    message: issue.message,
  }));
}

/** `base` with the value at `path` replaced (or removed, for ABSENT). */
function withValue(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (value === ABSENT) delete node[last];
  else node[last] = value;
  return copy;
}

/** Every path of a field the shape names, signers' fields in the first and the second signer. */
const FIELD_PATHS: (string | number)[][] = [
  ...Object.keys(ENVELOPE_SHAPE.fields).map((key) => [key]),
  ...Object.keys(ENVELOPE_SHAPE.fields.document.fields).map((key) => ['document', key]),
  ...[0, 1].flatMap((index) => Object.keys(SIGNER_SHAPE.fields).map((key) => ['signers', index, key])),
  ['signers', 0],
  ['signers', 1],
];

describe('the envelope shape reports what the zod schema reports', () => {
  it('for a valid envelope and for values that are no envelope at all', () => {
    expect(issuesOf(VALID)).toEqual([]);
    for (const value of VALUES.filter((v) => v !== ABSENT))
      expect(issuesOf(value), String(value)).toEqual(zodIssuesOf(envelopeSchema, value));
  });

  it('for every value tried in every field', () => {
    let compared = 0;
    for (const path of FIELD_PATHS) {
      for (const value of VALUES) {
        const envelope = withValue(VALID, path, value);
        expect(issuesOf(envelope), `${formatPath(path)} = ${String(value).slice(0, 40)}`).toEqual(
          zodIssuesOf(envelopeSchema, envelope),
        );
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1_000);
  });

  it('for signers lists of every length and kind, a long one reported alone', () => {
    const bad = { name: '', channel: 5 };
    for (const signers of [
      [],
      [bad],
      [VALID.signers[0], bad, null, 'x', []],
      new Array(1_000).fill(bad),
      new Array(1_001).fill(bad),
      new Array(1_001).fill(VALID.signers[0]),
    ]) {
      const envelope = { ...VALID, signers };
      expect(issuesOf(envelope)).toEqual(zodIssuesOf(envelopeSchema, envelope));
    }
  });

  it('for envelopes with many fields wrong at once (2,000 seeded at random)', () => {
    const random = seededRandom(51);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    let withIssues = 0;
    for (let i = 0; i < 2_000; i++) {
      let envelope: unknown = VALID;
      const changes = 1 + Math.floor(random() * 6);
      for (let c = 0; c < changes; c++) {
        const path = pick(FIELD_PATHS);
        // A change below a value an earlier change made no object is skipped.
        try {
          envelope = withValue(envelope, path, pick(VALUES));
        } catch {
          continue;
        }
      }
      const expected = zodIssuesOf(envelopeSchema, envelope);
      if (expected.length > 0) withIssues++;
      expect(issuesOf(envelope)).toEqual(expected);
    }
    expect(withIssues).toBeGreaterThan(1_500);
  });

  it('for each field alone, as the interactive prompt checks an answer', () => {
    const pairs: [Shape, Parses][] = [
      ...Object.entries(ENVELOPE_SHAPE.fields).map(([key, shape]): [Shape, Parses] => [
        shape,
        envelopeSchema.shape[key as keyof typeof envelopeSchema.shape],
      ]),
      ...Object.entries(SIGNER_SHAPE.fields).map(([key, shape]): [Shape, Parses] => [
        shape,
        signerSchema.shape[key as keyof typeof signerSchema.shape],
      ]),
    ];
    for (const [shape, schema] of pairs)
      for (const value of VALUES.filter((v) => v !== ABSENT))
        expect(
          shapeIssues(shape, value).map((issue) => ({
            path: formatPath(issue.path),
            message: issue.message,
          })),
        ).toEqual(zodIssuesOf(schema, value));
  });

  it('gives the CSV templates the type the schema gives each field', () => {
    interface Node {
      _zod: { def: { type: string; shape?: Record<string, Node>; element?: Node; innerType?: Node } };
    }
    const zodKind = (path: (string | number)[]): string => {
      let node: Node | undefined = envelopeSchema;
      const unwrap = (n: Node | undefined) => (n?._zod.def.type === 'optional' ? n._zod.def.innerType : n);
      for (const segment of path) {
        node = unwrap(node);
        const def = node?._zod.def;
        node = typeof segment === 'number' ? def?.element : def?.shape?.[segment];
      }
      const type = unwrap(node)?._zod.def.type;
      return type === 'string' || type === 'number' || type === 'boolean' ? type : 'other';
    };
    for (const path of [...FIELD_PATHS, ['document'], ['signers'], ['nothing'], ['signers', 0, 'nothing']])
      expect(fieldKind(path), formatPath(path)).toBe(zodKind(path));
  });

  it('types the create request as the schema does', () => {
    expectTypeOf<EnvelopeInput>().toEqualTypeOf<z.input<typeof envelopeSchema>>();
    expectTypeOf<SignerInput>().toEqualTypeOf<z.input<typeof signerSchema>>();
  });
});
