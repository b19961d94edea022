/**
 * Long-term validation data added to a PDF the way PAdES B-LT writers add it: an incremental
 * update with a Document Security Store (ISO 32000-2 12.8.4.3) whose /Certs, /OCSPs and /CRLs
 * hold each DER in a stream of its own, and a document timestamp after it for B-LTA. What goes
 * in is made by OpenSSL (test/helpers/openssl-ca.ts); the update is written by pdf-build.ts.
 */
import { readPdf } from '../../src/core/pades/pdf-file.js';
import type { PdfRef } from '../../src/core/pades/pdf-objects.js';
import { appendRevision, nextObject, objectText } from './pdf-build.js';

export interface DssContents {
  certs?: Uint8Array[];
  ocsps?: Uint8Array[];
  crls?: Uint8Array[];
}

const binaryStream = (der: Uint8Array) =>
  `<< /Length ${der.length} >>\nstream\n${Buffer.from(der).toString('latin1')}\nendstream`;

/** The PDF with a DSS holding `contents` (replacing any DSS it had), in an update of its own. */
export function withDss(pdf: Buffer, contents: DssContents): Buffer {
  const root = readPdf(pdf).revisions.at(-1)!.trailer.entries.get('Root') as PdfRef;
  let next = nextObject(pdf);
  const objects: Record<number, string> = {};
  const refs = (list: Uint8Array[] | undefined) =>
    (list ?? []).map((der) => {
      const num = next++;
      objects[num] = binaryStream(der);
      return `${num} 0 R`;
    });
  const dssNum = next++;
  const entries = [
    ['Certs', refs(contents.certs)],
    ['OCSPs', refs(contents.ocsps)],
    ['CRLs', refs(contents.crls)],
  ] as const;
  objects[dssNum] = `<< /Type /DSS ${entries
    .filter(([, list]) => list.length > 0)
    .map(([key, list]) => `/${key} [${list.join(' ')}]`)
    .join(' ')} >>`;
  const catalog = objectText(pdf, root.num).replace(/\/DSS\s+\d+\s+\d+\s+R/, '');
  objects[root.num] = catalog.replace(/>>\s*$/, ` /DSS ${dssNum} 0 R >>`);
  return appendRevision(pdf, objects);
}
