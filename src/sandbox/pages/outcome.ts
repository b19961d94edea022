/**
 * Where the envelope stands for a signer with nothing to do now, each outcome with its own
 * icon, colour, words and next step: signed (their own copy to download), completed (the
 * signed copy), declined (the reason echoed to whoever gave it), failed, voided (the sender's
 * reason), expired, waiting for an earlier signer, or signed by the sandbox's robots.
 */
import { humanDay } from '../documents/humanise.js';
import { MAX_ATTEMPTS } from '../journey/id-requests.js';
import { ordered } from '../signing/document-rows.js';
import type { SignerRecord } from '../store/records.js';
import { html, oneLine, plain, type Markup } from '../../core/web/html.js';
import type { SignerPageView } from './signer-steps.js';
import { STRINGS } from './strings.js';

type Tone = 'success' | 'danger' | 'neutral' | 'warning' | 'info';

/** Each tone's icon (24×24, drawn with the text's colour), beside words that say the same. */
const ICONS: Record<Tone, string> = {
  success: 'M5 12.5l4.5 4.5L19 7.5',
  danger: 'M7 7l10 10M17 7L7 17',
  neutral: 'M6.5 17.5l11-11',
  warning: 'M12 7v5l3 3',
  info: 'M12 11v6M12 7.5v.5',
};

function icon(tone: Tone): Markup {
  return html`<svg
    class="icon"
    viewBox="0 0 24 24"
    width="40"
    height="40"
    aria-hidden="true"
    focusable="false"
  >
    <circle cx="12" cy="12" r="10.5" fill="none" stroke="currentColor" stroke-width="2" />
    <path
      d="${ICONS[tone]}"
      fill="none"
      stroke="currentColor"
      stroke-width="2.4"
      stroke-linecap="round"
      stroke-linejoin="round"
    />
  </svg>`;
}

/** The outcome's panel: the step's place on the page (`#step`), so it is scrolled to and focused like a step. */
function panel(tone: Tone, title: string, body: Markup | Markup[], next?: Markup): Markup {
  return html`<section class="outcome ${tone}" id="step" tabindex="-1" aria-labelledby="step-title">
    <div class="outcome-head">
      ${icon(tone)}
      <h2 id="step-title">${title}</h2>
    </div>
    ${body} ${next && html`<div class="next">${next}</div>`}
  </section>`;
}

const firstWith = (signers: SignerRecord[], status: string) => signers.find((s) => s.status === status);

/** The outcome for a signer with nothing to do now; undefined when there is a step to take. */
export function outcome(view: SignerPageView): Markup | undefined {
  const t = STRINGS[view.lang];
  const o = t.outcomes;
  const { stage, envelope } = view;
  const signers = ordered(envelope);
  const copy = (label: string, file: string) =>
    html`<a class="button primary" href="${view.path}/${file}" download>${label}</a>`;
  switch (stage.stage) {
    case 'finished':
      return finished(view, stage.status);
    case 'signed': {
      const signed = signers.filter((s) => s.status === 'signed').length;
      const next = signers.find((s) => s.status !== 'signed');
      return panel(
        'success',
        o.signedTitle,
        html`<p>
          ${o.signedText(signed, signers.length)}
          ${next && envelope.sequential ? o.signedNext(oneLine(next.name)) : ''}
        </p>`,
        copy(o.ownCopy, 'copy.pdf'),
      );
    }
    case 'waiting': {
      if (!stage.for) return panel('info', o.waitingTitle, html`<p>${o.notYet}</p>`);
      const n = signers.indexOf(stage.for) + 1;
      return panel('info', o.waitingTitle, html`<p>${o.waitingFor(oneLine(stage.for.name), n)}</p>`);
    }
    case 'robot':
      return panel('info', o.robotTitle, html`<p>${o.robot}</p>`);
    default:
      return undefined;
  }
}

function finished(view: SignerPageView, status: string): Markup {
  const t = STRINGS[view.lang];
  const o = t.outcomes;
  const { envelope, signer } = view;
  const signers = ordered(envelope);
  switch (status) {
    case 'completed':
      return panel(
        'success',
        o.completedTitle,
        html`<p>${o.completedText}</p>`,
        html`<a class="button primary" href="${view.path}/signed.pdf" download>${o.completedCopy}</a>`,
      );
    case 'declined': {
      const who = signer.status === 'declined' ? signer : firstWith(signers, 'declined');
      if (who === signer)
        return panel(
          'danger',
          o.declinedTitle,
          html`<p>${o.youDeclined}</p>
            <p class="reason">
              <span>${o.yourReason}:</span> <q dir="auto">${plain(signer.decline_reason)}</q>
            </p>`,
          html`<p>${o.nothingMore}</p>`,
        );
      return panel(
        'danger',
        o.declinedTitle,
        html`<p>${o.otherDeclined(oneLine(who?.name ?? ''))}</p>`,
        html`<p>${o.nothingMore}</p>`,
      );
    }
    case 'failed': {
      const who =
        signer.status === 'verification_failed' ? signer : firstWith(signers, 'verification_failed');
      return panel(
        'danger',
        o.failedTitle,
        html`<p>${who === signer ? o.youFailed(MAX_ATTEMPTS) : o.otherFailed(oneLine(who?.name ?? ''))}</p>`,
        html`<p>${o.askSender}</p>`,
      );
    }
    case 'voided':
      return panel(
        'neutral',
        o.voidedTitle,
        html`<p>${o.voidedText}</p>
          ${
            typeof envelope.void_reason === 'string' &&
            html`<p class="reason">
              <span>${o.voidReason}:</span> <q dir="auto">${oneLine(envelope.void_reason)}</q>
            </p>`
          }`,
      );
    default:
      return panel(
        'warning',
        o.expiredTitle,
        html`<p>${o.expiredText(humanDay(envelope.finished_at ?? envelope.expires_at, view.lang) ?? '')}</p>`,
        html`<p>${o.askSender}</p>`,
      );
  }
}
