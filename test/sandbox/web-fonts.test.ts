/**
 * The pages' web fonts (scripts/fonts/web-fonts.sh): WOFF2 subsets of the
 * signed copy's DejaVu fonts, small enough for a page's first load, with what
 * Latin and Arabic need, shaped and measured as the PDF's layout measures them;
 * and the handwriting fonts of a typed signature (scripts/fonts/signature-fonts.sh),
 * the same files on the page and in the PDF, each with its licence.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
// @ts-expect-error fontkit ships no type declarations; the interfaces below describe what is used.
import * as fontkitModule from 'fontkit';
import {
  SIGNATURE_FONT_FILES,
  readFontFile,
  readSignatureFont,
} from '../../src/sandbox/signing/font-files.js';
import { WEB_FONT_FILES, readWebFont } from '../../src/sandbox/pages/page-files.js';

interface Font {
  type: string;
  familyName: string;
  copyright: string;
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(text: string): { glyphs: { id: number; name: string }[]; advanceWidth: number };
}
const fontkit = fontkitModule as { create(data: Uint8Array): Font };

const SOURCES = {
  'sandbox-sans.woff2': 'DejaVuSans.ttf',
  'sandbox-sans-bold.woff2': 'DejaVuSans-Bold.ttf',
} as const;
const ARABIC_INDIC_DIGITS = '٠١٢٣٤٥٦٧٨٩';
const SAMPLE = `Aa é Łódź — “Layla” ليلى حداد، عقد إيجار لا (أم علي) ${ARABIC_INDIC_DIGITS}`;

describe.each(Object.keys(SOURCES) as (keyof typeof SOURCES)[])('web font %s', (name) => {
  const data = readWebFont(name);
  const font = fontkit.create(data);

  it('is a WOFF2 of DejaVu, under 120 KB', () => {
    expect(data.subarray(0, 4).toString('latin1')).toBe('wOF2');
    expect(font.type).toBe('WOFF2');
    expect(font.familyName).toBe('DejaVu Sans');
    expect(data.length).toBeLessThan(120 * 1024);
  });

  it('has the glyphs of Latin and Arabic text, the Arabic-Indic digits included', () => {
    for (const char of ['A', 'a', 'é', 'ب', 'ل', 'ا', '،', ...ARABIC_INDIC_DIGITS])
      expect(font.hasGlyphForCodePoint(char.codePointAt(0)!), char).toBe(true);
    expect(font.layout(SAMPLE).glyphs.every((glyph) => glyph.id !== 0)).toBe(true);
  });

  it('shapes Arabic: joining forms and the lam-alef ligature', () => {
    const [isolated] = font.layout('ب').glyphs;
    const joined = font.layout('ببب').glyphs;
    expect(new Set(joined.map((glyph) => glyph.id)).size).toBe(3);
    expect(joined.map((glyph) => glyph.id)).not.toContain(isolated!.id);
    expect(font.layout('لا').glyphs).toHaveLength(1);
  });

  it('measures text as the TTF the PDF is laid out with', () => {
    const ttf = fontkit.create(readFontFile(SOURCES[name]));
    expect(font.layout(SAMPLE).advanceWidth).toBe(ttf.layout(SAMPLE).advanceWidth);
  });
});

const SIGNATURE_FONTS = {
  'signature-latin.woff': {
    family: 'Dancing Script',
    licence: 'OFL-DancingScript.txt',
    sample: 'Layla Haddad Chloé',
  },
  'signature-latin-ext.woff': { family: 'Dancing Script', licence: 'OFL-DancingScript.txt', sample: 'ŁŞąğő' },
  'signature-arabic.woff': { family: 'Aref Ruqaa', licence: 'OFL-ArefRuqaa.txt', sample: 'ليلى حداد' },
} as const;

describe.each(SIGNATURE_FONT_FILES)('signature font %s', (name) => {
  const { family, licence, sample } = SIGNATURE_FONTS[name];
  const data = readSignatureFont(name);
  const font = fontkit.create(data);

  it('is the handwriting font itself, a WOFF, served by the pages as the PDF draws with it', () => {
    expect(data.subarray(0, 4).toString('latin1')).toBe('wOFF');
    expect(font.familyName).toBe(family);
    expect(WEB_FONT_FILES).toContain(name);
    expect(readWebFont(name).equals(data)).toBe(true);
    expect(data.length).toBeLessThan(64 * 1024);
  });

  it('draws the names it is for, and ships with its licence, the SIL Open Font License', () => {
    for (const char of sample.replace(/ /g, ''))
      expect(font.hasGlyphForCodePoint(char.codePointAt(0)!), char).toBe(true);
    const text = readFileSync(join(ROOT, 'assets', 'fonts', licence), 'utf8');
    expect(text).toContain('SIL Open Font License, Version 1.1');
    expect(text).toContain(
      family === 'Aref Ruqaa' ? 'Aref Ruqaa Project Authors' : 'Dancing Script Project Authors',
    );
    expect(existsSync(join(ROOT, 'assets', 'fonts', name))).toBe(true);
  });
});
