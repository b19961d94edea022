/**
 * The fonts of the signed copy and what lays text out with them: fontkit (pdfkit's font
 * engine) and bidi-js, loaded on the first page laid out, not at sandbox start-up; the fonts
 * are read and parsed once per process (fontkit parses tables lazily and caches glyphs: later
 * documents reuse that work). DejaVu Sans and DejaVu Sans Bold set the text; the handwriting
 * fonts (Dancing Script for Latin, Aref Ruqaa for Arabic) draw a typed signature. They are
 * found by font-files.ts, from source, the bundle, an installed package and a single
 * executable alike.
 */
import type { Bidi } from 'bidi-js';
import { FONT_FILES, SIGNATURE_FONT_FILES, readFontFile, readSignatureFont } from './font-files.js';

/** What fontkit gives; fontkit ships no types, so only what is used here. */
export interface Glyph {
  id: number;
  codePoints: number[];
  /** The glyph's outline, in font units, y upwards. */
  path: { toSVG(): string };
}
export interface GlyphPosition {
  xAdvance: number;
  xOffset: number;
  yOffset: number;
}
export interface GlyphRun {
  glyphs: Glyph[];
  positions: GlyphPosition[];
  advanceWidth: number;
}
export interface FontkitFont {
  postscriptName: string;
  getGlyph(id: number, codePoints?: number[]): Glyph | null;
  unitsPerEm: number;
  /** Above the baseline, in font units: where pdfkit puts the baseline below the y it is given. */
  ascent: number;
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(
    text: string,
    features?: string[],
    script?: string,
    language?: string,
    direction?: 'ltr' | 'rtl',
  ): GlyphRun;
}
/** A font as drawn left to right, and its variant for right-to-left runs (rtlVariant). */
export interface Face {
  ltr: FontkitFont;
  rtl: FontkitFont;
}

/** The handwriting faces of a typed signature, in the order a character is looked for in them. */
export type SignatureFaceName = 'latin' | 'latinExt' | 'arabic';
export const SIGNATURE_FACES: readonly SignatureFaceName[] = ['latin', 'latinExt', 'arabic'];

export interface Toolkit {
  bidi: Bidi;
  regular: Face;
  bold: Face;
  signature: Record<SignatureFaceName, Face>;
}

let toolkit: Promise<Toolkit> | undefined;

export function loadToolkit(): Promise<Toolkit> {
  toolkit ??= (async () => {
    const [fontkit, { default: bidiModule }] = await Promise.all([
      // @ts-expect-error fontkit ships no type declarations; the interfaces above describe what is used.
      import('fontkit') as Promise<{ create(data: Uint8Array): FontkitFont }>,
      import('bidi-js'),
    ]);
    // bidi-js's types describe an ES module, its Node entry is UMD: either way, the default export is the factory.
    const bidi = (bidiModule as unknown as () => Bidi)();
    const face = (data: Uint8Array): Face => {
      const font = withTrueCodePoints(fontkit.create(data));
      return { ltr: font, rtl: rtlVariant(font, bidi) };
    };
    const dejavu = (file: (typeof FONT_FILES)[number]) => face(readFontFile(file));
    const [latin, latinExt, arabic] = SIGNATURE_FONT_FILES.map((file) => face(readSignatureFont(file)));
    return {
      bidi,
      regular: dejavu('DejaVuSans.ttf'),
      bold: dejavu('DejaVuSans-Bold.ttf'),
      signature: { latin: latin!, latinExt: latinExt!, arabic: arabic! },
    };
  })();
  toolkit.catch(() => (toolkit = undefined));
  return toolkit;
}

/**
 * fontkit keeps one glyph object per glyph id, with the code points it was first asked for: a
 * glyph first reached as a component of another (pdfkit's subsetting of a composite Arabic
 * form) keeps none, and one first reached in a ligature keeps the ligature's. A layout hands
 * getGlyph the code points each glyph stands for there; this makes it answer with them, so the
 * PDF's ToUnicode map (pdfkit takes a glyph's code points from its first use) says what the text
 * is whatever was laid out before in the process.
 */
function withTrueCodePoints(font: FontkitFont): FontkitFont {
  const getGlyph = font.getGlyph.bind(font);
  font.getGlyph = (id, codePoints = []) => {
    const glyph = getGlyph(id, codePoints);
    if (!glyph || codePoints.length === 0) return glyph;
    const same =
      glyph.codePoints.length === codePoints.length &&
      glyph.codePoints.every((cp, i) => cp === codePoints[i]);
    return same ? glyph : (Object.create(glyph, { codePoints: { value: codePoints } }) as Glyph);
  };
  return font;
}

/**
 * The font as used for right-to-left runs, handed to pdfkit as a font of its
 * own. Its layout:
 * - mirrors brackets first (bidi rule L4: "(" at an odd level shows as ")");
 * - shapes right to left, so the glyphs come out in visual order even for a
 *   run with no Arabic letter in it (fontkit would otherwise pick the
 *   direction from the script);
 * - gives each glyph the code points an extractor must see: the unmirrored
 *   character, and a ligature's characters (lam-alef, "لا") in visual order,
 *   because extractors reverse an RTL run character by character (a glyph's
 *   ToUnicode string included) to get back to logical order.
 * Being a separate PDF font, its ToUnicode map does not clash with the
 * left-to-right one (where ")" is ")").
 */
function rtlVariant(font: FontkitFont, bidi: Bidi): FontkitFont {
  const mirror = (ch: string) => bidi.getMirroredCharacter(ch) ?? ch;
  const variant = Object.create(font) as FontkitFont;
  // pdfkit reuses an already-embedded font with the same PostScript name.
  Object.defineProperty(variant, 'postscriptName', { value: `${font.postscriptName}-RTL` });
  variant.layout = (text, features) => {
    const run = font.layout(Array.from(text, mirror).join(''), features, undefined, undefined, 'rtl');
    run.glyphs = run.glyphs.map((glyph) => {
      const chars = glyph.codePoints.map((cp) => mirror(String.fromCodePoint(cp)).codePointAt(0)!);
      if (chars.length > 1) chars.reverse();
      return chars.every((cp, i) => cp === glyph.codePoints[i])
        ? glyph
        : (Object.create(glyph, { codePoints: { value: chars } }) as Glyph);
    });
    return run;
  };
  return variant;
}
