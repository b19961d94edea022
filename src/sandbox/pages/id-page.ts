/**
 * The national-ID mock's page, `/_sandbox/id/<request>`: it stands for the
 * identity app on the signer's phone (UAE PASS, Nafath), which asks the
 * person to choose, among three numbers, the one the signing page shows.
 * Whatever the answer, it leads back to the signing page (the app returns
 * the person there, on the same phone too): a right answer goes straight
 * back; a wrong one, or an expired request, says how many attempts are left.
 */
import { humanClock, humanDuration } from '../documents/humanise.js';
import { attemptsLeft, type IdRequest } from '../journey/id-requests.js';
import { TERMINAL } from '../journey/journey.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { page, refusalBox } from './frame.js';
import { hiddenFields } from './forms.js';
import { html, oneLine, type Markup } from '../../core/web/html.js';
import { STRINGS, methodName, type Language } from './strings.js';

export interface IdPageView {
  envelope: EnvelopeRecord;
  signer: SignerRecord;
  request: IdRequest;
  /** Still waiting for an answer (open, and its time has not run out). */
  open: boolean;
  lang: Language;
  csrf: string;
  /** The signer's page (`/s/<token>`): where the app sends the person back. */
  signerPath: string;
  /** Sandbox time now. */
  now: number;
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
  const { request } = view;
  return html`<p id="choose">${t.idChoose}</p>
    <form method="post" action="${path}">
      ${hiddenFields({ csrf: view.csrf, lang: view.lang })}
      <fieldset class="choices" aria-describedby="choose">
        <legend>${t.idChoices}</legend>
        ${(request.choices ?? []).map((n) => html`<button type="submit" name="choice" value="${n}">${n}</button>`)}
      </fieldset>
    </form>
    <p class="validity">
      ${t.validUntil(humanClock(request.expires_at)!, humanDuration(Math.max(0, request.expires_at - view.now), view.lang))}
      ${t.attemptsLeft(attemptsLeft(view.signer))}
    </p>`;
}

/** How the request ended, and the way back to the signing page. */
function outcome(view: IdPageView): Markup {
  const t = STRINGS[view.lang];
  const { request, envelope, signer } = view;
  const left = attemptsLeft(signer);
  const ended = TERMINAL.has(envelope.status);
  let tone = 'alert';
  let text: string;
  const failed = signer.status === 'verification_failed';
  if (request.outcome === 'verified') {
    tone = 'notice';
    text = t.idVerified;
  } else if (request.outcome === 'wrong')
    text = `${t.idWrong} ${failed ? t.idFailed : ended ? endedTitle(view) : t.idWrongRetry(left)}`;
  else if (request.outcome === 'replaced') text = t.idReplaced;
  else if (ended && request.outcome !== 'expired') text = `${endedTitle(view)} ${t.outcomes.nothingMore}`;
  else text = `${t.idExpired} ${ended ? endedTitle(view) : t.attemptsLeft(left)}`;
  return html`<div class="box ${tone}" role="status">
      <p>${text}</p>
    </div>
    <p>
      <a class="button primary" href="${view.signerPath}?lang=${view.lang}#step">${t.returnToSigning}</a>
    </p>`;
}

/** How the envelope ended, in a few words (voided, declined, …). */
function endedTitle(view: IdPageView): string {
  const o = STRINGS[view.lang].outcomes;
  switch (view.envelope.status) {
    case 'completed':
      return `${o.completedTitle}.`;
    case 'declined':
      return `${o.declinedTitle}.`;
    case 'failed':
      return `${o.failedTitle}.`;
    case 'voided':
      return `${o.voidedTitle}.`;
    default:
      return `${o.expiredTitle}.`;
  }
}
