/**
 * The signed copy of a completed envelope, as a PDF: the document as its
 * signers read and signed it, each signature in its place (document-rows.ts),
 * then a certificate of completion like DocuSign's (each signer, channel,
 * verification, signature and times, and the audit trail's head hash), in the
 * document's language, which starts on a page of its own and ends the document. A signer's own copy,
 * before everyone has signed, is the document alone.
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import { CERTIFICATE_WORDS, levelName, signatureWords, statusName } from '../documents/certificate-words.js';
import { wordsFor } from '../documents/document-words.js';
import { channelName, humanTime, methodName, type Language } from '../documents/humanise.js';
import type { Signature } from '../documents/signature.js';
import { Templates } from '../documents/templates.js';
import { CONTENT_WIDTH, renderPdf, type PdfCell, type PdfRow } from './pdf.js';
import { documentRows, ordered, signatureShown, whenDone } from './document-rows.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

/** Values start here (points from the label's edge of the page); labels fit before it. */
const VALUE_AT = 150;
/** Signer details are indented under the signer's name; a signer's number (`30.`) fits before it with a space. */
const INDENT = 22;

const text = (value: unknown): string =>
  value === undefined || value === null || value === ''
    ? '-'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/**
 * The certificate's rows in one language and direction: a right-to-left certificate is the
 * left-to-right one mirrored (labels at the right margin, values to their left, each cell flush
 * right), as an Arabic form is laid out.
 */
class CertificateLayout {
  private readonly rtl: boolean;

  constructor(readonly lang: Language) {
    this.rtl = lang === 'ar';
  }

  /** A cell from `at` (points from the label's margin) `width` wide, mirrored when right to left. */
  private cell(cell: PdfCell & { at: number; width: number }): PdfCell {
    return this.rtl ? { ...cell, at: CONTENT_WIDTH - cell.at - cell.width, align: 'right' } : cell;
  }

  heading(title: string, size = 12, gap = 14): PdfRow {
    return { gap, cells: [this.cell({ text: title, size, bold: true, at: 0, width: CONTENT_WIDTH })] };
  }

  note(words: string, size: number, gap: number): PdfRow {
    return { gap, cells: [this.cell({ text: words, size, at: 0, width: CONTENT_WIDTH })] };
  }

  field(
    label: string,
    value: unknown,
    options: { indent?: number; size?: number; gap?: number } = {},
  ): PdfRow {
    const indent = options.indent ?? 0;
    return {
      gap: options.gap ?? 2,
      cells: [
        this.cell({ text: `${label}:`, at: indent, width: VALUE_AT - indent - 6, size: options.size }),
        this.cell({ text: text(value), at: VALUE_AT, width: CONTENT_WIDTH - VALUE_AT, size: options.size }),
      ],
    };
  }

  /** "1." and the name, the name in a cell of its own: a bidi paragraph that starts with the name's own script. */
  signerName(number: string, name: string): PdfRow {
    return {
      gap: 10,
      cells: [
        this.cell({ text: number, bold: true, at: 0, width: INDENT }),
        this.cell({ text: name, bold: true, at: INDENT, width: CONTENT_WIDTH - INDENT }),
      ],
    };
  }

  /** A signature's drawing, in the value column. */
  mark(signature: Signature): PdfRow {
    const width = 160;
    return {
      cells: [],
      keep: 40,
      mark: this.rtl
        ? { at: CONTENT_WIDTH - VALUE_AT - width, width, height: 36, signature, align: 'right' }
        : { at: VALUE_AT, width, height: 36, signature },
    };
  }
}

const contactOf = (signer: SignerRecord): unknown =>
  signer.channel === 'whatsapp' ? signer.phone : (signer.email ?? signer.phone);

function certificateRows(envelope: EnvelopeRecord, audit: readonly AuditEntry[], lang: Language): PdfRow[] {
  const words = CERTIFICATE_WORDS[lang];
  const layout = new CertificateLayout(lang);
  const time = (value: unknown) => humanTime(value, lang, true);
  const named = (value: unknown, name: (value: string, lang: Language) => string) =>
    typeof value === 'string' ? name(value, lang) : value;
  const signers = ordered(envelope);
  const first = audit[0];
  const last = audit.at(-1);
  const rows: PdfRow[] = [
    { ...layout.heading(words.title, 18, 0), newPage: true },
    layout.heading(words.envelopeHeading, 12, 10),
    layout.field(words.envelope, envelope.id),
    layout.field(words.documentTitle, envelope.title),
    layout.field(words.contractId, envelope.contract_id),
    layout.field(words.status, named(envelope.status, statusName)),
    layout.field(words.level, named(envelope.signature_level, levelName)),
    layout.field(words.signers, words.signerCount(signers.length, envelope.sequential === true)),
    layout.field(words.sentBy, first?.type === 'envelope.created' ? first.actor : undefined),
    layout.field(words.sent, time(envelope.created_at)),
    layout.field(words.completed, time(envelope.completed_at)),
    layout.heading(words.signerEvents),
  ];
  signers.forEach((signer, i) => {
    const verification =
      typeof signer.verification === 'string'
        ? words.verifiedWith(
            methodName(signer.verification, lang),
            time(whenDone(signer, 'verified_at', 'signer.verified', audit)),
          )
        : words.noVerification;
    const indent = { indent: INDENT };
    rows.push(
      layout.signerName(`${signer.order ?? i + 1}.`, signer.name),
      layout.field(words.channel, named(signer.channel, channelName), indent),
      layout.field(words.contact, contactOf(signer), indent),
      layout.field(words.verification, verification, indent),
      layout.field(words.notified, time(signer.notified_at), indent),
      layout.field(words.viewed, time(whenDone(signer, 'viewed_at', 'signer.viewed', audit)), indent),
      layout.field(words.signed, time(whenDone(signer, 'signed_at', 'signer.signed', audit)), indent),
    );
    const signature = signatureShown(signer);
    if (signature)
      rows.push(
        layout.field(words.signature, signatureWords(signature, lang), indent),
        layout.mark(signature),
      );
  });
  rows.push(
    layout.heading(words.auditTrail),
    layout.field(
      words.entries,
      audit.length === 0 ? 0 : words.entryCount(audit.length, first!.seq, last!.seq),
    ),
    // An entry's type is the trail's own word for it (`envelopes audit` shows the same).
    layout.field(words.firstEntry, first ? `${time(first.at)} ${first.type}` : undefined),
    layout.field(words.lastEntry, last ? `${time(last.at)} ${last.type}` : undefined),
    layout.field(words.headHash, last?.hash, { size: 8 }),
    layout.field(words.check, `sign-cli envelopes audit ${envelope.id} --verify`),
    layout.note(words.footer, 8, 18),
  );
  return rows;
}

/**
 * The signed copy and its certificate of completion; `audit` is the envelope's whole trail,
 * `templates` where its document's text comes from.
 */
export function signedCopyPdf(
  envelope: EnvelopeRecord,
  audit: readonly AuditEntry[],
  templates: Templates = Templates.builtIn(),
): Promise<Buffer> {
  const document = templates.document(envelope);
  // The certificate is in the document's language: the copy reads in one language to its end.
  const lang: Language = document.lang === 'ar' ? 'ar' : 'en';
  const rows = [
    ...documentRows(envelope, audit, document, wordsFor(document.lang).certificateFollows),
    ...certificateRows(envelope, audit, lang),
  ];
  return renderPdf(rows, {
    title: CERTIFICATE_WORDS[lang].copyTitle(text(envelope.title)),
    createdAt: new Date(
      typeof envelope.completed_at === 'string' ? envelope.completed_at : envelope.created_at,
    ),
  });
}

/**
 * A signer's own copy once they have signed, before everyone has: the document with the
 * signatures so far, saying whose copy it is. Not the signed copy (no certificate, no seal):
 * that comes at the completion.
 */
export function ownCopyPdf(
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  audit: readonly AuditEntry[],
  templates: Templates = Templates.builtIn(),
): Promise<Buffer> {
  const document = templates.document(envelope);
  const signed = envelope.signers.filter((s) => s.status === 'signed').length;
  const note = wordsFor(document.lang).ownCopy(signer.name, signed, envelope.signers.length);
  return renderPdf(documentRows(envelope, audit, document, note), {
    title: `${text(envelope.title)} (${signer.name})`,
    createdAt: new Date(typeof signer.signed_at === 'string' ? signer.signed_at : envelope.updated_at),
  });
}
