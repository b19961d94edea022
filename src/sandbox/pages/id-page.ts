/**
 * The national-ID mock's page, `/_sandbox/id/<request>`: it stands for the
 * identity app on the signer's phone (UAE PASS, Nafath), which asks the
 * person to choose, among three numbers, the one the signing page shows.
 */
import type { IdRequest } from '../journey/id-requests.js';
import { TERMINAL } from '../journey/journey.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { page, refusalBox } from './frame.js';
import { hiddenFields } from './forms.js';
import { html, oneLine, type Markup } from '../../core/web/html.js';
import { STRINGS, methodName, textFor, type Language } from './strings.js';

export interface IdPageView {
  envelope: EnvelopeRecord;
  signer: SignerRecord;
  request: IdRequest;
  /** Still waiting for an answer (open, and its time has not run out). */
  open: boolean;
  lang: Language;
  csrf: string;
  /** Why the form just posted was refused (a key of STRINGS' refusals). */
  refusal?: string;
}

export function idPage(view: IdPageView): Markup {
  const t = STRINGS[view.lang];
  const method = methodName(String(view.signer.verification), view.lang);
  const path = `/_sandbox/id/${view.request.id}`;
  const main = html`<h1>${t.idTitle(method)}</h1>
    ${refusalBox(view.lang, view.refusal)}
    <p>${t.idAsk(oneLine(view.signer.name), oneLine(view.envelope.title))}</p>
    ${view.open ? choices(view, path) : outcome(view)}`;
  return page({
    lang: view.lang,
    title: t.idTitle(method),
    main,
    switchTo: `${path}?lang=${view.lang === 'ar' ? 'en' : 'ar'}`,
  });
}

/** The three numbers to choose from, while the request waits for an answer. */
function choices(view: IdPageView, path: string): Markup {
  const t = STRINGS[view.lang];
  return html`<p id="choose">${t.idChoose}</p>
    <form method="post" action="${path}">
      ${hiddenFields({ csrf: view.csrf, lang: view.lang })}
      <fieldset class="choices" aria-describedby="choose">
        <legend>${t.idChoices}</legend>
        ${(view.request.choices ?? []).map(
          (n) => html`<button type="submit" name="choice" value="${n}">${n}</button>`,
        )}
      </fieldset>
    </form>`;
}

/** How the request ended: answered, or unanswered when its envelope ended (voided, declined, …) or its time ran out. */
function outcome(view: IdPageView): Markup {
  const t = STRINGS[view.lang];
  const { outcome } = view.request;
  const text =
    outcome !== undefined
      ? (textFor(t.idDone, outcome) ?? outcome)
      : TERMINAL.has(view.envelope.status)
        ? (textFor(t.finished, view.envelope.status) ?? view.envelope.status)
        : t.idDone.expired!;
  return html`<div class="box ${outcome === 'verified' ? 'notice' : 'alert'}" role="status">
    <p>${text}</p>
  </div>`;
}
