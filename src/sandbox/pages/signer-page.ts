/**
 * The signer's page, `/s/<token>`: the envelope's title, who signs (signer 2 of 3) and their
 * steps (step 2 of 3), the document to read, and the one step open now (signer-steps.ts) or
 * where the envelope stands (outcome.ts). On a wide screen the step stays beside the document;
 * on a phone it follows the document, and a link at the top leads to it. After every action the
 * page comes back at the step (`#step`): the script scrolls it into view, focuses it and says it
 * in a live region (without script the browser still scrolls to it).
 */
import { signatureOf } from '../documents/signature.js';
import { stepsOf, type StepName } from '../journey/ceremony.js';
import { ordered } from '../signing/document-rows.js';
import { documentHtml } from './document-html.js';
import { page, refusalBox } from './frame.js';
import { html, oneLine, plain, type Markup } from '../../core/web/html.js';
import { outcome } from './outcome.js';
import { declineBox, signStep, signatureStep, verifyStep, type SignerPageView } from './signer-steps.js';
import { STRINGS } from './strings.js';

export type { SignerPageView } from './signer-steps.js';

/** The step the page shows, if any: the stage's, or the signature again when the signer asked to change it. */
function currentStep(view: SignerPageView): StepName | undefined {
  const { stage } = view;
  if (stage.stage === 'sign' && view.changing) return 'signature';
  return stage.stage === 'verify' || stage.stage === 'signature' || stage.stage === 'sign'
    ? stage.stage
    : undefined;
}

function stepPanel(view: SignerPageView, step: StepName): Markup {
  const t = STRINGS[view.lang];
  const steps = stepsOf(view.signer);
  const n = steps.indexOf(step) + 1;
  const { stage } = view;
  const content =
    step === 'verify'
      ? verifyStep(view, stage.stage === 'verify' ? stage.request : undefined)
      : step === 'signature'
        ? signatureStep(view)
        : signStep(view, stage.stage === 'sign' ? stage.signature : signatureOf(view.signer)!);
  return html`<section class="step" id="step" tabindex="-1" aria-labelledby="step-title">
      <p class="step-count">${t.stepOf(n, steps.length)}</p>
      <h2 id="step-title">${t.stepNames[step]}</h2>
      ${content}
    </section>
    ${declineBox(view)}`;
}

function progress(view: SignerPageView, step: StepName | undefined): Markup {
  const t = STRINGS[view.lang];
  const steps = stepsOf(view.signer);
  const at = step ? steps.indexOf(step) : view.signer.status === 'signed' ? steps.length : -1;
  return html`<ol class="progress" aria-label="${t.yourSteps}">
    ${steps.map((name, i) => {
      const state = i < at ? 'done' : i === at ? 'current' : 'todo';
      return html`<li class="${state}" ${state === 'current' && html`aria-current="step"`}>
        <span class="n" aria-hidden="true">${i + 1}</span> ${t.stepNames[name]}
      </li>`;
    })}
  </ol>`;
}

export function signerPage(view: SignerPageView): Markup {
  const t = STRINGS[view.lang];
  const other = view.lang === 'ar' ? 'en' : 'ar';
  const signers = ordered(view.envelope);
  const step = currentStep(view);
  const steps = stepsOf(view.signer);
  const aside = step ? stepPanel(view, step) : outcome(view);
  const skip = step ? t.goToStep(steps.indexOf(step) + 1, steps.length, t.stepNames[step]!) : t.goToOutcome;
  const main = html`<div class="intro">
      <h1>${oneLine(view.envelope.title)}</h1>
      <p class="who">
        <strong>${oneLine(view.signer.name)}</strong>
        <span>${t.signerOf(signers.indexOf(view.signer) + 1, signers.length)}</span>
      </p>
      ${progress(view, step)}
      <p class="skip"><a href="#step">${skip}</a></p>
    </div>
    ${refusalBox(view.lang, view.refusal)}
    <div class="layout">
      ${documentHtml({
        envelope: view.envelope,
        audit: view.audit,
        document: view.document,
        signer: view.signer,
        adopted: signatureOf(view.signer),
        lang: view.lang,
        signedLanguage: view.signedLanguage,
      })}
      <div class="panel">${aside}</div>
    </div>
    <p class="visually-hidden" id="announce" role="status" aria-live="polite"></p>`;
  const polls =
    view.stage.stage === 'waiting' ||
    view.stage.stage === 'robot' ||
    view.stage.stage === 'signed' ||
    (view.stage.stage === 'verify' && view.stage.request?.kind === 'app');
  return page({
    lang: view.lang,
    title: plain(view.envelope.title),
    main,
    switchTo: `${view.path}?lang=${other}`,
    // A page with nothing to do, or waiting for the app, reloads itself (at its step) when the envelope moves on.
    ...(polls ? { poll: `${view.path}/state` } : {}),
  });
}
