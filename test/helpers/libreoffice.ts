/**
 * LibreOffice, headless (Debian's libreoffice-calc-nogui), as the spreadsheet
 * that writes the CSV files users send: a sheet the test writes as flat ODS
 * XML (text cells, and numbers with the formats a sheet gives them), exported
 * with "Text CSV" in the character set and delimiter asked for, or a CSV
 * opened in one character set and saved in another (how mojibake is made).
 * `.ci/run` installs it; elsewhere the tests that need it are skipped, and say why.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { missingTools } from './system-tools.js';
import { tempDir } from './paths.js';

export const NO_LIBREOFFICE = missingTools(
  ['soffice'],
  'libreoffice-calc-nogui',
  'the tests of CSV files exported by LibreOffice',
);

/** LibreOffice's numbers for the character sets of its CSV filter (rtl_TextEncoding). */
export const CHARSET = { utf8: 76, windows1252: 1, windows1256: 38, utf16: 65535 } as const;

export type Cell = string | { number: number; scientific?: boolean };

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A flat ODS document of one sheet: strings as text cells, numbers as numbers (scientific when asked: how Excel shows a long one). */
export function flatOds(rows: Cell[][]): string {
  const cell = (c: Cell) =>
    typeof c === 'string'
      ? `<table:table-cell office:value-type="string"><text:p>${escapeXml(c)}</text:p></table:table-cell>`
      : `<table:table-cell${c.scientific ? ' table:style-name="sci"' : ''} office:value-type="float" office:value="${c.number}"/>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:automatic-styles><number:number-style style:name="N1"><number:scientific-number number:decimal-places="5" number:min-integer-digits="1" number:min-exponent-digits="2"/></number:number-style><style:style style:name="sci" style:family="table-cell" style:data-style-name="N1"/></office:automatic-styles>
<office:body><office:spreadsheet><table:table table:name="Sheet1">
${rows.map((r) => `<table:table-row>${r.map(cell).join('')}</table:table-row>`).join('\n')}
</table:table></office:spreadsheet></office:body></office:document>
`;
}

export class LibreOffice {
  private readonly profile = tempDir('sign-cli-lo-profile-');
  constructor(readonly dir: string) {}

  private run(args: string[], input: string, outDir: string): string {
    execFileSync(
      'soffice',
      [
        '--headless',
        '--norestore',
        `-env:UserInstallation=${pathToFileURL(this.profile).href}`,
        ...args,
        '--outdir',
        outDir,
        input,
      ],
      { stdio: 'ignore', timeout: 120_000 },
    );
    const written = readdirSync(outDir).find((name) =>
      name.startsWith(basename(input).replace(/\.[^.]+$/, '')),
    );
    if (!written) throw new Error(`LibreOffice wrote nothing for ${input}`);
    return join(outDir, written);
  }

  /** Writes `rows` as a sheet and exports it as "Text CSV" with this delimiter (a character) and character set. */
  exportSheet(name: string, rows: Cell[][], delimiter: string, charset: number): string {
    const sheet = join(this.dir, `${name}.fods`);
    writeFileSync(sheet, flatOds(rows));
    return this.run(
      ['--convert-to', `csv:Text - txt - csv (StarCalc):${delimiter.charCodeAt(0)},34,${charset},1`],
      sheet,
      tempDir('sign-cli-lo-out-'),
    );
  }

  /** Opens a CSV as if it were in `openAs` and saves it again in `saveAs`: what a user does to a file in the wrong character set. */
  resave(csv: string, openAs: number, saveAs: number): string {
    const copy = join(tempDir('sign-cli-lo-in-'), 'resaved.csv');
    writeFileSync(copy, readFileSync(csv));
    return this.run(
      [
        `--infilter=CSV:44,34,${openAs},1`,
        '--convert-to',
        `csv:Text - txt - csv (StarCalc):44,34,${saveAs},1`,
      ],
      copy,
      tempDir('sign-cli-lo-out-'),
    );
  }
}
