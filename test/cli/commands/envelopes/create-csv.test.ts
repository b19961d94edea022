/**
 * `envelopes create --csv … --template …` (and `validate --csv`), in process
 * against an in-process sandbox: a CSV as Excel saves it (UTF-8 BOM, CRLF,
 * `;`, quoted fields with the delimiter, quotes and line breaks, Arabic and
 * Latin names), one envelope per row with every name exact, exactly once per
 * row across re-runs, and every problem named by row before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';

let sandbox: TestSandbox;
const work = workspace('sign-cli-csv-');
const TEMPLATE = join(ROOT, 'examples', 'template.json');

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

/** Rows as Excel writes "CSV UTF-8" in a locale whose list separator is `;`: BOM, CRLF, quotes doubled. */
function excelCsv(rows: string[][]): string {
  const cell = (v: string) => (/[;"\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return `\uFEFF${rows.map((r) => r.map(cell).join(';')).join('\r\n')}\r\n`;
}

const HEADER = [
  ' contract_id ',
  'signer_name',
  'signer_email',
  'signer_phone',
  'channel',
  'witness_name',
  'witness_phone',
  'days',
  'notes',
];
const ROWS = [
  [
    'CSV-0001',
    'Layla Haddad',
    'layla.haddad@example.com',
    '',
    'email',
    '',
    '',
    '14',
    'first line\r\nsecond line; with a semicolon',
  ],
  ['CSV-0002', 'عمر خليل', '', '+971501234567', 'whatsapp', '', '', '14', ''],
  [
    'CSV-0003',
    'Haddad; Rami "Ray"',
    'rami.haddad@example.com',
    '',
    'email',
    'سارة يوسف',
    '+971501234599',
    '30',
    'says "yes"',
  ],
];

interface Line {
  input: string;
  status: string;
  already_created: boolean;
  envelope: { id: string; contract_id: string; expires_in_days: number; signers: { name: string }[] };
}
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

describe('envelopes create --csv --template', () => {
  it('creates one envelope per row of an Excel CSV, names exact, and exactly once per row across re-runs', async () => {
    const csv = work.write('recipients.csv', excelCsv([HEADER, ...ROWS]));
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir() };
    const args = ['envelopes', 'create', '--csv', csv, '--template', TEMPLATE, '--json'];
    const before = await sandbox.envelopeCount();
    const first = await runCommand(args, { env });
    expect(first.code).toBe(0);
    // The multi-line note is one record: the rows keep a spreadsheet's numbers.
    const created = lines(first.stdout);
    expect(created.map((l) => [l.input, l.status, l.already_created])).toEqual([
      [`${csv}:row 2`, 'created', false],
      [`${csv}:row 3`, 'created', false],
      [`${csv}:row 4`, 'created', false],
    ]);
    expect(created.map((l) => l.envelope.signers.map((s) => s.name))).toEqual([
      ['Layla Haddad', 'Nadia Saleh (HR)'],
      ['عمر خليل', 'Nadia Saleh (HR)'],
      ['Haddad; Rami "Ray"', 'سارة يوسف', 'Nadia Saleh (HR)'],
    ]);
    expect(created.map((l) => l.envelope.expires_in_days)).toEqual([14, 14, 30]);
    expect(await sandbox.envelopeCount()).toBe(before + 3);
    // The header is trimmed; the column no placeholder uses is a warning, not an error.
    expect(first.stderr).toContain(`warning: ${csv}: the template never uses the column "notes"`);

    const again = await runCommand(args, { env });
    expect(again.code).toBe(0);
    expect(lines(again.stdout).every((l) => l.already_created)).toBe(true);
    expect(await sandbox.envelopeCount()).toBe(before + 3);

    // One row edited: only that row is sent.
    const edited = ROWS.map((r) => [...r]);
    edited[1]![7] = '21';
    work.write('recipients.csv', excelCsv([HEADER, ...edited]));
    const third = await runCommand(args, { env });
    expect(third.code).toBe(0);
    // Lines come as outcomes do (skipped rows first): compared in row order.
    expect(
      lines(third.stdout)
        .map((l) => [l.input, l.already_created])
        .sort(),
    ).toEqual([
      [`${csv}:row 2`, true],
      [`${csv}:row 3`, false],
      [`${csv}:row 4`, true],
    ]);
    expect(await sandbox.envelopeCount()).toBe(before + 4);
  });

  it('names every bad row and field as a spreadsheet numbers them, exit 2, nothing sent', async () => {
    const rows = [
      HEADER,
      ROWS[0]!,
      ['CSV-0100', 'No Phone', '', '0501234567', 'whatsapp', '', '', 'soon', ''],
      ['CSV-0101', 'Short row'],
    ];
    const csv = work.write('bad.csv', excelCsv(rows));
    const before = await sandbox.envelopeCount();
    const result = await runCommand(['envelopes', 'create', '--csv', csv, '--template', TEMPLATE], {
      env: { ...sandbox.env, SIGN_STATE_DIR: tempDir() },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `${csv.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:row 3: signer_phone \\(signers\\[0\\]\\.phone\\): is a national number`,
      ),
    );
    expect(result.stderr).toContain(`${csv}:row 3: days (expires_in_days):`);
    expect(result.stderr).toContain(`${csv}:row 4: has 2 fields, the header has 9`);
    expect(result.stderr).toContain('2 of 3 inputs are invalid; nothing was sent.');
    expect(await sandbox.envelopeCount()).toBe(before);

    const validate = await runCommand(['envelopes', 'validate', '--csv', csv, '--template', TEMPLATE]);
    expect(validate.code).toBe(2);
    expect(validate.stdout).toContain(`✓ ${csv}:row 2: valid`);
  });

  it('refuses a placeholder with no column, a CSV without a template, and a quote never closed (exit 2)', async () => {
    const csv = work.write('few.csv', 'contract_id,signer_name\nX-1,A\n');
    const missing = await runCommand(['envelopes', 'validate', '--csv', csv, '--template', TEMPLATE]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /\{\{signer_email\}\}, .*have no columns in .*few\.csv \(hint: its columns: contract_id, signer_name\)/,
    );
    const directory = await runCommand(['envelopes', 'validate', '--csv', work.dir, '--template', TEMPLATE]);
    expect([directory.code, directory.stderr]).toEqual([
      2,
      `error: --csv ${work.dir}: not a file; give the CSV itself\n`,
    ]);
    const alone = await runCommand(['envelopes', 'create', '--csv', csv]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--csv needs --template');
    const broken = work.write(
      'broken.csv',
      `${HEADER.join(',')}\nX-2,"never closed,a@example.com,,email,,,14,\n`,
    );
    const unreadable = await runCommand(['envelopes', 'validate', '--csv', broken, '--template', TEMPLATE]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain('not readable as CSV at row 2: Quote Not Closed');
  });

  it('skips rows of delimiters only; a row without its own signer is invalid; a quote opened mid-field is exit 2 naming its row', async () => {
    // As exports end: two trailing columns with no name (formatted once), rows of commas only.
    const csv = work.write(
      'export.csv',
      [
        `${HEADER.join(',')},,`,
        `${ROWS[1]!.join(',')},,`,
        'EMP-9,,,,,,,14,,,',
        ',,,,,,,,,,',
        ',,,,,,,,,,',
        '',
      ].join('\r\n'),
    );
    const result = await runCommand(['envelopes', 'validate', '--csv', csv, '--template', TEMPLATE]);
    expect(result.stderr).toContain(
      `warning: ${csv}: columns 10, 11 of the header row have no name and are ignored`,
    );
    expect(result.code).toBe(2);
    expect(result.stdout.trim()).toBe(`✓ ${csv}:row 2: valid`);
    expect(result.stderr).toContain(`${csv}:row 3: signers[0].name:`);
    expect(result.stderr).not.toContain('row 4');
    const quote = work.write(
      'quote.csv',
      [
        HEADER.join(','),
        ROWS[0]!.slice(0, 8).join(',') + ',',
        'EMP-2,Ann "Nan" B,b@example.com,,email,,,14,',
      ].join('\n'),
    );
    const opened = await runCommand(['envelopes', 'validate', '--csv', quote, '--template', TEMPLATE]);
    expect(opened.code).toBe(2);
    expect(opened.stderr).toMatch(/not readable as CSV at row 3: Invalid Opening Quote/);
    const headerOnly = await runCommand([
      'envelopes',
      'validate',
      '--csv',
      work.write('header.csv', `${HEADER.join(',')}\n`),
      '--template',
      TEMPLATE,
    ]);
    expect(headerOnly.code).toBe(2);
    expect(headerOnly.stderr).toContain('no rows under the header row');
  });

  it('takes the delimiter from the header row or from --delimiter (tab as \\t or "tab"); a bad one is exit 2', async () => {
    const tsv = work.write('recipients.tsv', [HEADER, ROWS[1]!].map((r) => r.join('\t')).join('\n'));
    for (const extra of [[], ['--delimiter', 'tab'], ['--delimiter', '\\t']]) {
      const result = await runCommand([
        'envelopes',
        'validate',
        '--csv',
        tsv,
        '--template',
        TEMPLATE,
        ...extra,
      ]);
      expect([extra, result.code, result.stdout.trim()]).toEqual([extra, 0, `✓ ${tsv}:row 2: valid`]);
    }
    // The wrong delimiter given on purpose: one column, which the error points out.
    const wrong = await runCommand([
      'envelopes',
      'validate',
      '--csv',
      tsv,
      '--template',
      TEMPLATE,
      '--delimiter',
      ',',
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('have no columns');
    const bad = await runCommand([
      'envelopes',
      'validate',
      '--csv',
      tsv,
      '--template',
      TEMPLATE,
      '--delimiter',
      ';;',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--delimiter must be one character');
  });

  it('--dry-run shows the first row as it would be sent, and the count; the example files are valid', async () => {
    const csv = join(ROOT, 'examples', 'recipients.csv');
    const dry = await runCommand(['envelopes', 'create', '--csv', csv, '--template', TEMPLATE, '--dry-run'], {
      env: sandbox.env,
    });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${csv}:row 2 renders to:`);
    expect(dry.stdout).toContain('"name": "Layla Haddad"');
    expect(dry.stderr).toContain(
      `dry run: ${readFileSync(csv, 'utf8').trim().split('\n').length - 1} envelopes valid, nothing sent`,
    );
  });
});
