/**
 * The pages' web fonts (scripts/fonts/web-fonts.sh): WOFF2 subsets of the
 * signed copy's DejaVu fonts, small enough for a page's first load, with what
 * Latin and Arabic need, shaped and measured as the PDF's layout measures them.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error fontkit ships no type declarations; the interfaces below describe what is used.
import * as fontkitModule from 'fontkit';
import { readFontFile } from '../../src/sandbox/signing/font-files.js';
import { WEB_FONT_FILES, readWebFont } from '../../src/sandbox/pages/page-files.js';

interface Font {
  type: string;
  familyName: string;
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

describe.each(WEB_FONT_FILES)('web font %s', (name) => {
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
