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
}

export async function readPdf(bytes: Uint8Array): Promise<PdfContent> {
  // pdf.js takes ownership of the buffer it is given: hand it a copy.
  const document = await getDocument({ data: new Uint8Array(bytes), disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const text: string[] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      text.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    }
    return { pages: document.numPages, text };
  } finally {
    await document.destroy();
  }
}
