/**
 * Long-term validation data added to a PDF the way PAdES B-LT writers add it: an incremental
 * update with a Document Security Store (ISO 32000-2 12.8.4.3) whose /Certs, /OCSPs and /CRLs
 * hold each DER in a stream of its own, written by the core's one DSS writer (core/ltv/dss.ts, as
 * `envelopes extend` writes it; qpdf and OpenSSL judge that writer in test/core/ltv/). What goes
 * in is made by OpenSSL (test/helpers/openssl-ca.ts), so a test of the verifier's revocation checks
 * reads data no code of ours produced.
 */
import { readPdf } from '../../src/core/pades/pdf-file.js';
import { addToDss } from '../../src/core/ltv/dss.js';
import { PdfUpdate } from '../../src/core/ltv/pdf-update.js';

export interface DssContents {
  certs?: Uint8Array[];
  ocsps?: Uint8Array[];
  crls?: Uint8Array[];
}

/** The PDF with `contents` added to its DSS (made when it has none), in an update of its own. */
export function withDss(pdf: Buffer, contents: DssContents): Buffer {
  const update = new PdfUpdate(readPdf(pdf));
  addToDss(update, {
    certificates: contents.certs ?? [],
    ocspResponses: contents.ocsps ?? [],
    crls: contents.crls ?? [],
  });
  return update.bytes();
}
