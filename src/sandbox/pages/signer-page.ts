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
import { escapeHtml, escapeLine, page, plain, refusalBox } from './frame.js';
import { hiddenFields } from './forms.js';
import { STRINGS, methodName, textFor, type Language } from './strings.js';

export interface SignerPageView {
  envelope: EnvelopeRecord;
  signer: SignerRecord;
  stage: SignerStage;
  lang: Language;
  /** `/s/<token>` */
  path: string;
  csrf: string;
  /** The document's pages, as SVG (escaped by their maker). */
  pages: string[];
  /** Why the last request changed nothing (a key of the refusals), if it did. */
  refusal?: string;
}

function form(view: SignerPageView, action: string, inner: string, label?: string): string {
  return `<form method="post" action="${escapeHtml(`${view.path}/${action}`)}"${label ? ` aria-label="${escapeHtml(label)}"` : ''}>${hiddenFields({ csrf: view.csrf, lang: view.lang })}${inner}</form>`;
}

function verifyStep(view: SignerPageView, stage: Extract<SignerStage, { stage: 'verify' }>): string {
  const t = STRINGS[view.lang];
  const method = methodName(String(view.signer.verification), view.lang);
  const heading = `<h2 id="verify">${escapeHtml(t.verifyHeading)}</h2>`;
  const request = stage.request;
  if (!request)
    return `<section class="box" aria-labelledby="verify">${heading}<p>${escapeHtml(t.verifyWith(method))}</p>${form(view, 'verify', `<button type="submit">${escapeHtml(t.verifyButton)}</button>`)}</section>`;
  if (request.kind === 'code') {
    const input = `<label for="code">${escapeHtml(t.codeLabel)}</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required>${hiddenFields({ request: request.id })}<button type="submit">${escapeHtml(t.codeButton)}</button>`;
    return `<section class="box" aria-labelledby="verify">${heading}<p>${escapeHtml(t.codeSent(method))}</p>${form(view, 'code', input)}</section>`;
  }
  return `<section class="box" aria-labelledby="verify">${heading}<p>${escapeHtml(t.appNumber(method))}</p><p class="number" id="id-number">${escapeHtml(request.answer)}</p><p role="status">${escapeHtml(t.appWaiting)}</p><p><a href="/_sandbox/id/${escapeHtml(request.id)}?lang=${view.lang}">${escapeHtml(t.appLink)}</a></p><p><a class="button" href="${escapeHtml(`${view.path}?lang=${view.lang}`)}">${escapeHtml(t.checkAgain)}</a></p></section>`;
}

function signStep(view: SignerPageView): string {
  const t = STRINGS[view.lang];
  const inner = `<label><input type="checkbox" name="consent" value="yes" required> ${escapeHtml(t.consent)}</label><button type="submit">${escapeHtml(t.signButton)}</button>`;
  return `<section class="box" aria-labelledby="sign"><h2 id="sign">${escapeHtml(t.signHeading)}</h2>${form(view, 'sign', inner)}</section>`;
}

function declineStep(view: SignerPageView): string {
  const t = STRINGS[view.lang];
  const inner = `<label for="reason">${escapeHtml(t.declineReason)}</label><textarea id="reason" name="reason" rows="3" maxlength="500" required></textarea><button type="submit" class="danger">${escapeHtml(t.declineButton)}</button>`;
  return `<section class="box" aria-labelledby="decline"><h2 id="decline">${escapeHtml(t.declineHeading)}</h2>${form(view, 'decline', inner)}</section>`;
}

/** A notice for a signer with nothing to do now; undefined when there is a step to take. */
function notice(view: SignerPageView): string | undefined {
  const t = STRINGS[view.lang];
  const { stage } = view;
  const box = (text: string, extra = '') =>
    `<div class="box notice" role="status"><p>${escapeHtml(text)}</p>${extra}</div>`;
  switch (stage.stage) {
    case 'finished': {
      const download =
        stage.status === 'completed'
          ? `<p><a href="${escapeHtml(`${view.path}/signed.pdf`)}">${escapeHtml(t.downloadSigned)}</a></p>`
          : '';
      return box(textFor(t.finished, stage.status) ?? stage.status, download);
    }
    case 'signed':
      return box(t.signed);
    case 'waiting':
      return box(stage.for ? t.waitingFor(String(stage.for.name).replace(/[\r\n]+/g, ' ')) : t.waiting);
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

export function signerPage(view: SignerPageView): string {
  const t = STRINGS[view.lang];
  const other = view.lang === 'ar' ? 'en' : 'ar';
  const refusal = refusalBox(view.lang, view.refusal);
  const steps =
    view.stage.stage === 'verify'
      ? verifyStep(view, view.stage) + declineStep(view)
      : view.stage.stage === 'sign'
        ? signStep(view) + declineStep(view)
        : '';
  const main = [
    `<h1>${escapeLine(view.envelope.title)}</h1>`,
    `<p class="who">${escapeHtml(t.signer)}: <strong>${escapeLine(view.signer.name)}</strong></p>`,
    refusal,
    notice(view) ?? '',
    `<section aria-labelledby="document"><h2 id="document">${escapeHtml(t.document)}</h2><div class="pages">${view.pages.join('\n')}</div></section>`,
    steps,
  ].join('\n');
  return page({
    lang: view.lang,
    title: plain(view.envelope.title),
    main,
    switchTo: `${view.path}?lang=${other}`,
    // A page with nothing to do, or waiting for the app, reloads itself when the envelope moves on.
    ...(polls(view.stage) ? { poll: `${view.path}/state` } : {}),
  });
}
