/**
 * The signatures a PDF carries, found the way a reader finds them: the
 * signature fields of the final revision's AcroForm (nested fields included)
 * and their signature dictionaries. For each: the byte ranges it covers, the
 * CMS it holds, what the dictionary says (type, sub-filter, claimed time,
 * name), and the permissions it sets for what may follow it: DocMDP (a
 * certification signature's /P, through the catalog's /Perms or its
 * /Reference) and FieldMDP (the field's /Lock or a /Reference). Nothing is
 * checked here: verify.ts does that.
 */
import {
  dictOf,
  isDict,
  isName,
  isRef,
  isStream,
  isString,
  textOf,
  type PdfDict,
  type PdfRef,
  type PdfValue,
} from './pdf-objects.js';
import { catalogOf, type Revision } from './pdf-file.js';
import { decodeStream } from './pdf-stream-decode.js';
import { rethrowLimit } from './pdf-xref.js';
import { parseCertificate, type Certificate } from './x509.js';
import { COST, runSteps, type Steps } from './pdf-budget.js';

export interface FieldLock {
  action: 'All' | 'Include' | 'Exclude';
  fields: string[];
}

export interface PdfSignature {
  /** The field's full name (`Signature1`, `form.sig`). */
  field: string;
  /** The signature dictionary's object number. */
  object: number | null;
  /** [start1, length1, start2, length2] as the dictionary states it. */
  byteRange: number[];
  /** The CMS, as stored in /Contents (zero padding included); empty when it is too long to be read. */
  contents: Uint8Array;
  /** The length of /Contents as written (hex digits, delimiters and white-space included), when it is too long to be read (PdfString.raw). */
  contentsTooLong: number | null;
  subFilter: string | null;
  /** A document timestamp (/Type /DocTimeStamp or /SubFilter /ETSI.RFC3161). */
  documentTimestamp: boolean;
  /** /M, as written (`D:20261123145941Z`). */
  signingTime: string | null;
  name: string | null;
  reason: string | null;
  /** P of a certification signature (1, 2 or 3), or of a PDF 2.0 /Lock /P; null when it sets none. */
  docmdp: number | null;
  certification: boolean;
  locks: FieldLock[];
  /** /Cert (adbe.x509.rsa_sha1): the signer's certificate first, then others of its chain, DER. */
  certificates: Uint8Array[];
}

const MAX_DEPTH = 32;

function lockOf(dict: PdfDict | undefined, rev: Revision): FieldLock | null {
  const action = textOf(dict?.entries.get('Action'));
  if (action !== 'All' && action !== 'Include' && action !== 'Exclude') return null;
  const list = rev.resolve(dict?.entries.get('Fields'));
  return {
    action,
    fields: Array.isArray(list) ? list.map((f) => textOf(rev.resolve(f)) ?? '').filter(Boolean) : [],
  };
}

function permission(value: PdfValue | undefined): number {
  return value === 1 || value === 2 || value === 3 ? value : 2;
}

/** Every signature field with a value, in the AcroForm's order. */
export function findSignatures(rev: Revision): PdfSignature[] {
  return runSteps(findSignatureSteps(rev));
}

/** findSignatures as steps, counted on the revision's meter. */
export function* findSignatureSteps(rev: Revision): Steps<PdfSignature[]> {
  const meter = rev.meter;
  const catalog = catalogOf(rev);
  const form = dictOf(rev.resolve(catalog?.entries.get('AcroForm')));
  if (!catalog) return [];
  const perms = dictOf(rev.resolve(catalog.entries.get('Perms')));
  const docMdpRef = perms?.entries.get('DocMDP');
  const found: PdfSignature[] = [];
  const seen = new Set<number>();
  const walk = function* (
    fields: PdfValue | undefined,
    parentName: string,
    parentType: string | null,
    depth: number,
  ): Steps<void> {
    const list = rev.resolve(fields);
    if (!Array.isArray(list) || depth > MAX_DEPTH) return;
    for (const item of list) {
      meter.add(COST.visit);
      if (meter.due) yield;
      if (isRef(item)) {
        if (seen.has(item.num)) continue;
        seen.add(item.num);
      }
      const field = dictOf(rev.resolve(item));
      if (!field) continue;
      const partial = textOf(field.entries.get('T'));
      const name = partial === null ? parentName : parentName ? `${parentName}.${partial}` : partial;
      const type = textOf(field.entries.get('FT')) ?? parentType;
      yield* walk(field.entries.get('Kids'), name, type, depth + 1);
      const valueRef = field.entries.get('V');
      const value = rev.resolve(valueRef);
      if (type !== 'Sig' || !isDict(value)) continue;
      const d = value.entries;
      const range = rev.resolve(d.get('ByteRange'));
      const contents = rev.resolve(d.get('Contents'));
      const subFilter = textOf(d.get('SubFilter'));
      let docmdp: number | null = null;
      let certification = isRef(docMdpRef) && isRef(valueRef) && docMdpRef.num === valueRef.num;
      const locks: FieldLock[] = [];
      const references = rev.resolve(d.get('Reference'));
      for (const reference of Array.isArray(references) ? references : []) {
        const ref = dictOf(rev.resolve(reference));
        const method = textOf(ref?.entries.get('TransformMethod'));
        const params = dictOf(rev.resolve(ref?.entries.get('TransformParams')));
        if (method === 'DocMDP') {
          certification = true;
          docmdp = permission(params?.entries.get('P'));
        } else if (method === 'FieldMDP') {
          const lock = lockOf(params, rev);
          if (lock) locks.push(lock);
        }
      }
      // Certified through the catalog's /Perms without a DocMDP reference of its own: P defaults to 2.
      if (certification && docmdp === null) docmdp = 2;
      const lockDict = dictOf(rev.resolve(field.entries.get('Lock')));
      const lock = lockOf(lockDict, rev);
      if (lock) locks.push(lock);
      const lockP = lockDict?.entries.get('P');
      if (lockP === 1 || lockP === 2 || lockP === 3)
        docmdp = docmdp === null ? lockP : Math.min(docmdp, lockP);
      found.push({
        field: name,
        object: isRef(valueRef) ? valueRef.num : null,
        byteRange: Array.isArray(range) ? range.map((n) => (typeof n === 'number' ? n : Number.NaN)) : [],
        contents: isString(contents) ? contents.bytes : new Uint8Array(),
        contentsTooLong: isString(contents) && contents.raw ? contents.raw.length : null,
        subFilter,
        documentTimestamp: isName(d.get('Type'), 'DocTimeStamp') || subFilter === 'ETSI.RFC3161',
        signingTime: textOf(d.get('M')),
        name: textOf(d.get('Name')),
        reason: textOf(d.get('Reason')),
        docmdp,
        certification,
        locks,
        certificates: certificatesOf(rev.resolve(d.get('Cert')), rev),
      });
    }
  };
  if (form) yield* walk(form.entries.get('Fields'), '', null, 0);
  // Signature widgets the pages carry that the form does not list: readers (poppler) show them.
  for (const widget of yield* pageWidgetSteps(rev, catalog)) {
    if (seen.has(widget.num)) continue;
    const { name, type } = inherited(rev, widget.num);
    if (type === 'Sig') yield* walk([widget], name, type, 0);
  }
  return found;
}

/** The widget annotations of every page, by reference, in page order. */
function* pageWidgetSteps(rev: Revision, catalog: PdfDict): Steps<PdfRef[]> {
  const widgets: PdfRef[] = [];
  const seenNodes = new Set<number>();
  const visit = function* (node: PdfValue | undefined, depth: number): Steps<void> {
    if (!isRef(node) || seenNodes.has(node.num) || depth > 64) return;
    seenNodes.add(node.num);
    rev.meter.add(COST.visit);
    if (rev.meter.due) yield;
    const dict = dictOf(rev.get(node.num));
    const kids = rev.resolve(dict?.entries.get('Kids'));
    if (Array.isArray(kids)) {
      for (const kid of kids) yield* visit(kid, depth + 1);
      return;
    }
    const annots = rev.resolve(dict?.entries.get('Annots'));
    for (const annot of Array.isArray(annots) ? annots : []) {
      rev.meter.add(COST.visit);
      if (isRef(annot) && isName(dictOf(rev.get(annot.num))?.entries.get('Subtype'), 'Widget'))
        widgets.push(annot);
    }
  };
  yield* visit(catalog.entries.get('Pages'), 0);
  return widgets;
}

/** The name a widget's parents give it (their /T joined) and the field type it inherits, without its own. */
function inherited(rev: Revision, num: number): { name: string; type: string | null } {
  const names: string[] = [];
  let type: string | null = null;
  let current = dictOf(rev.get(num));
  for (let i = 0; current && i < MAX_DEPTH; i++) {
    type ??= textOf(current.entries.get('FT'));
    const parent = dictOf(rev.resolve(current.entries.get('Parent')));
    if (i > 0) {
      const partial = textOf(current.entries.get('T'));
      if (partial !== null) names.unshift(partial);
    }
    current = parent;
  }
  return { name: names.join('.'), type };
}

/**
 * The certificates of the document security store (the catalog's /DSS /Certs, PAdES B-LT): where a
 * TSA's or an issuer's certificate that a CMS leaves out is found. Unreadable ones are skipped.
 */
export function dssCertificates(rev: Revision): Certificate[] {
  const dss = dictOf(rev.resolve(catalogOf(rev)?.entries.get('DSS')));
  const list = rev.resolve(dss?.entries.get('Certs'));
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_DSS_CERTIFICATES).flatMap((item) => {
    const stream = rev.resolve(item);
    if (!isStream(stream)) return [];
    try {
      return [parseCertificate(decodeStream(stream, rev.meter))];
    } catch (error) {
      rethrowLimit(error);
      return [];
    }
  });
}

/** More certificates than any DSS holds (a long-term archive of a few signatures holds tens). */
const MAX_DSS_CERTIFICATES = 2000;

/** /Cert: one string, or an array of them. */
function certificatesOf(value: PdfValue | undefined, rev: Revision): Uint8Array[] {
  const list = Array.isArray(value) ? value.map((v) => rev.resolve(v)) : [value];
  return list.flatMap((v) => (isString(v) && !v.raw ? [v.bytes] : []));
}

/** Whether a lock covers the field `name` (a lock on a parent covers its kids). */
export function locks(lock: FieldLock, name: string): boolean {
  const listed = lock.fields.some((f) => name === f || name.startsWith(`${f}.`));
  return lock.action === 'All' || (lock.action === 'Include' ? listed : !listed);
}

/** D:YYYYMMDDHHmmSS[Z|+HH'mm'] as ISO 8601; null when it is not a PDF date. */
export function pdfDate(value: string | null): string | null {
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value ?? '');
  if (!m) return null;
  const zone = !m[7] || m[7] === 'Z' ? 'Z' : `${m[7].slice(0, 3)}:${m[7].replace(/'/g, '').slice(3, 5)}`;
  const date = new Date(
    `${m[1]}-${m[2] ?? '01'}-${m[3] ?? '01'}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}${zone}`,
  );
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
