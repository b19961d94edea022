/** The one wrapper (layout/wrap.ts), and the check the first-hour test makes with it (helpers/terminal-fit.ts). */
import { describe, expect, it } from 'vitest';
import { labelled, wrapLine, wrapText } from '../../src/cli/layout/wrap.js';
import { formatExample } from '../../src/cli/help/help.js';
import { fitProblems, wordsIn } from '../helpers/terminal-fit.js';

const HINT =
  "hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem> (the sandbox's is served at <base-url>/_sandbox/ca.pem)";

describe('wrapLine', () => {
  it('breaks only at spaces, the next lines indented, none wider than the width', () => {
    const lines = wrapLine(HINT, 80);
    expect(lines).toEqual([
      'hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem>',
      "  (the sandbox's is served at <base-url>/_sandbox/ca.pem)",
    ]);
    expect(lines.join(' ').replace(/ +/g, ' ')).toBe(HINT);
  });

  it('puts a word wider than the line alone on a line of its own, whole', () => {
    const path = `/tmp/${'x'.repeat(90)}/credentials.env`;
    expect(wrapLine(`use it with . ${path} now`, 40)).toEqual(['use it with .', `  ${path}`, '  now']);
  });

  it('keeps a line that fits, and an indented line indents its next lines further', () => {
    expect(wrapLine('short', 80)).toEqual(['short']);
    expect(wrapLine('  status completed, 2 of 2 signed', 20)).toEqual([
      '  status completed,',
      '    2 of 2 signed',
    ]);
  });

  it('measures colour codes as nothing, and leaves a pipe alone', () => {
    const red = '\u001b[31merror:\u001b[39m';
    expect(wrapText(`${red} ${'word '.repeat(20).trim()}`, 40).split('\n')[0]).toBe(
      `${red} word word word word word word`,
    );
    expect(wrapText(HINT, undefined)).toBe(HINT);
  });
});

describe('labelled', () => {
  it('wraps a value under its label, and puts a whole value on the next line', () => {
    expect(
      labelled(
        '  journey         ',
        'manual: envelopes wait for people (`sign-cli envelopes open <id>`)',
        60,
      ),
    ).toEqual([
      '  journey         manual: envelopes wait for people',
      '                  (`sign-cli envelopes open <id>`)',
    ]);
    expect(labelled('  use it with     ', `. /tmp/${'d'.repeat(50)}/credentials.env`, 60, true)).toEqual([
      '  use it with',
      `    . /tmp/${'d'.repeat(50)}/credentials.env`,
    ]);
  });
});

describe('a help example', () => {
  it('fits: its comment under it, a long command continued with " \\" at a space', () => {
    expect(
      formatExample(
        'sign-cli envelopes create -f envelope.json --new       # deliberately a second envelope',
        80,
      ),
    ).toEqual([
      '  $ sign-cli envelopes create -f envelope.json --new',
      '      # deliberately a second envelope',
    ]);
    const long = formatExample(
      'sign-cli envelopes validate --csv recipients.csv --template template.json --default-country AE',
      80,
    );
    expect(long).toEqual([
      '  $ sign-cli envelopes validate --csv recipients.csv --template template.json \\',
      '      --default-country AE',
    ]);
  });
});

describe('the first-hour check', () => {
  const reference = wordsIn([`${HINT}\n✓ env_P7YZxFJsAhDjIsW6Gzmg is completed`]);

  it('finds a line wider than the terminal, and a word or an id broken across two lines', () => {
    expect(fitProblems(HINT, 80, reference)).toEqual([`wider than 80 (${HINT.length}): ${HINT}`]);
    const brokenWord =
      "hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem> (th\ne sandbox's";
    expect(fitProblems(brokenWord, 80, reference)).toHaveLength(1);
    expect(fitProblems('✓ env_P7YZxF\nJsAhDjIsW6Gzmg is completed', 80, reference)).toHaveLength(1);
  });

  it('passes lines wrapped between words', () => {
    expect(fitProblems(wrapText(HINT, 80), 80, reference)).toEqual([]);
    expect(fitProblems(wrapText(HINT, 30), 30, reference)).toEqual([]);
  });
});
