/**
 * The signed copy's PDF writer: pdfkit, with DejaVu Sans and DejaVu Sans Bold
 * (the `dejavu-fonts-ttf` package) embedded as subsets, so that Latin and
 * Arabic show as written. pdfkit's standard fonts are never loaded: they cover
 * Windows-1252 only, which is why Arabic names used to print as "?".
 *
 * The pages are laid out by pdf-layout.ts (rows of cells, wrapped, paginated,
 * each line cut into directional runs at their visual x). Each run is drawn
 * at its x, as its own marked-content span, in logical order: an extractor
 * such as pdf.js then reads the runs in logical order, and reverses the glyphs
 * of an RTL run back to logical order itself (what it cannot see is the space
 * between two runs of a right-to-left line: test/helpers/pdf.ts). RTL runs are
 * drawn with the layout's RTL variant of the font, a PDF font of its own. No
 * /ActualText: poppler (pdftotext, Evince) reverses it as if it were in visual
 * order, and pdf.js ignores it. Signatures are drawn in their places by
 * signature-mark.ts: a typed one as the outlines of the handwriting fonts'
 * glyphs, over its text laid out as any other (invisible), which is what an
 * extractor reads.
 */
import { MARGIN, layoutPages, loadToolkit, type PdfRow } from './pdf-layout.js';
import { drawMark } from './signature-mark.js';

export { CONTENT_WIDTH, type PdfCell, type PdfRow } from './pdf-layout.js';

/** Renders rows of cells as an A4 PDF. */
export async function renderPdf(rows: PdfRow[], info: { title: string; createdAt: Date }): Promise<Buffer> {
  const [{ default: PDFDocument }, kit, pages] = await Promise.all([
    import('pdfkit'),
    loadToolkit(),
    layoutPages(rows),
  ]);
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    // No default font: pdfkit would load Helvetica's metrics, which is never used here.
    font: '',
    info: {
      Title: info.title,
      Producer: 'sign-cli sandbox (pdfkit)',
      Creator: 'sign-cli sandbox',
      CreationDate: info.createdAt,
    },
    displayTitle: true,
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  // pdfkit's font sources are typed as files or bytes; since 0.20 it also takes a parsed fontkit font.
  const fonts = [kit.regular, kit.bold].flatMap((face, i) =>
    [face.ltr, face.rtl].map((font, j) => [`${i}${j}`, font] as const),
  );
  for (const [name, font] of fonts) doc.registerFont(name, font as unknown as Uint8Array);
  const fontName = (bold: boolean, rtl: boolean) => `${bold ? 1 : 0}${rtl ? 1 : 0}`;

  pages.forEach((page, i) => {
    // pdfkit starts with a page of its own.
    if (i > 0) doc.addPage();
    for (const mark of page.marks) drawMark(doc, kit, mark);
    for (const run of page.runs) {
      if (run.hidden) doc.fillOpacity(0);
      doc.font(fontName(run.bold, run.rtl)).fontSize(run.size);
      // A span per run, so that extractors keep the runs apart, in this (logical) order.
      doc.markContent('Span');
      doc.text(run.text, run.x, run.y, { lineBreak: false, features: [] });
      doc.endMarkedContent();
      if (run.hidden) doc.fillOpacity(1);
    }
  });
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
