/**
 * The documents signers read: the plain-text format of a template, the built-in office lease
 * and supplier agreement in English and Arabic, a directory of an integrator's own
 * (`sandbox --templates`), each filled from the envelope with values as a person reads them; a
 * template the sandbox cannot use stops its start (exit 2) naming the file and line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signerStatusWords } from '../../src/sandbox/documents/document-words.js';
import { humanDay, humanDuration, humanList, humanTime } from '../../src/sandbox/documents/humanise.js';
import { TemplateError, parseTemplate } from '../../src/sandbox/documents/template-format.js';
import { Templates } from '../../src/sandbox/documents/templates.js';
import type { EnvelopeRecord } from '../../src/sandbox/store/records.js';
import { runCommand } from '../helpers/in-process.js';
import { ROOT, tempDir } from '../helpers/paths.js';

const AT = '2027-03-01T09:05:00.000Z';

function envelope(fields: Record<string, unknown> = {}): EnvelopeRecord {
  return {
    id: 'env_1',
    owner: 'key_1',
    status: 'sent',
    sequential: true,
    title: 'Lease 2027',
    contract_id: 'CTR-1',
    document: { template_id: 'tpl_office_lease', version: 2 },
    locale: 'en',
    signers: [
      { id: 'sgn_2', name: 'Omar Khalil', channel: 'email', order: 2, status: 'pending', next_at: null },
      { id: 'sgn_1', name: 'Layla Haddad', channel: 'email', order: 1, status: 'pending', next_at: null },
    ],
    expires_at: null,
    created_at: AT,
    updated_at: AT,
    ...fields,
  };
}

describe('the template format', () => {
  it('reads languages, the heading, section headings, list items and paragraphs joined from their lines', () => {
    const texts = parseTemplate(
      '// a comment\n[en]\n# Title {{title}}\nFirst line\nsecond line.\n\n## 1. Part\n- one\n- two\n[ar]\n# عنوان\nنص.\n',
      'test',
    );
    expect([...texts.keys()]).toEqual(['en', 'ar']);
    expect(texts.get('en')).toEqual([
      { kind: 'title', text: 'Title {{title}}' },
      { kind: 'paragraph', text: 'First line second line.' },
      { kind: 'heading', text: '1. Part' },
      { kind: 'item', text: 'one' },
      { kind: 'item', text: 'two' },
    ]);
  });

  it.each([
    ['Text\n', 'test:1: text before the first language line: start the file with [en] or [ar]'],
    ['[en]\nNo heading\n', 'test:2: a language starts with its document heading: a line "# The title"'],
    ['[en]\n# A\n# B\n', 'test:3: the document heading (# …) comes once, first in its language'],
    ['[en]\n# A\n[en]\n# B\n', 'test:3: the language [en] comes twice'],
    [
      '[en]\n# A\nDear {{tenant}}\n',
      'test:3: {{tenant}} is not a value the sandbox fills in; use one of title, contract_id, date, expiry, parties, party.N, template, version, envelope',
    ],
    ['[en]\n# A {{title\n', 'test:2: a {{ without its }} (or the other way round)'],
    ['// only a comment\n', 'test: no language in it: start the file with [en] or [ar]'],
  ])('refuses %j, naming the line', (source, message) => {
    expect(() => parseTemplate(source, 'test')).toThrow(new TemplateError('', '').constructor);
    expect(() => parseTemplate(source, 'test')).toThrow(message);
  });
});

describe('the documents', () => {
  it('fills the built-in lease from the envelope: the parties in signing order, the day it was sent', () => {
    const document = Templates.builtIn().document(envelope());
    expect(document).toMatchObject({ lang: 'en', dir: 'ltr', languages: ['en', 'ar'], origin: 'built-in' });
    expect(document.blocks[0]).toEqual({ kind: 'title', text: 'Office lease agreement' });
    expect(document.blocks[1]!.text).toBe(
      'This office lease agreement ("the Lease"), reference CTR-1, is made on 1 March 2027 between Layla Haddad ("the Landlord") and Omar Khalil ("the Tenant").',
    );
    const arabic = Templates.builtIn().document(envelope(), 'ar');
    expect(arabic).toMatchObject({ lang: 'ar', dir: 'rtl' });
    expect(arabic.blocks[1]!.text).toContain(
      'بتاريخ 1 مارس 2027 بين Layla Haddad («المؤجِّر») وOmar Khalil («المستأجِر»)',
    );
    expect(Templates.builtIn().signedLanguage(envelope({ locale: 'ar' }))).toBe('ar');
    const supplier = Templates.builtIn().document(
      envelope({ document: { template_id: 'tpl_supplier_agreement', version: 1 } }),
    );
    expect(supplier.blocks[0]!.text).toBe('Supplier agreement');
    expect(supplier.blocks.filter((b) => b.kind === 'heading')).toHaveLength(9);
  });

  it('reads an integrator’s templates, one file per version, and stands in for a template it does not hold', () => {
    const dir = tempDir('sign-cli-templates-');
    writeFileSync(join(dir, 'tpl_lease.v3.txt'), '[en]\n# Lease v3 for {{parties}}\nUntil {{expiry}}.\n');
    writeFileSync(join(dir, 'notes.md'), 'not a template');
    const templates = Templates.fromDirectory(dir);
    expect(templates.loaded).toBe(1);
    const lease = envelope({
      document: { template_id: 'tpl_lease', version: 3 },
      expires_at: '2027-03-15T09:05:00.000Z',
    });
    expect(templates.document(lease).blocks).toEqual([
      { kind: 'title', text: 'Lease v3 for Layla Haddad and Omar Khalil' },
      { kind: 'paragraph', text: 'Until 15 March 2027.' },
    ]);
    // Asked for in Arabic, a template with English alone is shown in English.
    expect(templates.document(lease, 'ar').lang).toBe('en');
    const other = templates.document(envelope({ document: { template_id: 'tpl_lease', version: 4 } }));
    expect(other.origin).toBe('stand-in');
    expect(other.blocks[0]!.text).toBe('Lease 2027');
    expect(Templates.fromDirectory(join(ROOT, 'examples', 'templates')).loaded).toBe(1);
  });

  it('refuses a directory with a file it cannot use, naming it', () => {
    const dir = tempDir('sign-cli-templates-');
    writeFileSync(join(dir, 'lease.txt'), '[en]\n# A\n');
    expect(() => Templates.fromDirectory(dir)).toThrow(
      `${join(dir, 'lease.txt')}: name a template <template_id>.v<version>.txt, such as tpl_lease.v3.txt`,
    );
    const latin1 = tempDir('sign-cli-templates-');
    writeFileSync(join(latin1, 'tpl.v1.txt'), Buffer.from('[en]\n# Caf\xe9\n', 'latin1'));
    expect(() => Templates.fromDirectory(latin1)).toThrow('not UTF-8 text: save it as UTF-8');
    expect(() => Templates.fromDirectory(join(dir, 'missing'))).toThrow(
      'cannot read the templates directory (ENOENT)',
    );
  });

  it('stops `sandbox --templates` at start, exit 2, with the file and line, and nothing listening', async () => {
    const dir = tempDir('sign-cli-templates-');
    mkdirSync(join(dir, 'bad'));
    writeFileSync(join(dir, 'bad', 'tpl_x.v1.txt'), '[en]\n# X\nHello {{name}}\n');
    const run = await runCommand([
      'sandbox',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'data'),
      '--templates',
      join(dir, 'bad'),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${join(dir, 'bad', 'tpl_x.v1.txt')}:3: {{name}} is not a value the sandbox fills in`,
    );
  });
});

describe('values as a person reads them', () => {
  it('says days, times and spans in English and Arabic, with Latin digits and no bidi marks', () => {
    expect(humanDay(AT, 'en')).toBe('1 March 2027');
    expect(humanDay(AT, 'ar')).toBe('1 مارس 2027');
    expect(humanTime(AT, 'en')).toBe('1 March 2027, 09:05 UTC');
    expect(humanTime(AT, 'ar')).toBe('1 مارس 2027، 09:05 UTC');
    expect(humanDay('not a time', 'en')).toBeUndefined();
    expect([120_000, 60_000, 3_600_000].map((ms) => humanDuration(ms, 'en'))).toEqual([
      '2 minutes',
      '1 minute',
      '1 hour',
    ]);
    expect([120_000, 60_000, 300_000, 900_000].map((ms) => humanDuration(ms, 'ar'))).toEqual([
      'دقيقتان',
      'دقيقة',
      '5 دقائق',
      '15 دقيقة',
    ]);
    expect(humanList(['Layla', 'Omar', 'Sara'], 'en')).toBe('Layla, Omar and Sara');
    expect(humanList(['ليلى', 'عمر'], 'ar')).toBe('ليلى وعمر');
  });

  it("says a signer's status under their place, as the page shows it and the signed copy prints it", () => {
    expect(signerStatusWords({ status: 'signed' }, AT, 'en')).toBe('Signed 1 March 2027, 09:05 UTC');
    expect(signerStatusWords({ status: 'signed' }, AT, 'ar')).toBe('وُقّع في 1 مارس 2027، 09:05 UTC');
    // Signed with no time recorded anywhere: not said to be signed.
    expect(signerStatusWords({ status: 'signed' }, undefined, 'en')).toBe('Not signed yet');
    expect(signerStatusWords({ status: 'declined' }, undefined, 'fr')).toBe('Declined to sign');
    expect(signerStatusWords({ status: 'declined' }, undefined, 'ar')).toBe('رفض التوقيع');
    expect(signerStatusWords({ status: 'viewed' }, undefined, 'en')).toBe('Not signed yet');
  });
});
