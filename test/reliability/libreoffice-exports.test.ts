/**
 * CSV files as a spreadsheet really writes them: an HR sheet (Arabic and
 * Latin names, phones typed as text, one phone column formatted as a number)
 * exported by LibreOffice headless the ways Excel users export: "Text CSV" in
 * UTF-8, Windows-1252, Windows-1256 and UTF-16, with `,`, `;` and tab; and a
 * UTF-8 export opened as Windows-1252 (or 1256) and saved again. Each is
 * either read to exactly the names in the sheet, compared with what the
 * sandbox stored, or refused once with exit 2 and nothing sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/paths.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../helpers/in-process.js';
import { CHARSET, LibreOffice, NO_LIBREOFFICE, type Cell } from '../helpers/libreoffice.js';

const TEMPLATE = join(ROOT, 'examples', 'template.json');
const HEADER = [
  'contract_id',
  'signer_name',
  'signer_email',
  'signer_phone',
  'channel',
  'witness_name',
  'witness_phone',
  'days',
];
/** Fifty employees: Arabic and Latin names, e-mail and WhatsApp signers, some with a witness. */
const PEOPLE: Cell[][] = Array.from({ length: 50 }, (_, i) => {
  const arabic = i % 5 !== 0;
  const name = arabic
    ? ['أحمد العتيبي', 'نورة القحطاني', 'محمد الشمري', 'سارة الدوسري'][i % 4]! + ` ${i}`
    : `José Müller ${i}`;
  const phone = `+96650${String(1_000_000 + i).slice(-7)}`;
  return i % 2 === 0
    ? [
        `HR-${i}`,
        name,
        '',
        phone,
        'whatsapp',
        i % 3 === 0 ? 'فاطمة الزهراني' : '',
        i % 3 === 0 ? '+971501234599' : '',
        { number: 14 },
      ]
    : [`HR-${i}`, name, `emp${i}@company.sa`, '', 'email', '', '', { number: 30 }];
});
const namesOf = (rows: Cell[][]) => rows.map((r) => [r[1] as string, ...(r[5] ? [r[5] as string] : [])]);

let sandbox: TestSandbox;
let office: LibreOffice;
beforeAll(async () => {
  sandbox = await startTestSandbox({ speed: 0.01 });
  if (!NO_LIBREOFFICE) office = new LibreOffice(tempDir('sign-cli-lo-'));
});
afterAll(async () => {
  await sandbox?.stop();
});

interface Line {
  input: string;
  envelope: { id: string; contract_id: string };
}

/** Creates the export's envelopes and reads each back: the names the service stored, in row order. */
async function storedNames(csv: string, extra: string[] = []): Promise<string[][]> {
  const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir() };
  const result = await runCommand(
    ['envelopes', 'create', '--csv', csv, '--template', TEMPLATE, '--json', '--new', ...extra],
    { env },
  );
  expect(result.code, result.stderr.slice(0, 2000)).toBe(0);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
  return Promise.all(
    lines.map(async (l) => {
      const stored = JSON.parse(
        (await runCommand(['envelopes', 'get', l.envelope.id, '--json'], { env })).stdout,
      ) as { signers: { name: string }[] };
      return stored.signers.map((s) => s.name).filter((n) => n !== 'Nadia Saleh (HR)');
    }),
  );
}

async function refusedOnce(csv: string, message: RegExp): Promise<void> {
  const before = await sandbox.envelopeCount();
  const result = await runCommand(['envelopes', 'create', '--csv', csv, '--template', TEMPLATE], {
    env: { ...sandbox.env, SIGN_STATE_DIR: tempDir() },
  });
  expect(result.code).toBe(2);
  const errors = result.stderr.split('\n').filter((l) => l.startsWith('error:'));
  expect(errors, result.stderr).toHaveLength(1);
  expect(errors[0]).toMatch(message);
  expect(await sandbox.envelopeCount()).toBe(before);
}

describe.skipIf(NO_LIBREOFFICE)('CSV exported by LibreOffice', () => {
  it.each([
    ['UTF-8, comma', ',', CHARSET.utf8],
    ['UTF-8, semicolon', ';', CHARSET.utf8],
    ['UTF-8, tab', '\t', CHARSET.utf8],
    ['UTF-16, comma', ',', CHARSET.utf16],
    ['UTF-16, tab', '\t', CHARSET.utf16],
  ])(
    '%s: every name exactly as in the sheet',
    async (name, delimiter, charset) => {
      const csv = office.exportSheet(name.replace(/\W+/g, '-'), [HEADER, ...PEOPLE], delimiter, charset);
      expect(await storedNames(csv)).toEqual(namesOf(PEOPLE));
    },
    120_000,
  );

  it('Windows-1256: refused once naming it; read exactly with --encoding windows-1256', async () => {
    // Windows-1256 has the Arabic letters and the French ones, not ü: the Latin names are plain here.
    const rows = PEOPLE.map((r) => r.map((c) => (typeof c === 'string' ? c.replace('ü', 'u') : c)));
    const csv = office.exportSheet('cp1256', [HEADER, ...rows], ',', CHARSET.windows1256);
    await refusedOnce(csv, /not UTF-8 text .*it looks like windows-1256 \(Arabic Windows\)/);
    expect(await storedNames(csv, ['--encoding', 'windows-1256'])).toEqual(namesOf(rows));
  }, 120_000);

  it('Windows-1252 (Excel\'s plain "CSV" on a Western Windows): the Arabic names became "?"; refused once, naming the columns', async () => {
    const csv = office.exportSheet('cp1252', [HEADER, ...PEOPLE], ';', CHARSET.windows1252);
    // The Latin names are Windows-1252 bytes (not UTF-8) too: the file is refused for its encoding, naming it.
    await refusedOnce(csv, /not UTF-8 text .*windows-1252/);
    // Read as what it is, the "?" are found: one error for the file, not one per row.
    const result = await runCommand(
      ['envelopes', 'create', '--csv', csv, '--template', TEMPLATE, '--encoding', 'windows-1252'],
      { env: { ...sandbox.env, SIGN_STATE_DIR: tempDir() } },
    );
    expect(result.code).toBe(2);
    const errors = result.stderr.split('\n').filter((l) => l.startsWith('error:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/the export lost letters/);
    expect(errors[0]).toMatch(/column signer_name \(rows 3, 4, 5 and 37 more\) has "\?" where letters were/);
    expect(errors[0]).toMatch(/column witness_name \(rows 2, 8, 14 and 6 more\) has "\?" where letters were/);
  }, 120_000);

  it('a UTF-8 export opened as Windows-1252 or 1256 and saved again (mojibake): refused once, with what it meant', async () => {
    const utf8 = office.exportSheet('original', [HEADER, ...PEOPLE], ',', CHARSET.utf8);
    await refusedOnce(
      office.resave(utf8, CHARSET.windows1252, CHARSET.utf8),
      /column signer_name \(rows 2, 3, 4 and 47 more\) has mojibake, e\.g\. "JosÃ© MÃ¼ller 0", most likely "José Müller 0"/,
    );
    await refusedOnce(
      office.resave(utf8, CHARSET.windows1256, CHARSET.utf8),
      /column signer_name \(rows 2, 3, 4 and 47 more\) has mojibake, e\.g\. "Jos.*most likely "José Müller 0"/,
    );
  }, 180_000);

  it('a phone column formatted as a number: refused naming the column, the digits may be lost', async () => {
    const rows: Cell[][] = [
      HEADER,
      [
        'HR-N',
        'Omar Khalil',
        '',
        { number: 966501234567, scientific: true },
        'whatsapp',
        '',
        '',
        { number: 14 },
      ],
    ];
    const csv = office.exportSheet('number-phone', rows, ',', CHARSET.utf8);
    await refusedOnce(
      csv,
      /row 2: signer_phone \(signers\[0\]\.phone\): was stored by a spreadsheet as a number .*9\.66501E\+11/,
    );
  }, 120_000);
});
