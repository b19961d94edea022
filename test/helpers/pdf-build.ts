/**
 * PDFs written byte by byte for the verifier's tests: a one-page document
 * ("PAY 100 EUR TO ALICE"), incremental updates that change whatever a test
 * asks for (a page's content, an overlay, a font, a form field, an
 * annotation), and signatures appended as incremental updates the way signing
 * software writes them (a signature field and widget, a signature dictionary
 * with a /ByteRange and a /Contents placeholder), the CMS coming from
 * whatever the test signs with (OpenSSL, the sandbox's signer). Certification
 * signatures (DocMDP), field locks (FieldMDP) and document timestamps too.
 * The revisions' objects are read back with the verifier's own reader only to
 * find the catalog and the page: what is judged is written here.
 */
import { deflateSync } from 'node:zlib';
import { readPdf, catalogOf } from '../../src/core/pades/pdf-file.js';
import { isRef, type PdfRef, type PdfValue } from '../../src/core/pades/pdf-objects.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

/** A content stream object. */
export const stream = (content: string, extra = '') =>
  `<< /Length ${Buffer.byteLength(content, 'latin1')}${extra} >>\nstream\n${content}\nendstream`;

/** Text drawn at 72,720 in Helvetica 24 (font resource /F1). */
export const textContent = (text: string, y = 720) => `BT /F1 24 Tf 72 ${y} Td (${text}) Tj ET`;

export interface BaseOptions {
  /** The page's text. */
  text?: string;
  /** Extra objects (number → body) and what to add to the page dictionary and the catalog. */
  objects?: Record<number, string>;
  page?: string;
  catalog?: string;
  /** The page's /Contents, when not the one text stream (object 4). */
  contents?: string;
  /** The page's resources, when not just the font. */
  resources?: string;
}

/**
 * A one-page PDF: 1 catalog, 2 pages, 3 page, 4 content, 5 font, then any
 * extra objects. Object numbers from 10 up are the test's.
 */
export function basePdf(options: BaseOptions = {}): Buffer {
  const objects: Record<number, string> = {
    1: `<< /Type /Catalog /Pages 2 0 R${options.catalog ?? ''} >>`,
    2: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    3: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${options.contents ?? '4 0 R'} /Resources ${options.resources ?? '<< /Font << /F1 5 0 R >> >>'}${options.page ?? ''} >>`,
    4: stream(textContent(options.text ?? 'PAY 100 EUR TO ALICE')),
    5: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...options.objects,
  };
  const numbers = Object.keys(objects)
    .map(Number)
    .sort((a, b) => a - b);
  let body = '%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets = new Map<number, number>();
  for (const num of numbers) {
    offsets.set(num, Buffer.byteLength(body, 'latin1'));
    body += `${num} 0 obj\n${objects[num]}\nendobj\n`;
  }
  const size = numbers.at(-1)! + 1;
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++)
    body += offsets.has(n)
      ? `${String(offsets.get(n)).padStart(10, '0')} 00000 n \n`
      : '0000000000 00000 f \n';
  body += `trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return latin1(body);
}

/** The last revision's trailer facts: where its xref is, its size, its catalog. */
function lastRevision(pdf: Buffer, password?: string) {
  const text = pdf.toString('latin1');
  const at = text.lastIndexOf('startxref');
  const startxref = Number(/startxref\s+(\d+)/.exec(text.slice(at))![1]);
  const rev = readPdf(pdf, undefined, password).revisions.at(-1)!;
  const size = rev.trailer.entries.get('Size') as number;
  const root = rev.trailer.entries.get('Root') as PdfRef;
  return { rev, startxref, size, root };
}

/**
 * An incremental update: `objects` (number → body, new or redefined; null
 * frees one) appended with a cross-reference section of their own, the
 * trailer pointing back to the previous one. `compressed` writes it as
 * PDF 1.5 writers do: the objects that are not streams in an object stream,
 * and the cross-reference as a stream. `root` names another catalog (one saved
 * anew under a new number).
 */
export function appendRevision(
  pdf: Buffer,
  objects: Record<number, string | null>,
  trailerExtra = '',
  compressed = false,
  root?: number,
): Buffer {
  if (compressed) return appendCompressed(pdf, objects);
  const { startxref, size, root: lastRoot, rev } = lastRevision(pdf);
  const catalog = root ?? lastRoot.num;
  // An update of an encrypted document repeats its /Encrypt and /ID, as writers must.
  const encrypt = rev.trailer.entries.get('Encrypt');
  const kept = encrypt
    ? ` /Encrypt ${writeValue(encrypt)} /ID ${writeValue(rev.trailer.entries.get('ID'))}`
    : '';
  let body = pdf.toString('latin1');
  if (!body.endsWith('\n')) body += '\n';
  const offsets = new Map<number, number | null>();
  for (const [num, value] of Object.entries(objects).sort(([a], [b]) => Number(a) - Number(b))) {
    if (value === null) {
      offsets.set(Number(num), null);
      continue;
    }
    offsets.set(Number(num), Buffer.byteLength(body, 'latin1'));
    body += `${num} 0 obj\n${value}\nendobj\n`;
  }
  const xref = Buffer.byteLength(body, 'latin1');
  body += 'xref\n0 1\n0000000000 65535 f \n';
  for (const [num, offset] of offsets)
    body += `${num} 1\n${offset === null ? '0000000000 00001 f ' : `${String(offset).padStart(10, '0')} 00000 n `}\n`;
  const newSize = Math.max(size, ...[...offsets.keys()].map((n) => n + 1));
  body += `trailer\n<< /Size ${newSize} /Root ${catalog} 0 R /Prev ${startxref}${kept}${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return latin1(body);
}

/** appendRevision's PDF 1.5 form: an object stream and a cross-reference stream (PNG Up predictor, as Acrobat and pyHanko write them). */
function appendCompressed(pdf: Buffer, objects: Record<number, string | null>): Buffer {
  const { startxref, size, root } = lastRevision(pdf);
  const entries = Object.entries(objects).map(([num, body]) => [Number(num), body] as const);
  const inStream = entries.filter(([, body]) => body !== null && !/\bstream\r?\n/.test(body));
  const plain = entries.filter(([, body]) => body !== null && /\bstream\r?\n/.test(body));
  const objStm = Math.max(size, ...entries.map(([n]) => n + 1));
  const xrefNum = objStm + 1;
  let body = pdf.toString('latin1');
  if (!body.endsWith('\n')) body += '\n';
  const rows = new Map<number, [number, number, number]>();
  for (const [num, text] of plain) {
    rows.set(num, [1, Buffer.byteLength(body, 'latin1'), 0]);
    body += `${num} 0 obj\n${text}\nendobj\n`;
  }
  if (inStream.length > 0) {
    let header = '';
    let content = '';
    inStream.forEach(([num, text], i) => {
      header += `${num} ${Buffer.byteLength(content, 'latin1')} `;
      content += `${text}\n`;
      rows.set(num, [2, objStm, i]);
    });
    const data = deflateSync(Buffer.from(header + content, 'latin1'));
    rows.set(objStm, [1, Buffer.byteLength(body, 'latin1'), 0]);
    body += `${objStm} 0 obj\n<< /Type /ObjStm /N ${inStream.length} /First ${Buffer.byteLength(header, 'latin1')} /Filter /FlateDecode /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream\nendobj\n`;
  }
  for (const [num, text] of entries) if (text === null) rows.set(num, [0, 0, 1]);
  const xrefAt = Buffer.byteLength(body, 'latin1');
  rows.set(xrefNum, [1, xrefAt, 0]);
  const nums = [...rows.keys()].sort((a, b) => a - b);
  // Rows of 1 + 4 + 2 bytes, each behind the PNG "Up" filter byte.
  const raw: number[] = [];
  let previous = [0, 0, 0, 0, 0, 0, 0];
  for (const num of nums) {
    const [type, a, b] = rows.get(num)!;
    const row = [
      type,
      (a >>> 24) & 255,
      (a >>> 16) & 255,
      (a >>> 8) & 255,
      a & 255,
      (b >>> 8) & 255,
      b & 255,
    ];
    raw.push(2, ...row.map((v, i) => (v - previous[i]! + 256) & 255));
    previous = row;
  }
  const data = deflateSync(Uint8Array.from(raw));
  const index = nums.flatMap((n) => [n, 1]).join(' ');
  body += `${xrefNum} 0 obj\n<< /Type /XRef /Size ${xrefNum + 1} /Root ${root.num} 0 R /Prev ${startxref} /W [1 4 2] /Index [${index}] /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
  return latin1(body);
}

/** The next free object number of the last revision. */
export function nextObject(pdf: Buffer): number {
  return lastRevision(pdf).size;
}

/** An object's body as the last revision has it (to redefine it with a change): as written, or written again from an object stream. */
export function objectText(pdf: Buffer, num: number, password?: string): string {
  const text = pdf.toString('latin1');
  const rev = lastRevision(pdf, password).rev;
  const key = rev.entryKey(num);
  if (key.includes('#')) return writeValue(rev.get(num));
  const offset = Number(key.slice(1));
  const start = text.indexOf('obj', offset) + 3;
  return text.slice(start, text.indexOf('endobj', start)).trim();
}

/** A value in PDF syntax (for objects read from object streams, which are never streams). */
function writeValue(value: PdfValue | undefined): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(writeValue).join(' ')}]`;
  switch (value.kind) {
    case 'name':
      return `/${value.name}`;
    case 'string':
      return `<${Buffer.from(value.bytes).toString('hex')}>`;
    case 'ref':
      return `${value.num} ${value.gen} R`;
    case 'dict':
      return `<< ${[...value.entries].map(([k, v]) => `/${k} ${writeValue(v)}`).join(' ')} >>`;
    case 'stream':
      throw new Error('a stream is not in an object stream');
  }
}

export interface SignatureOptions {
  field: string;
  /** The CMS (or timestamp token) over the bytes the byte range covers. */
  sign: (signed: Buffer) => Promise<Uint8Array> | Uint8Array;
  subFilter?:
    'adbe.pkcs7.detached' | 'ETSI.CAdES.detached' | 'ETSI.RFC3161' | 'adbe.pkcs7.sha1' | 'adbe.x509.rsa_sha1';
  /** More entries for the signature dictionary (`/Cert <…>`). */
  dictionary?: string;
  /** Bytes written after the update's %%EOF, inside what the signature covers (blank lines, say). */
  afterEof?: string;
  /** The password of an encrypted document the update is added to (its objects are written decrypted). */
  password?: string;
  /** Spoils the update before it is signed (a signer that writes a damaged cross-reference, say). */
  spoil?: (update: Buffer) => Buffer;
  /** Sign this existing signature field (its object number, already in the form) rather than a new one. */
  existingField?: number;
  /** A certification signature with this DocMDP permission. */
  docmdp?: 1 | 2 | 3;
  /** A FieldMDP /Lock on the field. */
  lock?: { action: 'All' | 'Include' | 'Exclude'; fields?: string[] };
  /** /M, the time the signer claims. */
  signingTime?: Date;
  /** Room for the CMS, in bytes. */
  size?: number;
  /** Other objects this revision redefines too (an attacker's change signed along). */
  objects?: Record<number, string>;
}

const pdfDate = (d: Date) => `D:${d.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

/**
 * Signs the document as signing software does: one incremental update adding
 * a signature field (its widget on page 1, object 3), its signature
 * dictionary, the AcroForm (created or extended) and, for a certification,
 * the catalog's /Perms; then the byte range filled in and the CMS written.
 */
export async function addSignature(pdf: Buffer, options: SignatureOptions): Promise<Buffer> {
  const { rev, root } = lastRevision(pdf, options.password);
  const catalog = catalogOf(rev)!;
  const first = nextObject(pdf);
  const [sigNum, fieldNum, formNum] = [first, options.existingField ?? first + 1, first + 2];
  const docTimestamp = options.subFilter === 'ETSI.RFC3161';
  const size = options.size ?? 16384;
  const placeholder = `/ByteRange [0 0000000000 0000000000 0000000000] /Contents <${'0'.repeat(size * 2)}>`;
  const reference = options.docmdp
    ? ` /Reference [<< /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P ${options.docmdp} /V /1.2 >> >>]`
    : '';
  const sig = docTimestamp
    ? `<< /Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 ${placeholder} >>`
    : `<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /${options.subFilter ?? 'ETSI.CAdES.detached'} ${placeholder} /M (${pdfDate(options.signingTime ?? new Date())})${reference}${options.dictionary ?? ''} >>`;
  const lock = options.lock
    ? ` /Lock << /Type /SigFieldLock /Action /${options.lock.action}${options.lock.fields ? ` /Fields [${options.lock.fields.map((f) => `(${f})`).join(' ')}]` : ''} >>`
    : '';
  const objects: Record<number, string> = {
    [sigNum]: sig,
    [fieldNum]: `<< /Type /Annot /Subtype /Widget /FT /Sig /T (${options.field}) /V ${sigNum} 0 R /Rect [0 0 0 0] /F 132 /P 3 0 R${lock} >>`,
    ...options.objects,
  };
  // The AcroForm: extended where there is one, else created; the catalog gets it (and /Perms).
  const formValue = catalog.entries.get('AcroForm');
  const text = (num: number) => objectText(pdf, num, options.password);
  const fields = fieldRefs(pdf, formValue, options.password);
  const listed = fields.includes(`${fieldNum} 0 R`) ? fields : [...fields, `${fieldNum} 0 R`];
  const formBody = `<< /Fields [${listed.join(' ')}] /SigFlags 3 >>`;
  let catalogText = text(root.num);
  if (isRef(formValue)) objects[formValue.num] = formBody;
  else {
    objects[formNum] = formBody;
    catalogText = catalogText.replace(/>>\s*$/, ` /AcroForm ${formNum} 0 R >>`);
  }
  if (options.docmdp) catalogText = catalogText.replace(/>>\s*$/, ` /Perms << /DocMDP ${sigNum} 0 R >> >>`);
  if (catalogText !== text(root.num)) objects[root.num] = catalogText;
  const page = objects[3] ?? text(3);
  objects[3] = /\/Annots\s*\[/.test(page)
    ? page.replace(/\/Annots\s*\[/, `/Annots [${fieldNum} 0 R `)
    : page.replace(/>>\s*$/, ` /Annots [${fieldNum} 0 R] >>`);
  const appended = appendRevision(pdf, objects);
  const updated = options.spoil ? options.spoil(appended) : appended;
  return fillSignature(
    options.afterEof ? Buffer.concat([updated, latin1(options.afterEof)]) : updated,
    size,
    options.sign,
  );
}

/** The AcroForm's field references as text (`12 0 R`). */
function fieldRefs(pdf: Buffer, formValue: unknown, password?: string): string[] {
  if (!isRef(formValue as never)) return [];
  const body = objectText(pdf, (formValue as PdfRef).num, password);
  const list = /\/Fields\s*\[([^\]]*)\]/.exec(body)?.[1] ?? '';
  return [...list.matchAll(/(\d+)\s+(\d+)\s+R/g)].map((m) => `${m[1]} ${m[2]} R`);
}

/** Fills in the last /ByteRange placeholder and its /Contents with the CMS over the covered bytes. */
async function fillSignature(pdf: Buffer, size: number, sign: SignatureOptions['sign']): Promise<Buffer> {
  const text = pdf.toString('latin1');
  const rangeAt = text.lastIndexOf('/ByteRange [0 0000000000 0000000000 0000000000]');
  const contentsAt = text.indexOf('<', text.indexOf('/Contents', rangeAt));
  const a = contentsAt;
  const b = contentsAt + size * 2 + 2;
  const range = `/ByteRange [0 ${String(a).padStart(10, ' ')} ${String(b).padStart(10, ' ')} ${String(pdf.length - b).padStart(10, ' ')}]`;
  const withRange = Buffer.concat([
    pdf.subarray(0, rangeAt),
    latin1(range),
    pdf.subarray(rangeAt + range.length),
  ]);
  const signed = Buffer.concat([withRange.subarray(0, a), withRange.subarray(b)]);
  const cms = Buffer.from(await sign(signed));
  if (cms.length > size)
    throw new Error(`the CMS (${cms.length} bytes) does not fit the placeholder (${size})`);
  const hex = cms.toString('hex').padEnd(size * 2, '0');
  return Buffer.concat([withRange.subarray(0, a + 1), latin1(hex), withRange.subarray(b - 1)]);
}
