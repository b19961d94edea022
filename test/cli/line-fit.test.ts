/** The one way a streamed line fits the terminal (line-fit.ts), without spawning. */
import { beforeAll, describe, expect, it } from 'vitest';
import { fitLine, free, optional, whole } from '../../src/cli/render/line-fit.js';
import { prepareWidths } from '../../src/cli/render/table.js';

beforeAll(() => prepareWidths(['契約']));

const TIME = '2026-11-25 13:05:00Z';

describe('fitLine', () => {
  const parts = [
    whole(TIME),
    '  ',
    whole('env_0123456789abcdefghij', { pad: 26 }),
    ' ',
    free('Layla Haddad bin Rashid', { pad: 24 }),
    ' ',
    optional('(slower while quiet)'),
  ];

  it('in a pipe: nothing cut, padding kept, whitespace runs of a value collapsed', () => {
    expect(fitLine(parts, undefined)).toBe(
      `${TIME}  env_0123456789abcdefghij   Layla Haddad bin Rashid  (slower while quiet)`,
    );
    expect(fitLine([free(`Omar${' '.repeat(42)}${TIME}`)], undefined)).toBe(`Omar ${TIME}`);
  });

  it('on a terminal: the padding goes first, then free text down to its minimum, then our optional words whole, then free text to …', () => {
    expect(fitLine(parts, 94)).toBe(
      `${TIME}  env_0123456789abcdefghij   Layla Haddad bin Rashid  (slower while quiet)`,
    );
    expect(fitLine(parts, 91)).toBe(
      `${TIME}  env_0123456789abcdefghij Layla Haddad bin Rashid (slower while quiet)`,
    );
    expect(fitLine(parts, 80)).toBe(`${TIME}  env_0123456789abcdefghij Layla Hadda… (slower while quiet)`);
    // Free text at its minimum (8) would not leave room for our words: they go whole, never cut.
    expect(fitLine(parts, 60)).toBe(`${TIME}  env_0123456789abcdefghij Layla Hadda…`);
    expect(fitLine(parts, 48)).toBe(`${TIME}  env_0123456789abcdefghij …`);
    // Ids and times are never cut: a line of those wider than the terminal is wrapped between
    // words, never inside one, with every word of ours, its free text cut to a third of the line.
    expect(fitLine(parts, 30)).toBe(
      `${TIME}\n  env_0123456789abcdefghij\n  Layla Had… (slower while\n  quiet)`,
    );
    for (const width of [94, 91, 80, 60, 48, 30])
      for (const line of fitLine(parts, width).split('\n'))
        expect([...line].length).toBeLessThanOrEqual(width);
  });

  it('cuts free text by rank, the widest of a rank first, and measures wide characters', () => {
    const line = fitLine([free('a'.repeat(30)), ' ', free('b'.repeat(30), { rank: 1 })], 50);
    expect(line).toBe(`${'a'.repeat(18)}… ${'b'.repeat(30)}`);
    expect(fitLine(['> ', free('契約書の題名です')], 10)).toBe('> 契約書…');
  });
});
