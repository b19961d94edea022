/**
 * One delivery, `/deliveries/<id>`: the signature's verdict (which secret, masked; the signed
 * timestamp's age), the headers, the body as formatted JSON with the raw bytes one click away,
 * what each forward target and replay was answered, and the replay form: as received, or edited
 * and signed again. The form needs the script (it posts JSON); everything else is plain HTML.
 */
import { html, type Markup } from '../../../core/web/html.js';
import type { Attempt, DeliveryRecord } from '../records.js';
import { page, shownTime } from './frame.js';
import { verdict } from './list-page.js';

export interface DetailView {
  delivery: DeliveryRecord;
  scheme: string;
  toleranceSeconds: number;
  /** The forward targets that would take this delivery's type. */
  targets: string[];
}

/** The body as a person reads it: JSON indented, anything else as it came. */
function formatted(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function age(delivery: DeliveryRecord, toleranceSeconds: number): string {
  if (delivery.signedAt === null) return 'no signed timestamp in this scheme';
  const seconds = Math.round(delivery.receivedAt / 1000 - delivery.signedAt);
  const when =
    seconds >= 0
      ? `${seconds} s old when it came`
      : `${-seconds} s ahead of this machine's clock when it came`;
  return `${shownTime(delivery.signedAt * 1000)}, ${when} (tolerance ${toleranceSeconds} s)`;
}

function signature(view: DetailView): Markup {
  const { delivery } = view;
  return html`<section aria-labelledby="signature-heading">
    <h2 id="signature-heading">Signature</h2>
    <dl class="facts">
      <dt>Verdict</dt>
      <dd>${verdict(delivery)}</dd>
      <dt>Scheme</dt>
      <dd>${view.scheme}</dd>
      <dt>Secret that matched</dt>
      <dd>
        ${delivery.secret === null ? html`<span class="note">none</span>` : html`<code>${delivery.secret}</code>`}
      </dd>
      <dt>Signed timestamp</dt>
      <dd>${age(delivery, view.toleranceSeconds)}</dd>
      <dt>Received</dt>
      <dd>
        <time datetime="${new Date(delivery.receivedAt).toISOString()}"
          >${shownTime(delivery.receivedAt)}</time
        >, <code>${delivery.method} ${delivery.path}</code>
      </dd>
      <dt>Answered</dt>
      <dd>${delivery.answered === null ? 'still asking the forward targets' : String(delivery.answered)}</dd>
      <dt>Event</dt>
      <dd>
        ${delivery.eventId === null ? html`<span class="note">no id</span>` : html`<code>${delivery.eventId}</code>`}${
          delivery.delivery > 1 ? `, redelivery #${delivery.delivery}: not a new event` : ''
        }
      </dd>
    </dl>
  </section>`;
}

function headers(delivery: DeliveryRecord): Markup {
  const rows: Markup[] = [];
  for (let i = 0; i + 1 < delivery.rawHeaders.length; i += 2)
    rows.push(
      html`<tr>
        <th scope="row">${delivery.rawHeaders[i]}</th>
        <td>${delivery.rawHeaders[i + 1]}</td>
      </tr>`,
    );
  return html`<section aria-labelledby="headers-heading">
    <h2 id="headers-heading">Headers</h2>
    <table class="headers">
      <caption class="visually-hidden">
        Headers as received
      </caption>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}

function body(delivery: DeliveryRecord): Markup {
  return html`<section aria-labelledby="body-heading">
    <h2 id="body-heading">Body</h2>
    <pre class="code" tabindex="0" aria-label="Body, formatted">${formatted(delivery.body)}</pre>
    <details>
      <summary>Raw bytes (${delivery.body.length})</summary>
      <pre class="code" tabindex="0" aria-label="Body, as received">${delivery.body.toString('utf8')}</pre>
      <p>
        <a href="/deliveries/${delivery.id}/body" download="delivery-${delivery.id}.bin"
          >Download the body as received</a
        >
      </p>
    </details>
  </section>`;
}

const KIND_LABELS: Record<Attempt['kind'], string> = {
  forward: 'Forward',
  replay: 'Replay',
  edited: 'Edited replay',
};

/**
 * The forwards and replays, in a container that is there even when they are not: the page's
 * script puts a fresh copy of it in place once a replay from the form is answered.
 */
function attempts(delivery: DeliveryRecord): Markup {
  if (delivery.attempts.length === 0) return html`<div id="attempts"></div>`;
  return html`<section id="attempts" aria-labelledby="attempts-heading">
    <h2 id="attempts-heading">What the apps answered</h2>
    <table class="attempts">
      <caption class="visually-hidden">
        Forwards and replays, in the order they came
      </caption>
      <thead>
        <tr>
          <th scope="col">Kind</th>
          <th scope="col">Time (UTC)</th>
          <th scope="col">Target</th>
          <th scope="col">Status</th>
          <th scope="col">Answer</th>
        </tr>
      </thead>
      <tbody>
        ${delivery.attempts.map(
          (a) =>
            html`<tr>
              <td data-label="Kind">${KIND_LABELS[a.kind]}</td>
              <td data-label="Time">${shownTime(a.at)}</td>
              <td data-label="Target"><code>${a.url}</code></td>
              <td data-label="Status">
                ${a.status === null ? html`<span class="bad">failed</span>` : `${a.status} in ${a.durationMs ?? 0} ms`}
              </td>
              <td data-label="Answer">
                <code>${a.status === null ? (a.error ?? '') : (a.answer ?? '')}</code>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function replayForm(view: DetailView): Markup {
  const { delivery } = view;
  const targets = view.targets;
  return html`<section aria-labelledby="replay-heading">
    <h2 id="replay-heading">Replay</h2>
    <noscript
      ><p>
        Replaying needs the page's script; the API takes the same request: POST
        /api/deliveries/${delivery.id}/replay.
      </p></noscript
    >
    <form id="replay" data-delivery="${delivery.id}">
      <fieldset>
        <legend>Send to</legend>
        ${
          targets.length > 0
            ? html`<p>
                <label
                  ><input type="radio" name="target" value="forward" checked /> the forward
                  target${targets.length > 1 ? 's' : ''}:
                  ${targets.map((url, i) => html`${i > 0 ? ', ' : ''}<code>${url}</code>`)}</label
                >
              </p>`
            : ''
        }
        <p>
          <label
            ><input type="radio" name="target" value="url" ${targets.length === 0 ? ' checked' : ''} /> this
            URL (this machine or a private network)</label
          >
          <label class="visually-hidden" for="replay-to">URL to replay to</label>
          <input type="url" id="replay-to" name="to" placeholder="http://127.0.0.1:3000/webhooks" size="40" />
        </p>
      </fieldset>
      <p>
        <button type="submit" name="mode" value="as-received">Replay as received</button>
        <span class="note"
          >the same bytes and signature: an app that checks timestamps refuses it once it is older than its
          tolerance</span
        >
      </p>
      <fieldset>
        <legend>Edit, then sign again</legend>
        <p>
          <label for="replay-body">Body</label>
          <textarea id="replay-body" name="body" rows="12" spellcheck="false">
${delivery.body.toString('utf8')}</textarea>
        </p>
        <p>
          <label for="replay-headers"
            >Headers to set, one <code>name: value</code> a line (<code>name:</code> alone leaves one
            out)</label
          >
          <textarea id="replay-headers" name="headers" rows="3" spellcheck="false"></textarea>
        </p>
        <p>
          <button type="submit" name="mode" value="edited">Sign again and replay</button>
          <span class="note"
            >with the listener's secret, in the ${view.scheme} scheme, with a fresh timestamp</span
          >
        </p>
      </fieldset>
    </form>
    <div id="replay-result" role="status" aria-live="polite"></div>
  </section>`;
}

export function detailPage(view: DetailView): Markup {
  const { delivery } = view;
  const main = html`<p><a href="/">All deliveries</a></p>
    <h1>${delivery.type ?? 'Delivery'} <span class="id">#${delivery.id}</span></h1>
    ${signature(view)} ${attempts(delivery)} ${replayForm(view)} ${headers(delivery)} ${body(delivery)}`;
  return page({ title: `${delivery.type ?? 'Delivery'} #${delivery.id} · webhook inspector`, main });
}
