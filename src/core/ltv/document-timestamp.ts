/**
 * A document timestamp (PAdES B-LTA, ISO 32000-2 12.8.5): a signature field
 * whose signature dictionary (/Type /DocTimeStamp, /SubFilter /ETSI.RFC3161)
 * holds an RFC 3161 token over every byte of the file but the token itself,
 * so it seals what came before, the DSS included. The field is invisible (an
 * empty /Rect, on the first page, hidden from nothing: /F Print and Locked,
 * as Acrobat writes them), added to the AcroForm with /SigFlags 3.
 *
 * The token's size is known only once the TSA answers, after the bytes it
 * stamps are fixed: room is left for it, and when a TSA's token is larger the
 * update is made again with room for it (a second request).
 */
import { createHash } from 'node:crypto';
import {
  dictOf,
  isDict,
  isName,
  isRef,
  pdfName,
  textOf,
  type PdfDict,
  type PdfValue,
} from '../pades/pdf-objects.js';
import { readPdf } from '../pades/pdf-file.js';
import { PdfUpdate, UpdateRefusedError, dict, ref } from './pdf-update.js';

/** A TSA asked to stamp a SHA-256 digest: the token's DER (a ContentInfo holding SignedData over a TSTInfo). */
export type Stamp = (sha256: Uint8Array) => Promise<Uint8Array>;

/** Room for a token: a TSA's signature and its certificate chain, with margin. */
export const DEFAULT_TOKEN_ROOM = 12_288;

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const BYTE_RANGE_PLACEHOLDER = '/ByteRange [0 0000000000 0000000000 0000000000]';

/** The top-level fields' names, to name the new one apart from them. */
function fieldNames(update: PdfUpdate, fields: PdfValue[]): Set<string> {
  return new Set(fields.map((f) => textOf(dictOf(update.resolve(f))?.entries.get('T')) ?? ''));
}

/** The first page's object number (the page tree walked by its first kids). */
function firstPage(update: PdfUpdate, catalog: PdfDict): number {
  let node = catalog.entries.get('Pages');
  for (let depth = 0; depth < 64 && isRef(node); depth++) {
    const value = dictOf(update.resolve(node));
    if (!value) break;
    if (isName(value.entries.get('Type'), 'Page') || !value.entries.has('Kids')) return node.num;
    const kids = update.resolve(value.entries.get('Kids'));
    node = Array.isArray(kids) ? kids[0] : undefined;
  }
  throw new UpdateRefusedError('its page tree has no first page to hold the timestamp field');
}

/** Appends `item` to the array `holder[key]` (an array object replaced, or the holder changed). Returns whether the holder changed. */
function appendTo(update: PdfUpdate, holder: PdfDict, key: string, item: PdfValue): boolean {
  const value = holder.entries.get(key);
  const list = update.resolve(value);
  const items = Array.isArray(list) ? [...list, item] : [item];
  if (isRef(value) && Array.isArray(list)) {
    update.set(value.num, items);
    return false;
  }
  holder.entries.set(key, items);
  return true;
}

/** Adds the timestamp field and its signature dictionary (with room for a token of `room` bytes): the dictionary's number, the field's name. */
function addTimestampField(update: PdfUpdate, room: number): { signatureNum: number; field: string } {
  const catalog = update.catalog();
  const acroValue = catalog.dict.entries.get('AcroForm');
  const acroForm: PdfDict = {
    kind: 'dict',
    entries: new Map(dictOf(update.resolve(acroValue))?.entries ?? []),
  };
  const existing = update.resolve(acroForm.entries.get('Fields'));
  const names = fieldNames(update, Array.isArray(existing) ? existing : []);
  let n = 1;
  while (names.has(`Timestamp${n}`)) n++;
  const page = firstPage(update, catalog.dict);
  const signatureNum = update.allocate();
  const fieldNum = update.allocate();
  update.set(signatureNum, {
    kind: 'raw',
    bytes: latin1(
      `<< /Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${BYTE_RANGE_PLACEHOLDER} /Contents <${'0'.repeat(room * 2)}> >>`,
    ),
  });
  update.set(
    fieldNum,
    dict({
      Type: pdfName('Annot'),
      Subtype: pdfName('Widget'),
      FT: pdfName('Sig'),
      T: { kind: 'string', bytes: latin1(`Timestamp${n}`) },
      V: ref(signatureNum),
      F: 132,
      Rect: [0, 0, 0, 0],
      P: ref(page),
    }),
  );
  appendTo(update, acroForm, 'Fields', ref(fieldNum));
  acroForm.entries.set('SigFlags', 3);
  if (isRef(acroValue)) update.set(acroValue.num, acroForm);
  else {
    catalog.dict.entries.set('AcroForm', acroForm);
    update.set(catalog.num, catalog.dict);
  }
  const pageDict = dictOf(update.resolve(ref(page)));
  if (!isDict(pageDict)) throw new UpdateRefusedError('its first page is not a dictionary');
  const pageCopy: PdfDict = { kind: 'dict', entries: new Map(pageDict.entries) };
  if (appendTo(update, pageCopy, 'Annots', ref(fieldNum))) update.set(page, pageCopy);
  return { signatureNum, field: `Timestamp${n}` };
}

/** The update's bytes with the byte range filled in, and where the /Contents hex digits are. */
function layOut(
  bytes: Buffer,
  signatureNum: number,
  from: number,
): { bytes: Buffer; contents: [number, number] } {
  const at = bytes.indexOf(`${signatureNum} 0 obj\n<< /Type /DocTimeStamp`, from, 'latin1');
  const rangeAt = bytes.indexOf(BYTE_RANGE_PLACEHOLDER, at, 'latin1');
  const open = bytes.indexOf('/Contents <', rangeAt, 'latin1') + '/Contents '.length;
  const close = bytes.indexOf('>', open, 'latin1') + 1;
  const range = `/ByteRange [0 ${open} ${close} ${bytes.length - close}]`;
  bytes.write(range.padEnd(BYTE_RANGE_PLACEHOLDER.length, ' '), rangeAt, 'latin1');
  return { bytes, contents: [open, close] };
}

export interface TimestampedFile {
  bytes: Buffer;
  /** The token the TSA gave (DER). */
  token: Uint8Array;
  /** The new field's name. */
  field: string;
}

/**
 * The PDF with an update that `prepare` fills (the DSS) and a document timestamp over all of it
 * from `stamp`. UpdateRefusedError when the file cannot take an update (encrypted, damaged).
 */
export async function appendDocumentTimestamp(
  pdf: Uint8Array,
  prepare: (update: PdfUpdate) => void,
  stamp: Stamp,
  room = DEFAULT_TOKEN_ROOM,
): Promise<TimestampedFile> {
  const file = readPdf(pdf);
  const update = new PdfUpdate(file);
  prepare(update);
  const { signatureNum, field } = addTimestampField(update, room);
  const { bytes, contents } = layOut(update.bytes(), signatureNum, pdf.length);
  const [open, close] = contents;
  const digest = createHash('sha256').update(bytes.subarray(0, open)).update(bytes.subarray(close)).digest();
  const token = await stamp(digest);
  if (token.length > room) {
    // Made again with room for this TSA's tokens; the first token stamps bytes that are never written.
    return appendDocumentTimestamp(pdf, prepare, stamp, token.length + 2048);
  }
  bytes.write(Buffer.from(token).toString('hex'), open + 1, 'latin1');
  return { bytes, token, field };
}
