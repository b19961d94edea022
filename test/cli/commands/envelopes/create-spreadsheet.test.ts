/**
 * What the spreadsheet meant (`envelopes create|validate --csv`, and the same
 * rules for JSON and NDJSON), in process against an in-process sandbox: each
 * encoding a spreadsheet writes is read to exactly the names in the sheet
 * (read back from the service) or refused once with exit 2 and nothing sent;
 * phones written as people write them; invisible characters and case slips;
 * row errors in the sheet's own column names; one contract, one envelope.
 * (Real exports made by LibreOffice: test/heavy/libreoffice-exports.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../../../helpers/paths.js';
import { workspace } from '../../../helpers/envelopes.js';
import { runCommand, startTestSandbox, type TestSandbox } from '../../../helpers/in-process.js';
import { textDecoder } from '../../../../src/cli/input/encoding.js';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let sandbox: TestSandbox;
const work = workspace('sign-cli-sheet-');
const TEMPLATE = join(ROOT, 'examples', 'template.json');

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

const HEADER = 'contract_id,signer_name,signer_email,signer_phone,channel,witness_name,witness_phone,days';
/** Arabic and Latin names, as an HR sheet holds them. */
const PEOPLE = [
  ['SHEET-1', 'أحمد العتيبي', '', '+966501234567', 'whatsapp', 'سارة يوسف', '+971501234599', '14'],
  ['SHEET-2', 'José Müller', 'jose@example.com', '', 'email', '', '', '7'],
  ['SHEET-3', 'نورة القحطاني', 'noura@example.com', '', 'email', '', '', '30'],
];
const text = (rows: string[][], delimiter = ',') =>
  `${[HEADER.replaceAll(',', delimiter), ...rows.map((r) => r.join(delimiter))].join('\r\n')}\r\n`;

interface Line {
  input: string;
  status: string;
  envelope: { id: string; signers: { name: string; phone?: string }[] };
}
const created = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/** Creates from `file`, then reads each envelope back from the service: the names it stored. */
async function namesStored(args: string[]): Promise<string[][]> {
  const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir() };
  const result = await runCommand(
    ['envelopes', 'create', ...args, '--template', TEMPLATE, '--json', '--new'],
    { env },
  );
  expect(result.code, result.stderr).toBe(0);
  const ids = created(result.stdout).map((l) => l.envelope.id);
  return Promise.all(
    ids.map(async (id) =>
      (
        JSON.parse((await runCommand(['envelopes', 'get', id, '--json'], { env })).stdout) as Line['envelope']
      ).signers
        .map((s) => s.name)
        .filter((n) => n !== 'Nadia Saleh (HR)'),
    ),
  );
}

const EXPECTED = [['أحمد العتيبي', 'سارة يوسف'], ['José Müller'], ['نورة القحطاني']];

/** Refused once: exit 2, one error line, nothing sent. */
async function refusedOnce(args: string[], message: RegExp | string): Promise<string> {
  const before = await sandbox.envelopeCount();
  const result = await runCommand(['envelopes', 'create', ...args, '--template', TEMPLATE], {
    env: { ...sandbox.env, SIGN_STATE_DIR: tempDir() },
  });
  expect(result.code).toBe(2);
  const errors = result.stderr.split('\n').filter((l) => l.startsWith('error:'));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(message);
  expect(await sandbox.envelopeCount()).toBe(before);
  return result.stderr;
}

describe('encodings, decided once per file', () => {
  it("UTF-8 with and without a BOM, UTF-16 LE and BE with a BOM and without, `;` and tab, and Excel's sep= line: every name exact", async () => {
    const utf8 = text(PEOPLE);
    const files = {
      'utf8.csv': Buffer.from(utf8),
      'utf8-bom.csv': Buffer.from(`\uFEFF${utf8}`),
      'utf16le-bom.csv': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf8, 'utf16le')]),
      'utf16le.csv': Buffer.from(utf8, 'utf16le'),
      'utf16be.csv': Buffer.from(utf8, 'utf16le').swap16(),
      'semicolon.csv': Buffer.from(text(PEOPLE, ';')),
      'tab.csv': Buffer.from(text(PEOPLE, '\t')),
      'sep.csv': Buffer.from(`sep=|\r\n${text(PEOPLE, '|')}`),
    };
    for (const [name, bytes] of Object.entries(files))
      expect(await namesStored(['--csv', bytesFile(name, bytes)]), name).toEqual(EXPECTED);
  });

  it('Windows-1256 is refused once, naming it; --encoding windows-1256 reads it exactly', async () => {
    const file = bytesFile('cp1256.csv', encode1256(text(PEOPLE.filter((p) => !p[1]!.includes('é')))));
    const stderr = await refusedOnce(
      ['--csv', file],
      /cp1256\.csv: not UTF-8 text \(from line 2\); it looks like windows-1256 \(Arabic Windows\)/,
    );
    expect(stderr).toContain('--encoding windows-1256');
    expect(await namesStored(['--csv', file, '--encoding', 'windows-1256'])).toEqual([
      EXPECTED[0],
      EXPECTED[2],
    ]);
    await refusedOnce(
      ['--csv', file, '--encoding', 'klingon'],
      /--encoding klingon: not an encoding this Node knows/,
    );
  });
});

describe('letters an export lost, refused once per file', () => {
  it('"?" for every Arabic letter (Excel\'s "CSV" on a non-Arabic Windows): one error naming the columns and rows', async () => {
    const lossy = text(PEOPLE).replace(/[\u0600-\u06ff]/g, '?');
    const stderr = await refusedOnce(
      ['--csv', work.write('questions.csv', lossy)],
      /the export lost letters.*column signer_name \(rows 2, 4\) has "\?" where letters were, e\.g\. "\?\?\?\? \?\?\?\?\?\?\?"; column witness_name \(row 2\)/,
    );
    expect(stderr).toContain('save as "CSV UTF-8"');
    // A sheet whose cells really hold "??" says so.
    const validate = await runCommand(
      [
        'envelopes',
        'validate',
        '--csv',
        work.write('questions2.csv', lossy),
        '--template',
        TEMPLATE,
        '--allow-question-marks',
      ],
      { env: sandbox.env },
    );
    expect(validate.code).toBe(0);
  });

  it('mojibake (UTF-8 opened as Windows-1252 or 1256 and saved again): what it most likely said', async () => {
    // The UTF-8 bytes read as Windows-1252 (Node 20's own decoder reads that code page as ISO-8859-1).
    const as1252 = textDecoder('windows-1252').decode(Buffer.from(text(PEOPLE), 'utf8'));
    await refusedOnce(
      ['--csv', work.write('mojibake.csv', as1252)],
      /column signer_name \(rows 2, 3, 4\) has mojibake, e\.g\. "Ø£Ø­Ù.*most likely "أحمد العتيبي"/,
    );
    const as1256 = textDecoder('windows-1256').decode(Buffer.from(text([PEOPLE[0]!]), 'utf8'));
    await refusedOnce(
      ['--csv', work.write('mojibake1256.csv', as1256)],
      /has mojibake, e\.g\. "ط£ط­ظ….*most likely "أحمد العتيبي"/,
    );
  });
});

describe('phones, invisible characters and case slips, named by column', () => {
  const row = (phone: string, extra: Partial<Record<'email' | 'channel', string>> = {}) => [
    [
      'SHEET-P',
      'Omar Khalil',
      extra.email ?? '',
      phone,
      extra.channel ?? 'whatsapp',
      'Sara',
      '+971501234599',
      '14',
    ],
  ];

  it('forms that mean one number become E.164 (shown in --dry-run); national, spreadsheet and invalid numbers are refused with the reason', async () => {
    for (const [phone, e164] of [
      ['+966 50 123 4567', '+966501234567'],
      ['00966-50-123-4567', '+966501234567'],
      ['+٩٦٦٥٠١٢٣٤٥٦٧', '+966501234567'],
      ['(+971) 50.123.4567', '+971501234567'],
    ] as const) {
      const dry = await runCommand(
        [
          'envelopes',
          'create',
          '--csv',
          work.write('phone.csv', text(row(phone))),
          '--template',
          TEMPLATE,
          '--dry-run',
          '--json',
        ],
        { env: sandbox.env },
      );
      expect(dry.code, dry.stderr).toBe(0);
      expect((JSON.parse(dry.stdout.trim()) as Line).envelope.signers[0]!.phone).toBe(e164);
    }
    const cases: [string, RegExp][] = [
      ['0501234567', /row 2: signer_phone \(signers\[0\]\.phone\): is a national number .*--default-country/],
      [
        '9.66501E+11',
        /row 2: signer_phone \(signers\[0\]\.phone\): was stored by a spreadsheet as a number .*format the column as Text/,
      ],
      ['966501234567', /row 2: signer_phone \(signers\[0\]\.phone\): has digits but no \+/],
      [
        '+971 50 123 456',
        /row 2: signer_phone \(signers\[0\]\.phone\): is not a valid number for its country code \(AE\)/,
      ],
    ];
    for (const [phone, message] of cases)
      await refusedOnce(['--csv', work.write('phone.csv', text(row(phone)))], message);
    const national = await runCommand(
      [
        'envelopes',
        'create',
        '--csv',
        work.write('national.csv', text(row('050 123 4567'))),
        '--template',
        TEMPLATE,
        '--dry-run',
        '--json',
        '--default-country',
        'ae',
      ],
      { env: sandbox.env },
    );
    expect((JSON.parse(national.stdout.trim()) as Line).envelope.signers[0]!.phone).toBe('+971501234567');
    await refusedOnce(
      ['--csv', work.write('national.csv', text(row('050 123 4567'))), '--default-country', 'XX'],
      /--default-country XX: not a country code/,
    );
  });

  it('a zero-width space in an e-mail and a mark around a phone: refused, named by code point, shown escaped', async () => {
    await refusedOnce(
      ['--csv', work.write('zw.csv', text(row('', { email: 'emp004@company.sa\u200b', channel: 'email' })))],
      /signer_email \(signers\[0\]\.email\): contains an invisible zero width space \(U\+200B\).*shown as "emp004@company\.sa\\u200b"/,
    );
    await refusedOnce(
      ['--csv', work.write('lrm.csv', text(row('\u200e+971501234567\u200e')))],
      /signer_phone \(signers\[0\]\.phone\): contains an invisible left-to-right mark \(U\+200E\).*"\\u200e\+971501234567\\u200e"/,
    );
  });

  it('"Email" for "email": exit 2 with the value meant, before anything is sent', async () => {
    await refusedOnce(
      ['--csv', work.write('case.csv', text(row('', { email: 'a@example.com', channel: 'Email' })))],
      /channel \(signers\[0\]\.channel\): "Email" is not a known channel; did you mean "email"\?/,
    );
  });

  it('JSON and NDJSON: the same rules, and their encodings too', async () => {
    const envelope = {
      title: 'JSON phone',
      document: { template_id: 't', version: 1 },
      signers: [{ name: 'أحمد', phone: '+966 50 123 4567', channel: 'whatsapp' }],
    };
    const utf16 = bytesFile(
      'utf16.json',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(envelope), 'utf16le')]),
    );
    const dry = await runCommand(['envelopes', 'create', '-f', utf16, '--dry-run', '--json'], {
      env: sandbox.env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout.trim()) as Line).envelope.signers[0]).toEqual({
      name: 'أحمد',
      phone: '+966501234567',
      channel: 'whatsapp',
    });
    const cp1256 = bytesFile('cp1256.ndjson', encode1256(`${JSON.stringify(envelope)}\n`));
    const refused = await runCommand(['envelopes', 'validate', '--ndjson', cp1256], { env: sandbox.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cp1256\.ndjson: not UTF-8 text .*windows-1256/);
    expect(refused.stdout).toBe('');
    expect(
      (
        await runCommand(['envelopes', 'validate', '--ndjson', cp1256, '--encoding', 'windows-1256'], {
          env: sandbox.env,
        })
      ).code,
    ).toBe(0);
  });
});

describe('one contract, one envelope', () => {
  it('an edited row for a contract already sent is named, in --dry-run and when sent', async () => {
    const env = { ...sandbox.env, SIGN_STATE_DIR: tempDir() };
    const rows = [
      ['SHEET-C1', 'Layla Haddad', 'layla@example.com', '', 'email', '', '', '14'],
      ['SHEET-C2', 'Rami Haddad', 'rami@example.com', '', 'email', '', '', '14'],
    ];
    const file = work.write('contracts.csv', text(rows));
    const first = await runCommand(['envelopes', 'create', '--csv', file, '--template', TEMPLATE, '--json'], {
      env,
    });
    expect(first.code).toBe(0);
    const firstId = created(first.stdout).find((l) => l.input.endsWith('row 2'))!.envelope.id;
    work.write(
      'contracts.csv',
      text([[...rows[0]!.slice(0, 1), 'Layla Haddad-Khoury', ...rows[0]!.slice(2)], rows[1]!]),
    );
    const dry = await runCommand(
      ['envelopes', 'create', '--csv', file, '--template', TEMPLATE, '--dry-run'],
      { env },
    );
    expect(dry.stderr).toContain(`warning: ${file}:row 2: contract SHEET-C1 already has ${firstId}`);
    expect(dry.stderr).not.toContain('SHEET-C2 already has');
    const second = await runCommand(['envelopes', 'create', '--csv', file, '--template', TEMPLATE], { env });
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      new RegExp(
        `warning: .*row 2: contract SHEET-C1 already has ${firstId} \\(created on \\d{4}-\\d{2}-\\d{2} .*this changed input makes a second envelope for it`,
      ),
    );
  });
});

/** A file of these exact bytes in the workspace. */
function bytesFile(name: string, bytes: Buffer): string {
  const path = join(work.dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Text as Windows-1256 bytes (Arabic letters and ASCII only). */
function encode1256(value: string): Buffer {
  const decoder = textDecoder('windows-1256');
  const table = new Map<string, number>();
  for (let b = 0x80; b <= 0xff; b++) table.set(decoder.decode(Uint8Array.of(b)), b);
  return Buffer.from([...value].map((ch) => (ch.charCodeAt(0) < 0x80 ? ch.charCodeAt(0) : table.get(ch)!)));
}

describe('a CSV from a pipe given as a path (--csv <(…), a named pipe)', () => {
  it('is read, as -f <(…) is: created once, and a second run with the same content creates nothing new', async () => {
    const dir = tempDir();
    const csv = readFileSync(join(ROOT, 'examples', 'recipients.csv'), 'utf8').replace(/EMP-/g, 'FIFO-');
    const state = tempDir();
    const run = async () => {
      const fifo = join(dir, `recipients-${Math.random().toString(36).slice(2)}.csv`);
      execFileSync('mkfifo', [fifo]);
      // The pipe is readable once, as <(…) is: a writer that holds it until the reader comes.
      const writer = spawn('sh', ['-c', `cat > "${fifo}"`], { stdio: ['pipe', 'ignore', 'ignore'] });
      writer.stdin.end(csv);
      try {
        return await runCommand(['envelopes', 'create', '--csv', fifo, '--template', TEMPLATE], {
          env: { ...sandbox.env, SIGN_STATE_DIR: state },
        });
      } finally {
        writer.kill();
      }
    };
    const first = await run();
    expect(first.stderr).not.toContain('not a file');
    expect(first.code, first.stderr).toBe(0);
    const rows = csv.trim().split('\n').length - 1;
    expect(first.stdout.match(/✓ created env_/g)).toHaveLength(rows);
    // Another pipe, the same content: the journal knows it by its content, not by the pipe's name.
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.match(/already created env_/g)).toHaveLength(rows);
    expect(second.stdout).not.toContain('✓ created');
  });
});
