/**
 * The document on the signer's page: the text of its template filled from the envelope
 * (documents/templates.ts), the text the signed copy prints, as HTML that reflows to any
 * width, in its own language and direction; then each signer's place, with their signature once
 * they have signed, and the signer's own place marked. Names only: no signer's contact is on
 * the page.
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import { signerStatusWords, wordsFor } from '../documents/document-words.js';
import { humanDay } from '../documents/humanise.js';
import type { Block } from '../documents/template-format.js';
import type { FilledDocument } from '../documents/templates.js';
import type { Signature } from '../documents/signature.js';
import { ordered, signatureShown, whenDone } from '../signing/document-rows.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { html, oneLine, type Markup } from '../../core/web/html.js';
import { signatureMarkup } from './signature-view.js';
import { STRINGS, type Language } from './strings.js';

export interface DocumentView {
  envelope: EnvelopeRecord;
  audit: readonly AuditEntry[];
  document: FilledDocument;
  /** The signer whose page it is, and the signature they adopted (not signed yet). */
  signer: SignerRecord;
  adopted: Signature | undefined;
  /** The page's language, and the signed copy's. */
  lang: Language;
  signedLanguage: string;
}

/** The blocks as HTML: list items gathered into lists. */
function blocksHtml(blocks: readonly Block[]): Markup[] {
  const out: Markup[] = [];
  let items: Markup[] = [];
  const flush = () => {
    if (items.length > 0)
      out.push(
        html`<ul>
          ${items}
        </ul>`,
      );
    items = [];
  };
  for (const block of blocks.slice(1)) {
    if (block.kind === 'item') {
      items.push(html`<li>${block.text}</li>`);
      continue;
    }
    flush();
    out.push(block.kind === 'heading' ? html`<h3>${block.text}</h3>` : html`<p>${block.text}</p>`);
  }
  flush();
  return out;
}

function places(view: DocumentView): Markup {
  const { envelope, audit, document, signer: you, adopted, lang } = view;
  const words = wordsFor(document.lang);
  const t = STRINGS[lang];
  const signers = ordered(envelope);
  return html`<h3>${words.signatures}</h3>
    <ol class="places">
      ${signers.map((signer, i) => {
        const mine = signer.id === you.id;
        const shown = signatureShown(signer) ?? (mine ? adopted : undefined);
        const status = signerStatusWords(
          signer,
          whenDone(signer, 'signed_at', 'signer.signed', audit),
          document.lang,
        );
        return html`<li class="place${mine ? ' mine' : ''}">
          <p class="party">${words.signerOf(i + 1, signers.length)}</p>
          <p class="name">${oneLine(signer.name)}</p>
          <div class="mark">
            ${shown && signatureMarkup(shown, `${oneLine(signer.name)}: ${words.signatures}`)}
          </div>
          <p class="status">${status}</p>
          ${mine && signer.status !== 'signed' && html`<p class="here" lang="${lang}">${t.yourPlace}</p>`}
        </li>`;
      })}
    </ol>`;
}

export function documentHtml(view: DocumentView): Markup {
  const { envelope, document, lang, signedLanguage } = view;
  const words = wordsFor(document.lang);
  const t = STRINGS[lang];
  const docLang = document.lang === 'ar' ? 'ar' : 'en';
  const details = [
    `${words.reference}: ${oneLine(envelope.contract_id) || '—'}`,
    `${words.sent}: ${humanDay(envelope.created_at, docLang) ?? '—'}`,
    `${words.envelope}: ${envelope.id}`,
  ];
  const translated =
    document.lang !== signedLanguage &&
    html`<p class="note">${t.documentIn(t.languageNames[signedLanguage] ?? signedLanguage)}</p>`;
  return html`<section class="document" id="document" aria-labelledby="doc-title">
    ${translated}
    <div class="sheet" lang="${document.lang}" dir="${document.dir}">
      <p class="doc-details">${details.map((d) => html`<span>${d}</span>`)}</p>
      <h2 id="doc-title">${document.blocks[0]?.text ?? t.document}</h2>
      ${blocksHtml(document.blocks)} ${places(view)}
      <p class="doc-note">${words.sandboxNote}</p>
    </div>
  </section>`;
}
