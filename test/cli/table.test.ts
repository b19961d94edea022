/** The one face of every table, and the one time format, without spawning. */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  cutTo,
  displayWidth,
  planLayout,
  prepareWidths,
  recordLines,
  tableLines,
  type Column,
} from '../../src/cli/render/table.js';
import { formatInstant, formatTime } from '../../src/cli/render/time.js';

const columns: Column[] = [
  { head: 'ID' },
  { head: 'STATE' },
  { head: 'TITLE', cut: true, min: 6 },
  { head: 'URL', cut: true, min: 8 },
];
const rows = [
  [
    'env_0123456789',
    'completed',
    'A title that is much too long',
    'https://hooks.example.com/a/very/long/path',
  ],
  ['env_abc', 'sent', 'Short', 'http://x'],
];

// The Unicode width measure, as every printer loads it before measuring text that is not plain ASCII.
beforeAll(() => prepareWidths(['契約']));

describe('widths', () => {
  it('plain ASCII is measured without the Unicode measure; other text only once it is loaded', async () => {
    vi.resetModules();
    const fresh = await import('../../src/cli/render/table.js');
    expect(fresh.displayWidth('env_1  \u001b[1mcompleted\u001b[22m')).toBe(16);
    expect(fresh.cutTo('a plain ASCII title', 8)).toBe('a plain…');
    expect(fresh.displayWidth(fresh.cutTo('a plain ASCII title', 8))).toBe(8);
    expect(() => fresh.displayWidth('عقد')).toThrow(/prepareWidths/);
    await fresh.prepareWidths(['id', 'عقد']);
    expect(fresh.displayWidth('عقد')).toBe(3);
  });
});

describe('tables', () => {
  it('no borders, UPPER CASE heads, two spaces between columns; the last column is not padded', () => {
    expect(tableLines(columns, rows, undefined)).toEqual([
      'ID              STATE      TITLE                          URL',
      'env_0123456789  completed  A title that is much too long  https://hooks.example.com/a/very/long/path',
      'env_abc         sent       Short                          http://x',
    ]);
  });

  it('on a terminal, cuts the widest free-text column first, never a read-by column, down to its minimum', () => {
    for (const width of [60, 50, 43]) {
      const lines = tableLines(columns, rows, width);
      for (const line of lines) expect(displayWidth(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      expect(lines[1]).toMatch(/^env_0123456789 {2}completed {2}/);
      expect(lines[1]).toContain('…');
    }
    const layout = planLayout(columns, rows, 60);
    expect(layout).toEqual({ kind: 'table', widths: [14, 9, expect.any(Number), expect.any(Number)] });
    // The two cut columns shrink together: the widest gives way first.
    if (layout.kind === 'table')
      expect(Math.abs(layout.widths[2]! - layout.widths[3]!)).toBeLessThanOrEqual(1);
  });

  it('stacks each row as label: value lines when even the read-by columns do not fit', () => {
    expect(planLayout(columns, rows, 40)).toEqual({ kind: 'stacked' });
    const lines = tableLines(columns, rows, 40);
    expect(lines.slice(0, 3)).toEqual([
      'id:     env_0123456789',
      'state:  completed',
      'title:  A title that is much too long',
    ]);
    // A free-text value still gives way to the width; a blank line between rows.
    expect(lines[3]).toBe('url:    https://hooks.example.com/a/ver…');
    expect(lines[4]).toBe('');
    expect(lines[5]).toBe('id:     env_abc');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
  });

  it('a record (envelopes get) cuts every value to its line but ids and times, so none wraps onto a line of its own', () => {
    const id = `env_${'i'.repeat(40)}`;
    const title = `Lease${'x'.repeat(30)}status: completed`;
    expect(
      recordLines(
        [
          { label: 'id', value: id, whole: true },
          { label: 'title', value: title },
          { label: 'webhook_url', value: 'https://example.com/' + 'x'.repeat(60) },
        ],
        40,
      ),
    ).toEqual([
      `id:           ${id}`,
      'title:        Leasexxxxxxxxxxxxxxxxxxxx…',
      'webhook_url:  https://example.com/xxxxx…',
    ]);
    // A pipe: nothing cut.
    expect(recordLines([{ label: 'title', value: title }], undefined)).toEqual([`title:  ${title}`]);
  });

  it('measures what the terminal shows: wide characters, combining marks and colour codes', () => {
    expect(displayWidth('契約')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('\u001b[32mok\u001b[39m')).toBe(2);
    expect(cutTo('契約書の題名', 7)).toBe('契約書…');
    expect(cutTo('short', 10)).toBe('short');
  });
});

describe('the one time format', () => {
  it('is UTC, marked Z, to the second, the same text in every time zone', () => {
    expect(formatInstant(new Date('2026-11-23T07:44:36.517Z'))).toBe('2026-11-23 07:44:36Z');
    expect(formatTime('2026-11-23T07:44:36.517Z')).toBe('2026-11-23 07:44:36Z');
    expect(formatTime('2026-11-23T11:44:36+04:00')).toBe('2026-11-23 07:44:36Z');
    // A time without an offset from the service is read as UTC, as the sandbox writes them.
    expect(formatTime('2026-11-23T07:44:36')).toBe('2026-11-23 07:44:36Z');
    expect(formatTime(1763883876)).toBe('2025-11-23 07:44:36Z');
    expect(formatTime('soon')).toBe('soon');
    expect(formatTime(null)).toBe('');
  });
});
