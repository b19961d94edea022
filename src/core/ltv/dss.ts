/**
 * The document security store (ISO 32000-2 12.8.4.3, PAdES B-LT): the
 * catalog's /DSS, whose /Certs, /OCSPs and /CRLs are streams of DER
 * certificates, OCSP responses and CRLs that any signature of the document
 * may use. An update adds to it: what it held stays, in its order, and what
 * it already holds (the same bytes) is not added twice. No /VRI is written:
 * the lists serve every signature, as PAdES baseline allows.
 */
import { createHash } from 'node:crypto';
import { dictOf, isRef, isStream, pdfName, type PdfDict, type PdfValue } from '../pades/pdf-objects.js';
import { decodeStream } from '../pades/pdf-stream-decode.js';
import { ref, type PdfUpdate } from './pdf-update.js';

/** What a DSS holds, or what an update adds to it: DER bytes of each kind. */
export interface ValidationData {
  certificates: Uint8Array[];
  ocspResponses: Uint8Array[];
  crls: Uint8Array[];
}

export const noValidationData = (): ValidationData => ({ certificates: [], ocspResponses: [], crls: [] });

const KEYS = { certificates: 'Certs', ocspResponses: 'OCSPs', crls: 'CRLs' } as const;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The DSS of the update's catalog, if any. */
function currentDss(update: PdfUpdate): PdfDict | undefined {
  return dictOf(update.resolve(update.catalog().dict.entries.get('DSS')));
}

/** What the document's DSS holds (streams that cannot be decoded are left out). */
export function dssContents(update: PdfUpdate): ValidationData {
  const dss = currentDss(update);
  const held = noValidationData();
  for (const [field, key] of Object.entries(KEYS) as [keyof ValidationData, string][]) {
    const list = update.resolve(dss?.entries.get(key));
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const stream = update.resolve(item);
      if (!isStream(stream)) continue;
      try {
        held[field].push(decodeStream(stream));
      } catch {
        // A stream this reader cannot decode is kept in the DSS, but counts as nothing held.
      }
    }
  }
  return held;
}

/**
 * Adds `data` to the DSS (made if there is none): each new item a stream of its own, the lists
 * rewritten with the old references first. Returns what was new, by kind.
 */
export function addToDss(update: PdfUpdate, data: ValidationData): ValidationData {
  const held = dssContents(update);
  const added = noValidationData();
  const catalog = update.catalog();
  const dssValue = catalog.dict.entries.get('DSS');
  const old = currentDss(update);
  const entries = new Map<string, PdfValue>(old?.entries ?? [['Type', pdfName('DSS')]]);
  for (const [field, key] of Object.entries(KEYS) as [keyof ValidationData, string][]) {
    const seen = new Set(held[field].map(sha256));
    const list = update.resolve(entries.get(key));
    const refs: PdfValue[] = Array.isArray(list) ? [...list] : [];
    for (const der of data[field]) {
      const hash = sha256(der);
      if (seen.has(hash)) continue;
      seen.add(hash);
      const num = update.allocate();
      update.set(num, { kind: 'stream', dict: { kind: 'dict', entries: new Map() }, raw: der });
      refs.push(ref(num));
      added[field].push(der);
    }
    if (refs.length > 0) entries.set(key, refs);
  }
  const nothing = [added.certificates, added.ocspResponses, added.crls].every((list) => list.length === 0);
  if (nothing) return added;
  const dss: PdfDict = { kind: 'dict', entries };
  if (isRef(dssValue)) update.set(dssValue.num, dss);
  else {
    // No DSS, or one written inside the catalog: an object of its own, which the catalog names.
    const num = update.allocate();
    update.set(num, dss);
    catalog.dict.entries.set('DSS', ref(num));
    update.set(catalog.num, catalog.dict);
  }
  return added;
}
