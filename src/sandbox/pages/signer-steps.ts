/**
 * The step open to a signer, as their page shows it (signer-page.ts puts it in place): verify
 * their identity (a number to choose in the ID app, or a code to type, with the attempts left
 * and until when it holds), adopt their signature (typed, or drawn on the pad the script
 * enables), then sign with it shown back; and declining, a secondary action. Every form is a
 * plain POST back to the sandbox, so the ceremony works without script and from the keyboard.
 */
import type { AuditEntry } from '../../core/envelope/audit.js';
import { channelName, humanClock, humanDuration, methodName } from '../documents/humanise.js';
import { SIGNATURE_BOX, TYPED_MAX, signatureOf, type Signature } from '../documents/signature.js';
import type { FilledDocument } from '../documents/templates.js';
import type { SignerStage } from '../journey/ceremony.js';
import { attemptsLeft, canRenew, codeChannel, idRequestsOf, type IdRequest } from '../journey/id-requests.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';
import { hiddenFields } from './forms.js';
import { html, type Markup } from '../../core/web/html.js';
import { signatureMarkup } from './signature-view.js';
import { STRINGS, type Language } from './strings.js';

export interface SignerPageView {
  envelope: EnvelopeRecord;
  signer: SignerRecord;
  stage: SignerStage;
  lang: Language;
  /** `/s/<token>` */
  path: string;
  csrf: string;
  /** The document in the page's language (or the nearest the template has), and the signed copy's language. */
  document: FilledDocument;
  signedLanguage: string;
  audit: readonly AuditEntry[];
  /** Sandbox time now: how long a code or number still holds. */
  now: number;
  /** The signer asked to change the signature they adopted (`?step=signature`). */
  changing?: boolean;
  /** Why the last request changed nothing (a key of the refusals), if it did. */
  refusal?: string;
}

export function form(view: SignerPageView, action: string, inner: Markup, label?: string): Markup {
  return html`<form method="post" action="${view.path}/${action}" ${label && html`aria-label="${label}"`}>
    ${hiddenFields({ csrf: view.csrf, lang: view.lang })}${inner}
  </form>`;
}

/** The signer's own contact, partly hidden (someone may look over their shoulder): `l•••@example.com`, `+971•••4567`. */
export function maskedContact(to: string): string {
  const at = to.indexOf('@');
  if (at > 0) return `${to.slice(0, 1)}•••${to.slice(at)}`;
  return to.length > 8 ? `${to.slice(0, 4)}•••${to.slice(-4)}` : to;
}

/** The last failure of the check, while it still allows another attempt. */
function lastFailure(signer: SignerRecord, open: IdRequest | undefined): 'wrong' | 'expired' | undefined {
  if (open) return (open.wrong ?? 0) > 0 ? 'wrong' : undefined;
  const last = idRequestsOf(signer).at(-1);
  return last?.outcome === 'wrong' || last?.outcome === 'expired' ? last.outcome : undefined;
}

export function verifyStep(view: SignerPageView, request: IdRequest | undefined): Markup[] {
  const t = STRINGS[view.lang];
  const { signer } = view;
  const method = methodName(String(signer.verification), view.lang);
  const left = attemptsLeft(signer);
  const failure = lastFailure(signer, request);
  const said =
    failure === 'expired'
      ? t.expiredRequest
      : request?.kind === 'code' || (!request && isCode(signer))
        ? t.wrongCode
        : t.wrongNumber;
  const failed =
    failure &&
    html`<div class="box alert" role="alert">
      <p>${`${said} ${t.attemptsLeft(left)}`}</p>
    </div>`;
  const renew = (label: string, primary = false) =>
    canRenew(signer)
      ? form(
          view,
          'verify',
          html`${hiddenFields({ renew: 'yes' })}<button
              type="submit"
              class="${primary ? 'primary' : 'secondary'}"
            >
              ${label}
            </button>`,
        )
      : html`<p>${t.noMoreRequests}</p>`;
  const holds = (r: IdRequest) =>
    html`<p class="validity">
      ${`${t.validUntil(humanClock(r.expires_at)!, humanDuration(Math.max(0, r.expires_at - view.now), view.lang))} ${t.attemptsLeft(left)}`}
    </p>`;
  if (!request && !failure)
    return [
      html`<p>${t.verifyWith(method)} ${t.attemptsLeft(left)}</p>`,
      form(view, 'verify', html`<button type="submit" class="primary">${t.verifyButton(method)}</button>`),
    ];
  if (!request) return [failed || html``, renew(isCode(signer) ? t.newCode : t.tryAgain, true)];
  if (request.kind === 'code') {
    const { channel, to } = codeChannel(signer);
    return [
      failed || html``,
      html`<p>${t.codeSent(channelName(channel, view.lang), maskedContact(to))}</p>`,
      holds(request),
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
            pattern="[0-9]{6}"
            maxlength="6"
            required
          />${hiddenFields({ request: request.id })}<button type="submit" class="primary">
            ${t.codeButton}
          </button>`,
      ),
      renew(t.newCode),
    ];
  }
  return [
    failed || html``,
    html`<p>${t.appNumber(method)}</p>
      <p class="number" id="id-number">${request.answer}</p>`,
    holds(request),
    html`<p>
        <a class="button primary" href="/_sandbox/id/${request.id}?lang=${view.lang}">${t.appLink(method)}</a>
      </p>
      <p role="status" class="waiting">${t.appWaiting}</p>
      <p><a class="button secondary" href="${view.path}?lang=${view.lang}#step">${t.checkAgain}</a></p>`,
    renew(t.newNumber),
  ];
}

const isCode = (signer: SignerRecord): boolean => idRequestsOf(signer).at(-1)?.kind === 'code';

export function signatureStep(view: SignerPageView): Markup[] {
  const t = STRINGS[view.lang];
  const adopted = signatureOf(view.signer);
  const typed = adopted?.kind === 'typed' ? adopted.text : view.signer.name.replace(/\s+/g, ' ').trim();
  return [
    html`<p>${t.signatureIntro}</p>`,
    form(
      view,
      'signature',
      html`<fieldset class="modes">
          <legend>${t.signatureHow}</legend>
          <label class="mode"><input type="radio" name="kind" value="typed" checked /> ${t.typeIt}</label>
          <label class="mode" data-needs-script hidden
            ><input type="radio" name="kind" value="drawn" /> ${t.drawIt}</label
          >
        </fieldset>
        <div class="typed-panel">
          <label for="typed">${t.typedLabel}</label>
          <input
            type="text"
            id="typed"
            name="typed"
            value="${typed}"
            maxlength="${TYPED_MAX}"
            autocomplete="name"
            dir="auto"
          />
          <p class="signature-typed preview" id="typed-preview" dir="auto" aria-hidden="true">${typed}</p>
        </div>
        <div class="drawn-panel" hidden>
          <p id="pad-help">${t.padHelp}</p>
          <canvas
            class="pad"
            width="${SIGNATURE_BOX.width}"
            height="${SIGNATURE_BOX.height}"
            role="img"
            aria-label="${t.padLabel}"
            aria-describedby="pad-help"
          ></canvas>
          <input type="hidden" name="drawn" id="drawn" value="" />
          <button type="button" class="secondary" id="clear-pad">${t.clearPad}</button>
        </div>
        <button type="submit" class="primary">${t.adoptButton}</button>`,
    ),
  ];
}

export function signStep(view: SignerPageView, signature: Signature): Markup[] {
  const t = STRINGS[view.lang];
  return [
    html`<p>${t.signatureShown}</p>
      <div class="mark-preview">${signatureMarkup(signature, t.stepNames.signature!)}</div>
      <p>
        <a class="button secondary" href="${view.path}?lang=${view.lang}&amp;step=signature#step"
          >${t.changeSignature}</a
        >
      </p>`,
    form(
      view,
      'sign',
      html`<label class="check"
          ><input type="checkbox" id="consent" name="consent" value="yes" required />
          <span>${t.consent}</span></label
        ><button type="submit" class="primary">${t.signButton}</button>`,
    ),
  ];
}

/** Declining: folded away under its summary, so that it does not compete with signing. */
export function declineBox(view: SignerPageView): Markup {
  const t = STRINGS[view.lang];
  return html`<details class="decline" ${view.refusal === 'reason_required' ? html` open` : ''}>
    <summary>${t.declineHeading}</summary>
    <p>${t.declineIntro}</p>
    ${form(
      view,
      'decline',
      html`<label for="reason">${t.declineReason}</label
        ><textarea id="reason" name="reason" rows="3" maxlength="500" required></textarea
        ><button type="submit" class="danger">${t.declineButton}</button>`,
    )}
  </details>`;
}
