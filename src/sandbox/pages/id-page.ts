/**
 * The national-ID mock's page, `/_sandbox/id/<request>`: it stands for the
 * identity app on the signer's phone (UAE PASS, Nafath), which asks the
 * person to choose, among three numbers, the one the signing page shows.
 */
import type { IdRequest } from '../journey/id-requests.js';
import { TERMINAL } from '../journey/journey.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { escapeHtml, escapeLine, page, plain, refusalBox } from './frame.js';
import { hiddenFields } from './forms.js';
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

export function idPage(view: IdPageView): string {
  const t = STRINGS[view.lang];
  const method = methodName(String(view.signer.verification), view.lang);
  const path = `/_sandbox/id/${view.request.id}`;
  const ask = `<p>${escapeHtml(t.idAsk(oneLine(view.signer.name), oneLine(view.envelope.title)))}</p>`;
  let body: string;
  if (view.open) {
    const buttons = (view.request.choices ?? [])
      .map((n) => `<button type="submit" name="choice" value="${escapeHtml(n)}">${escapeHtml(n)}</button>`)
      .join('');
    body = `<p id="choose">${escapeHtml(t.idChoose)}</p><form method="post" action="${escapeHtml(path)}">${hiddenFields({ csrf: view.csrf, lang: view.lang })}<fieldset class="choices" aria-describedby="choose"><legend>${escapeHtml(t.idChoices)}</legend>${buttons}</fieldset></form>`;
  } else {
    // Unanswered, the request ended with its envelope (voided, declined, …) or ran out of time.
    const outcome = view.request.outcome;
    const text =
      outcome !== undefined
        ? (textFor(t.idDone, outcome) ?? outcome)
        : TERMINAL.has(view.envelope.status)
          ? (textFor(t.finished, view.envelope.status) ?? view.envelope.status)
          : t.idDone.expired!;
    body = `<div class="box ${outcome === 'verified' ? 'notice' : 'alert'}" role="status"><p>${escapeHtml(text)}</p></div>`;
  }
  const refusal = refusalBox(view.lang, view.refusal);
  return page({
    lang: view.lang,
    title: t.idTitle(method),
    main: `<h1>${escapeLine(t.idTitle(method))}</h1>${refusal}${ask}${body}`,
    switchTo: `${path}?lang=${view.lang === 'ar' ? 'en' : 'ar'}`,
  });
}

const oneLine = (value: unknown): string => plain(value).replace(/[\r\n]+/g, ' ');
