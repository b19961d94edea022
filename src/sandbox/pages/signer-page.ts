/**
 * The signer's page, `/s/<token>`: the envelope's title, the signer's name,
 * the document's pages, and the one step open to the signer now (verify
 * identity, sign with consent, or decline with a reason), or why there is
 * none (waiting for an earlier signer, already signed, the envelope ended).
 * Every form is a plain POST back to the sandbox, so the whole ceremony works
 * without script and from the keyboard.
 */
import type { SignerStage } from '../journey/ceremony.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { page, refusalBox } from './frame.js';
import { hiddenFields } from './forms.js';
import { html, oneLine, plain, type Markup } from '../../core/web/html.js';
import { STRINGS, methodName, textFor, type Language } from './strings.js';

export interface SignerPageView {
  envelope: EnvelopeRecord;
  signer: SignerRecord;
  stage: SignerStage;
  lang: Language;
  /** `/s/<token>` */
  path: string;
  csrf: string;
  /** The document's pages, as SVG. */
  pages: Markup[];
  /** Why the last request changed nothing (a key of the refusals), if it did. */
  refusal?: string;
}

function form(view: SignerPageView, action: string, inner: Markup, label?: string): Markup {
  return html`<form method="post" action="${view.path}/${action}" ${label && html`aria-label="${label}"`}>
    ${hiddenFields({ csrf: view.csrf, lang: view.lang })}${inner}
  </form>`;
}

function verifyStep(view: SignerPageView, stage: Extract<SignerStage, { stage: 'verify' }>): Markup {
  const t = STRINGS[view.lang];
  const method = methodName(String(view.signer.verification), view.lang);
  const section = (...content: Markup[]) =>
    html`<section class="box" aria-labelledby="verify">
      <h2 id="verify">${t.verifyHeading}</h2>
      ${content}
    </section>`;
  const request = stage.request;
  if (!request)
    return section(
      html`<p>${t.verifyWith(method)}</p>`,
      form(view, 'verify', html`<button type="submit">${t.verifyButton}</button>`),
    );
  if (request.kind === 'code')
    return section(
      html`<p>${t.codeSent(method)}</p>`,
      form(
        view,
        'code',
        html`<label for="code">${t.codeLabel}</label>
          <input
            type="text"
            id="code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            maxlength="6"
            required
          />${hiddenFields({ request: request.id })}<button type="submit">${t.codeButton}</button>`,
      ),
    );
  return section(
    html`<p>${t.appNumber(method)}</p>
      <p class="number" id="id-number">${request.answer}</p>
      <p role="status">${t.appWaiting}</p>
      <p><a href="/_sandbox/id/${request.id}?lang=${view.lang}">${t.appLink}</a></p>
      <p><a class="button" href="${view.path}?lang=${view.lang}">${t.checkAgain}</a></p>`,
  );
}

function signStep(view: SignerPageView): Markup {
  const t = STRINGS[view.lang];
  return html`<section class="box" aria-labelledby="sign">
    <h2 id="sign">${t.signHeading}</h2>
    ${form(
      view,
      'sign',
      html`<label><input type="checkbox" name="consent" value="yes" required /> ${t.consent}</label
        ><button type="submit">${t.signButton}</button>`,
    )}
  </section>`;
}

function declineStep(view: SignerPageView): Markup {
  const t = STRINGS[view.lang];
  return html`<section class="box" aria-labelledby="decline">
    <h2 id="decline">${t.declineHeading}</h2>
    ${form(
      view,
      'decline',
      html`<label for="reason">${t.declineReason}</label
        ><textarea id="reason" name="reason" rows="3" maxlength="500" required></textarea
        ><button type="submit" class="danger">${t.declineButton}</button>`,
    )}
  </section>`;
}

/** A notice for a signer with nothing to do now; undefined when there is a step to take. */
function notice(view: SignerPageView): Markup | undefined {
  const t = STRINGS[view.lang];
  const { stage } = view;
  const box = (text: string, extra?: Markup) =>
    html`<div class="box notice" role="status">
      <p>${text}</p>
      ${extra}
    </div>`;
  switch (stage.stage) {
    case 'finished': {
      const download =
        stage.status === 'completed'
          ? html`<p><a href="${view.path}/signed.pdf">${t.downloadSigned}</a></p>`
          : undefined;
      return box(textFor(t.finished, stage.status) ?? stage.status, download);
    }
    case 'signed':
      return box(t.signed);
    case 'waiting':
      return box(stage.for ? t.waitingFor(oneLine(stage.for.name)) : t.waiting);
    case 'robot':
      return box(t.robot);
    default:
      return undefined;
  }
}

const polls = (stage: SignerStage): boolean =>
  stage.stage === 'waiting' ||
  stage.stage === 'robot' ||
  stage.stage === 'signed' ||
  (stage.stage === 'verify' && stage.request?.kind === 'app');

function steps(view: SignerPageView): Markup[] {
  if (view.stage.stage === 'verify') return [verifyStep(view, view.stage), declineStep(view)];
  if (view.stage.stage === 'sign') return [signStep(view), declineStep(view)];
  return [];
}

export function signerPage(view: SignerPageView): Markup {
  const t = STRINGS[view.lang];
  const other = view.lang === 'ar' ? 'en' : 'ar';
  const main = html`<h1>${oneLine(view.envelope.title)}</h1>
    <p class="who">${t.signer}: <strong>${oneLine(view.signer.name)}</strong></p>
    ${refusalBox(view.lang, view.refusal)} ${notice(view)}
    <section aria-labelledby="document">
      <h2 id="document">${t.document}</h2>
      <div class="pages">${view.pages}</div>
    </section>
    ${steps(view)}`;
  return page({
    lang: view.lang,
    title: plain(view.envelope.title),
    main,
    switchTo: `${view.path}?lang=${other}`,
    // A page with nothing to do, or waiting for the app, reloads itself when the envelope moves on.
    ...(polls(view.stage) ? { poll: `${view.path}/state` } : {}),
  });
}
