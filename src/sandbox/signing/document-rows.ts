/**
 * The signed copy's first part: the document itself, as the signer read it on their page (its
 * template filled from the envelope, documents/templates.ts), in its language and direction,
 * then each signer's place with their signature. The certificate of completion follows it
 * (signed-copy.ts).
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import { signerStatusWords, wordsFor } from '../documents/document-words.js';
import { humanDay } from '../documents/humanise.js';
import { signatureOf, type Signature } from '../documents/signature.js';
import type { FilledDocument } from '../documents/templates.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { CONTENT_WIDTH, type PdfCell, type PdfRow } from './pdf-layout.js';

/** A signature's box on the document: a signature line's width, and room for a flourish. */
export const MARK_WIDTH = 240;
export const MARK_HEIGHT = 56;
const BULLET = 14;

/** Signers in signing order. */
export const ordered = (envelope: EnvelopeRecord): SignerRecord[] =>
  [...envelope.signers].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));

/**
 * The signature drawn at a signer's place: the one they adopted, or, for a signer of the
 * automatic journey (who adopts none), their name typed, as such services sign for an API.
 */
export function signatureShown(signer: SignerRecord): Signature | undefined {
  if (signer.status !== 'signed') return undefined;
  return signatureOf(signer) ?? { kind: 'typed', text: signer.name.replace(/\s+/g, ' ').trim() };
}

/** When the signer did `type`: the envelope record, else their audit entry. */
export function whenDone(
  signer: SignerRecord,
  field: string,
  type: string,
  audit: readonly AuditEntry[],
): string | undefined {
  if (typeof signer[field] === 'string') return signer[field];
  return audit.find((entry) => entry.type === type && entry.actor.startsWith(`signer:${signer.id} `))?.at;
}

const oneLine = (value: unknown): string =>
  typeof value === 'string' && value.trim() !== '' ? value.replace(/[\r\n]+/g, ' ') : '—';

/** The document's rows; `note` closes it (what follows it, or whose copy it is). */
export function documentRows(
  envelope: EnvelopeRecord,
  audit: readonly AuditEntry[],
  document: FilledDocument,
  note: string,
): PdfRow[] {
  const rtl = document.dir === 'rtl';
  const words = wordsFor(document.lang);
  const lang = document.lang === 'ar' ? 'ar' : 'en';
  const cell = (text: string, options: Omit<PdfCell, 'text'> = {}): PdfCell =>
    rtl ? { text, align: 'right', ...options } : { text, ...options };
  const details = [
    `${words.reference}: ${oneLine(envelope.contract_id)}`,
    `${words.sent}: ${humanDay(envelope.created_at, lang) ?? '—'}`,
    `${words.envelope}: ${envelope.id}`,
  ].join('  ·  ');
  const rows: PdfRow[] = [{ cells: [cell(details, { size: 8 })] }];
  for (const block of document.blocks) {
    if (block.kind === 'title') rows.push({ gap: 14, cells: [cell(block.text, { size: 18, bold: true })] });
    else if (block.kind === 'heading')
      rows.push({ gap: 12, keep: 40, cells: [cell(block.text, { size: 11.5, bold: true })] });
    else if (block.kind === 'paragraph') rows.push({ gap: 6, cells: [cell(block.text)] });
    else
      rows.push({
        gap: 4,
        cells: rtl
          ? [
              { text: '•', at: CONTENT_WIDTH - BULLET, width: BULLET, align: 'right' },
              { text: block.text, width: CONTENT_WIDTH - BULLET - 4, align: 'right' },
            ]
          : [
              { text: '•', width: BULLET },
              { text: block.text, at: BULLET + 4 },
            ],
      });
  }
  const signers = ordered(envelope);
  rows.push({ gap: 18, keep: 130, cells: [cell(words.signatures, { size: 12, bold: true })] });
  signers.forEach((signer, i) => {
    const status = signerStatusWords(
      signer,
      whenDone(signer, 'signed_at', 'signer.signed', audit),
      document.lang,
    );
    rows.push(
      { gap: 14, keep: 100, cells: [cell(words.signerOf(i + 1, signers.length), { size: 8 })] },
      { cells: [cell(oneLine(signer.name), { bold: true })] },
      {
        cells: [],
        gap: 2,
        mark: {
          at: rtl ? CONTENT_WIDTH - MARK_WIDTH : 0,
          width: MARK_WIDTH,
          height: MARK_HEIGHT,
          signature: signatureShown(signer),
          ...(rtl ? { align: 'right' as const } : {}),
        },
      },
      { gap: 2, cells: [cell(status, { size: 9 })] },
    );
  });
  rows.push({ gap: 18, cells: [cell(`${words.sandboxNote} ${note}`, { size: 8 })] });
  return rows;
}
