/**
 * The signatures a PDF carries, found the way a reader finds them: the
 * signature fields of its AcroForm (nested fields included) and their signature
 * dictionaries, read with pdf-lib (the objects of the file's latest revision).
 * For each: the byte ranges it covers, the CMS it holds, and what the
 * dictionary says (sub-filter, signing time, name, reason). Nothing is checked
 * here: pades-verify.ts does that.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFString, type PDFObject } from 'pdf-lib';

export interface PdfSignature {
  /** The field's full name (`Signature1`, `form.sig`). */
  field: string;
  /** [start1, length1, start2, length2] as the dictionary states it. */
  byteRange: number[];
  /** The CMS, as stored in /Contents (zero padding included). */
  contents: Uint8Array;
  subFilter: string | null;
  /** /M, as written (`D:20261123145941Z`). */
  signingTime: string | null;
  name: string | null;
  reason: string | null;
}

export class NotAPdfError extends Error {
  override readonly name = 'NotAPdfError';
}

const text = (value: PDFObject | undefined): string | null => {
  if (value instanceof PDFString || value instanceof PDFHexString) return value.decodeText();
  if (value instanceof PDFName) return value.decodeText();
  return null;
};

/** Every signed signature field of the PDF, in the AcroForm's order. */
export async function findSignatures(pdf: Uint8Array): Promise<PdfSignature[]> {
  if (Buffer.from(pdf.subarray(0, 1024)).indexOf('%PDF-') === -1) throw new NotAPdfError('not a PDF (no %PDF- header)');
  let doc: PDFDocument;
  // pdf-lib tells the console about each object it cannot parse (a tampered file has some); the
  // verdict says what matters, so its notes are kept off the caller's output while it reads.
  const { log, warn } = console;
  console.log = console.warn = () => {};
  try {
    doc = await PDFDocument.load(pdf, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch (error) {
    throw new NotAPdfError(`not a readable PDF: ${(error as Error).message}`);
  } finally {
    Object.assign(console, { log, warn });
  }
  const lookup = (dict: PDFDict, key: string): PDFObject | undefined => dict.lookup(PDFName.of(key));
  if (!(doc.catalog instanceof PDFDict)) throw new NotAPdfError('not a readable PDF: it has no document catalog');
  const form = lookup(doc.catalog, 'AcroForm');
  if (!(form instanceof PDFDict)) return [];
  const found: PdfSignature[] = [];
  const walk = (fields: PDFObject | undefined, parentName: string, parentType: string | null, depth: number): void => {
    if (!(fields instanceof PDFArray) || depth > 32) return;
    for (let i = 0; i < fields.size(); i++) {
      const field = fields.lookup(i);
      if (!(field instanceof PDFDict)) continue;
      const partial = text(lookup(field, 'T'));
      const name = partial === null ? parentName : parentName ? `${parentName}.${partial}` : partial;
      const type = text(lookup(field, 'FT')) ?? parentType;
      walk(lookup(field, 'Kids'), name, type, depth + 1);
      const value = lookup(field, 'V');
      if (type !== 'Sig' || !(value instanceof PDFDict)) continue;
      const range = lookup(value, 'ByteRange');
      const contents = lookup(value, 'Contents');
      found.push({
        field: name,
        byteRange: range instanceof PDFArray ? range.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : Number.NaN)) : [],
        contents: contents instanceof PDFHexString ? contents.asBytes() : contents instanceof PDFString ? contents.asBytes() : new Uint8Array(),
        subFilter: text(lookup(value, 'SubFilter')),
        signingTime: text(lookup(value, 'M')),
        name: text(lookup(value, 'Name')),
        reason: text(lookup(value, 'Reason')),
      });
    }
  };
  walk(lookup(form, 'Fields'), '', null, 0);
  return found;
}
