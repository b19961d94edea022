/**
 * A signature drawn in its place on the signed copy (pdf.ts calls it for each mark): a typed
 * name in the handwriting fonts, scaled to fit the box, in bidi order; or the strokes of a
 * drawing, scaled into the box; then the line it stands on. Before the signer signs, the box is
 * empty above its line.
 */
import type PDFDocument from 'pdfkit';
import { visualOrder } from './bidi-order.js';
import { SIGNATURE_FACES, type Face, type SignatureFaceName, type Toolkit } from './pdf-fonts.js';
import type { LaidOutMark } from './pdf-layout.js';
import { SIGNATURE_BOX } from '../documents/signature.js';

/** The largest a typed signature is drawn (points); a long name is made smaller to fit its box. */
const TYPED_SIZE = 28;
const INK = '#1b2a6b';

/** A piece of a typed signature set in one face, placed from the box's left edge. */
export interface MarkRun {
  text: string;
  face: SignatureFaceName | 'sans';
  rtl: boolean;
  x: number;
}

/** The face a character is drawn in: the first handwriting face that has it, else DejaVu Sans. */
function faceFor(kit: Toolkit, codePoint: number): SignatureFaceName | 'sans' {
  return SIGNATURE_FACES.find((name) => kit.signature[name].ltr.hasGlyphForCodePoint(codePoint)) ?? 'sans';
}

export const faceOf = (kit: Toolkit, name: SignatureFaceName | 'sans'): Face =>
  name === 'sans' ? kit.regular : kit.signature[name];

/** The runs of a typed signature, in visual order, the size that fits `width`, and the width they take. */
export function typedMarkRuns(
  kit: Toolkit,
  text: string,
  width: number,
): { runs: MarkRun[]; size: number; used: number } {
  const levels = kit.bidi.getEmbeddingLevels(text, 'auto');
  const { order, lineLevels } = visualOrder(text, levels, 0, text.length);
  // Directional runs (logical ranges), in visual order.
  const directional: { start: number; end: number; rtl: boolean }[] = [];
  let previous: number | undefined;
  for (const index of order) {
    const rtl = (lineLevels[index]! & 1) === 1;
    const current = directional.at(-1);
    if (current && previous !== undefined && current.rtl === rtl && index === previous + (rtl ? -1 : 1)) {
      current.start = Math.min(current.start, index);
      current.end = Math.max(current.end, index + 1);
    } else directional.push({ start: index, end: index + 1, rtl });
    previous = index;
  }
  const pieces: Omit<MarkRun, 'x'>[] = [];
  for (const { start, end, rtl } of directional) {
    // Each directional run cut where the face changes (a space stays with what it follows).
    const cut: Omit<MarkRun, 'x'>[] = [];
    for (const char of text.slice(start, end)) {
      const face = char === ' ' && cut.length > 0 ? cut.at(-1)!.face : faceFor(kit, char.codePointAt(0)!);
      const last = cut.at(-1);
      if (last && last.face === face) last.text += char;
      else cut.push({ text: char, face, rtl });
    }
    // A right-to-left run's pieces show last first.
    pieces.push(...(rtl ? cut.reverse() : cut));
  }
  const unitWidths = pieces.map((piece) => {
    const face = faceOf(kit, piece.face);
    const font = piece.rtl ? face.rtl : face.ltr;
    return font.layout(piece.text, []).advanceWidth / font.unitsPerEm;
  });
  const total = unitWidths.reduce((sum, w) => sum + w, 0);
  const size = total > 0 ? Math.min(TYPED_SIZE, width / total) : TYPED_SIZE;
  let x = 0;
  const runs = pieces.map((piece, i) => {
    const run = { ...piece, x };
    x += unitWidths[i]! * size;
    return run;
  });
  return { runs, size, used: x };
}

/**
 * Draws the mark: its signature, if any, then the line it stands on. A typed signature is drawn
 * as its glyphs' outlines (a picture of the name in the hand, as a pen would leave it): its text
 * is laid out beside it, invisible (pdf-layout.ts), so an extractor reads the name once, in
 * logical order, whatever glyphs the handwriting fonts shape it into.
 */
export function drawMark(doc: InstanceType<typeof PDFDocument>, kit: Toolkit, mark: LaidOutMark): void {
  const { x, y, width, height, signature, align } = mark;
  const lineY = y + height - 4;
  if (signature?.kind === 'typed') {
    const { runs, size, used } = typedMarkRuns(kit, signature.text, width);
    let penX = align === 'right' ? x + width - used : x;
    // The baseline a little above the line, as a pen writes on it.
    const baseline = lineY - 8;
    doc.save().fillColor(INK);
    for (const run of runs) {
      const face = faceOf(kit, run.face);
      const font = run.rtl ? face.rtl : face.ltr;
      const scale = size / font.unitsPerEm;
      const shaped = font.layout(run.text, []);
      shaped.glyphs.forEach((glyph, i) => {
        const at = shaped.positions[i]!;
        const outline = glyph.path.toSVG();
        if (outline) {
          doc.save();
          doc.translate(penX + at.xOffset * scale, baseline - at.yOffset * scale);
          doc.scale(scale, -scale);
          doc.path(outline).fill();
          doc.restore();
        }
        penX += at.xAdvance * scale;
      });
    }
    doc.restore();
  } else if (signature?.kind === 'drawn') {
    const scale = Math.min(width / SIGNATURE_BOX.width, (height - 8) / SIGNATURE_BOX.height);
    const left = align === 'right' ? x + width - SIGNATURE_BOX.width * scale : x;
    doc.save().lineWidth(1.4).lineCap('round').lineJoin('round').strokeColor(INK);
    for (const stroke of signature.strokes) {
      if (stroke.length < 2) continue;
      const at = (i: number) => [left + stroke[i]! * scale, y + stroke[i + 1]! * scale] as const;
      doc.moveTo(...at(0));
      if (stroke.length === 2) doc.lineTo(at(0)[0] + 0.5, at(0)[1]);
      for (let i = 2; i + 1 < stroke.length; i += 2) doc.lineTo(...at(i));
      doc.stroke();
    }
    doc.restore();
  }
  doc
    .save()
    .lineWidth(0.6)
    .strokeColor('#6b6f76')
    .moveTo(x, lineY)
    .lineTo(x + width, lineY)
    .stroke()
    .restore();
}
