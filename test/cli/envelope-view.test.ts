/** The rendering of `envelopes list` and `envelopes watch`, table-driven, without spawning. */
import { Chalk } from 'chalk';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  changeJson,
  changeLines,
  liveBlock,
  pollDelay,
  stateKey,
} from '../../src/cli/render/envelope-view.js';
import { LIST_COLUMNS, envelopeRow } from '../../src/cli/render/envelope-rows.js';
import { tableLines, displayWidth, prepareWidths } from '../../src/cli/render/table.js';
import { parseSince } from '../../src/cli/flags/since.js';
import { compileQuery } from '../../src/cli/render/query.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { SignError } from '../../src/core/errors.js';
import type { Envelope } from '../../src/core/envelope/schema.js';

// The Unicode width measure, as the printers load it before measuring text that is not plain ASCII.
beforeAll(() => prepareWidths(['契約']));

const plain = new Chalk({ level: 0 });
const at = new Date('2026-11-22T10:41:05.123Z');
const envelope = (status: string, signers: [string, string][]): Envelope => ({
  id: 'env_1',
  status,
  title: 'Office lease',
  contract_id: 'CTR-1',
  created_at: '2026-11-22T10:40:00.000Z',
  signers: signers.map(([name, state], i) => ({
    id: `sgn_${i}`,
    name,
    order: i + 1,
    channel: 'email',
    status: state,
    ...(state === 'signed' ? { signed_at: '2026-11-22T10:41:02.000Z' } : {}),
  })),
});

describe('watch rendering', () => {
  it('the first report says what is watched; later ones only what changed', () => {
    const first = envelope('sent', [
      ['Layla', 'notified'],
      ['Omar', 'pending'],
    ]);
    expect(changeLines(undefined, first, at)).toEqual([
      '2026-11-22 10:41:05Z  env_1  sent  "Office lease", 2 signer(s)',
      '2026-11-22 10:41:05Z  env_1  signer 1. Layla: notified',
      '2026-11-22 10:41:05Z  env_1  signer 2. Omar: pending',
    ]);
    const next = envelope('completed', [
      ['Layla', 'signed'],
      ['Omar', 'pending'],
    ]);
    expect(changeLines(first, next, at)).toEqual([
      '2026-11-22 10:41:05Z  env_1  signer 1. Layla: notified → signed',
      '2026-11-22 10:41:05Z  env_1  sent → completed',
    ]);
    expect(changeLines(next, next, at)).toEqual([]);
  });

  it('a change is a change of a state, not of a timestamp', () => {
    const a = envelope('sent', [['Layla', 'viewed']]);
    expect(stateKey(a)).toBe(stateKey({ ...a, updated_at: 'later' }));
    expect(stateKey(a)).not.toBe(stateKey(envelope('sent', [['Layla', 'signed']])));
  });

  it('the live block: the envelope, a line per signer, and when it was checked; cut to the width', () => {
    const block = liveBlock(
      envelope('sent', [
        ['Layla Haddad', 'signed'],
        ['Omar Khalil', 'viewed'],
      ]),
      plain,
      { checkedAt: at, intervalS: 2 },
    );
    expect(block).toEqual([
      '• env_1  Office lease  (CTR-1)',
      '  status sent, 1 of 2 signed',
      '  ✓ 1. Layla Haddad  email  signed 2026-11-22 10:41:02Z',
      '  ◐ 2. Omar Khalil   email  viewed',
      '  checked 2026-11-22 10:41:05Z · every 2 s, slower while quiet · Ctrl-C stops',
    ]);
    const narrow = liveBlock(envelope('declined', [['Layla Haddad', 'declined']]), plain, {
      checkedAt: at,
      intervalS: 2,
      columns: 21,
    });
    for (const line of narrow) expect([...line].length).toBeLessThanOrEqual(20);
    expect(narrow[0]).toBe('✗ env_1  Office lea…');
  });

  it('the JSON line per change', () => {
    expect(changeJson(envelope('sent', [['Layla', 'viewed']]), at)).toEqual({
      time: '2026-11-22T10:41:05.123Z',
      id: 'env_1',
      status: 'sent',
      signers: [{ id: 'sgn_0', name: 'Layla', order: 1, status: 'viewed' }],
    });
  });

  it('polls at the interval while things move, slower while quiet, at most 30 s (or the interval)', () => {
    expect([0, 1, 2, 3, 4].map((quiet) => pollDelay(2000, quiet))).toEqual([2000, 2000, 2000, 3000, 4500]);
    expect(pollDelay(2000, 50)).toBe(30_000);
    expect(pollDelay(60_000, 10)).toBe(60_000);
  });
});

describe('list rows', () => {
  it('a row per envelope: id, state, signed of total, time (UTC, marked), contract, title', () => {
    expect(
      envelopeRow(
        envelope('sent', [
          ['A', 'signed'],
          ['B', 'viewed'],
        ]),
      ),
    ).toEqual(['env_1', 'sent', '1/2', '2026-11-22 10:40:00Z', 'CTR-1', 'Office lease']);
    expect(envelopeRow({ id: 'env_2', created_at: 'not a time' })[3]).toBe('not a time');
  });

  it('cuts only the title: never the id, state, time or contract id (stacked at 80 columns, a table at 120)', () => {
    const rows = [
      [
        'env_0123456789abcdefghij',
        'completed',
        '2/2',
        '2026-11-22 10:40:00Z',
        'EMP-2027-CONTRACT-0042',
        'A title that is much too long for a narrow terminal',
      ],
    ];
    const [head, line] = tableLines(LIST_COLUMNS, rows, 120);
    expect(displayWidth(line!)).toBeLessThanOrEqual(120);
    expect(line).toMatch(
      /^env_0123456789abcdefghij {2}completed {2}2\/2 +2026-11-22 10:40:00Z {2}EMP-2027-CONTRACT-0042 {2}A title[^ ]* [^…]*…$/,
    );
    expect(head).toMatch(/^ID +STATUS +SIGNED +CREATED +CONTRACT +TITLE$/);
    const stacked = tableLines(LIST_COLUMNS, rows, 80);
    for (const shown of stacked) expect(displayWidth(shown)).toBeLessThanOrEqual(80);
    expect(stacked).toContain('contract:  EMP-2027-CONTRACT-0042');
    expect(stacked).toContain('title:     A title that is much too long for a narrow terminal');
    // A pipe is never cut.
    expect(tableLines(LIST_COLUMNS, rows, undefined)[1]).toContain(
      'A title that is much too long for a narrow terminal',
    );
  });

  it('Arabic and other multi-unit characters are measured as the terminal shows them', () => {
    const rows = [
      ['env_1', 'sent', '0/1', '2026-11-22 10:40:00Z', 'CTR', 'عقد إيجار المكتب'],
      ['env_2', 'sent', '0/1', '2026-11-22 10:40:00Z', '契約', 'x'],
    ];
    const lines = tableLines(LIST_COLUMNS, rows, undefined);
    expect(lines[1]).toContain('عقد إيجار المكتب');
    // Two wide characters take four columns: TITLE starts in the same column on every line.
    const titleAt = (line: string) => displayWidth(line.slice(0, line.lastIndexOf('  ') + 2));
    expect(new Set(lines.map(titleAt)).size).toBe(1);
  });
});

describe('--since', () => {
  const now = Date.parse('2026-11-22T12:00:00Z');
  it.each([
    ['90m', '2026-11-22T10:30:00.000Z'],
    ['12h', '2026-11-22T00:00:00.000Z'],
    ['7d', '2026-11-15T12:00:00.000Z'],
    ['2w', '2026-11-08T12:00:00.000Z'],
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T09:00Z', '2026-11-01T09:00:00.000Z'],
    ['2026-11-01T09:00:00+02:00', '2026-11-01T07:00:00.000Z'],
  ])('%s', (value, expected) => expect(parseSince(value, now)).toBe(expected));

  it.each(['yesterday', '7', '2026-13-45', '2026-11-01T09:00', '-3d', ''])(
    '%j is a usage error naming --since',
    (value) => {
      expect(() => parseSince(value, now)).toThrow(/^--since must be a date/);
    },
  );
});

describe('--query', () => {
  it('compiles once and applies JMESPath', async () => {
    const query = await compileQuery("data[?status=='sent'].id");
    expect(
      query({
        data: [
          { id: 'a', status: 'sent' },
          { id: 'b', status: 'completed' },
        ],
      }),
    ).toEqual(['a']);
  });

  it('a bad expression is a usage error (exit 2) naming --query', async () => {
    const bad = await compileQuery('envelope.[id').catch((e: unknown) => e);
    expect(exitCodeOf(bad)).toBe(2);
    expect((bad as Error).message).toMatch(/^--query "envelope\.\[id" is not a valid JMESPath expression/);
    expect(exitCodeOf(await compileQuery('  ').catch((e: unknown) => e))).toBe(2);
  });

  it('an expression that fails on the data is exit 1 (the command itself ran)', async () => {
    const query = await compileQuery('abs(id)');
    let thrown: unknown;
    try {
      query({ id: 'text' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SignError);
    expect(exitCodeOf(thrown)).toBe(1);
  });
});
