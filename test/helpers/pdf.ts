/**
 * Reading a PDF as a person's viewer would, with Mozilla's pdf.js (the npm
 * package `pdfjs-dist`): its pages and the text on each. No system tool, so
 * `npm ci && npm test` checks the signed copy on a fresh machine.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfContent {
  pages: number;
  /** The text of each page, its runs joined by spaces. */
  text: string[];
  /**
   * The lines of each page, top to bottom, as a reader would copy them: the
   * text items that share a baseline, in the order the page draws them, with
   * nothing added between them but the spaces that the page shows (see
   * `joinLine`). pdf.js itself turns a right-to-left run back into logical
   * order.
   */
  lines: string[][];
  /** The text items of each page as pdf.js gives them, in drawing order, with where they are (points, origin bottom left). */
  items: PdfItem[][];
}

export interface PdfItem {
  str: string;
  /** Left end of the baseline. */
  x: number;
  y: number;
  width: number;
  /** Font size. */
  size: number;
}

/**
 * One line's items as text. pdf.js drops space glyphs at the edges of an item
 * and puts a space back only where the next item starts to the right of the
 * last one, after a gap; where the next item lies to the left (the next run
 * of a right-to-left line, which the signed copy draws in logical order),
 * the space is lost. So a space is put in wherever the facing edges of two
 * items drawn one after the other are apart by more than pdf.js's own
 * threshold for a space (0.102 em), in either direction.
 */
function joinLine(items: PdfItem[]): string {
  let text = '';
  let previous: PdfItem | undefined;
  for (const item of items) {
    if (item.str.trim() === '') {
      if (text !== '' && !text.endsWith(' ')) text += ' ';
      continue;
    }
    if (previous) {
      const gap =
        item.x >= previous.x ? item.x - (previous.x + previous.width) : previous.x - (item.x + item.width);
      if (
        gap > 0.102 * Math.min(item.size, previous.size) &&
        !text.endsWith(' ') &&
        !item.str.startsWith(' ')
      )
        text += ' ';
    }
    text += item.str;
    previous = item;
  }
  return text.trimEnd();
}

export async function readPdf(bytes: Uint8Array): Promise<PdfContent> {
  // pdf.js takes ownership of the buffer it is given: hand it a copy.
  const document = await getDocument({
    data: new Uint8Array(bytes),
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    const text: string[] = [];
    const lines: string[][] = [];
    const pageItems: PdfItem[][] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      const items = content.items.flatMap((item) => ('str' in item ? [item] : []));
      text.push(items.map((item) => item.str).join(' '));
      const placed = items.map(({ str, transform, width, height }): PdfItem => ({
        str,
        x: transform[4] as number,
        y: transform[5] as number,
        width,
        size: height || Math.abs(transform[3] as number),
      }));
      pageItems.push(placed);
      const pageLines: PdfItem[][] = [];
      for (const item of placed) {
        if (item.str === '') continue;
        const line = pageLines.at(-1);
        // The whitespace pdf.js puts in for a gap belongs to the line it is found in.
        if (line && (Math.abs(line[0]!.y - item.y) < 0.25 * item.size || item.str.trim() === ''))
          line.push(item);
        else pageLines.push([item]);
      }
      lines.push(pageLines.map(joinLine));
    }
    return { pages: document.numPages, text, lines, items: pageItems };
  } finally {
    await document.destroy();
  }
}
