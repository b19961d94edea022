/**
 * The list, `/`: every delivery kept, newest first, with its time, type, envelope, verdict (and
 * why a refused one was refused), whether it is a redelivery, and what each forward target
 * answered; filtered by type, status and text (a plain GET form: the filters are in the URL).
 * The script (assets/inspector/inspector.js) reloads the rows as deliveries come.
 */
import { html, type Markup } from '../../../core/web/html.js';
import {
  attemptFailed,
  STATUS_FILTERS,
  type DeliveryQuery,
  type DeliverySummary,
  type StatusFilter,
} from '../records.js';
import { page, shortUrl, shownTime } from './frame.js';

/** The listener as the page introduces it. */
export interface ListenerFacts {
  url: string;
  scheme: string;
  forwardTo: string[];
  /** Where deliveries are kept: a file, or memory only. */
  keptIn: string;
  keep: number;
}

export interface ListView {
  deliveries: DeliverySummary[];
  query: Omit<DeliveryQuery, 'limit'>;
  types: string[];
  total: number;
  listener: ListenerFacts;
  /** The next page's link, when there are older deliveries. */
  older?: string;
}

// Escapes, not the characters: the bundle holds Latin-1 only (scripts/build), and Prettier, which
// formats the html templates, would write the character back in one.
const ASKING = 'asking\u2026';
const TEXT_HINT = 'id, envelope, name\u2026';

const STATUS_LABELS: Record<StatusFilter, string> = {
  verified: 'Verified',
  refused: 'Refused',
  duplicate: 'Redeliveries',
  'forward-failed': 'A forward failed',
};

/** One element, so that it stays one cell's content when a phone shows the table as cards. */
export function verdict(delivery: DeliverySummary): Markup {
  if (delivery.verified)
    return html`<span
      ><span class="verdict ok">Verified</span>${
        delivery.filtered ? html` <span class="note">(outside --events)</span>` : ''
      }</span
    >`;
  return html`<span
    ><span class="verdict bad">Refused${delivery.answered !== null ? ` (${delivery.answered})` : ''}</span>
    <span class="reason">${delivery.reason ?? ''}</span></span
  >`;
}

export function forwards(delivery: DeliverySummary): Markup {
  const attempts = delivery.attempts.filter((a) => a.kind === 'forward');
  if (attempts.length === 0)
    return delivery.verified && delivery.answered === null
      ? html`<span class="note">${ASKING}</span>`
      : html``;
  return html`<ul class="forwards">
    ${attempts.map(
      (a) =>
        html`<li class="${attemptFailed(a) ? 'bad' : 'ok'}">
          ${shortUrl(a.url)}:
          ${a.status === null ? `failed (${a.error ?? ''})` : `${a.status} in ${a.durationMs ?? 0} ms`}
        </li>`,
    )}
  </ul>`;
}

function row(delivery: DeliverySummary): Markup {
  // What forwards() shows something for: an app's answer, or a verified delivery still being answered.
  const forwarded =
    delivery.attempts.some((a) => a.kind === 'forward') || (delivery.verified && delivery.answered === null);
  // A cell with nothing in it is left out of a phone's card (class "blank"), not shown as a label alone.
  const blank = (empty: boolean) => (empty ? 'blank' : '');
  return html`<tr id="d-${delivery.id}" class="${delivery.verified ? 'verified' : 'refused'}">
    <td data-label="Time">
      <a id="open-${delivery.id}" href="/deliveries/${delivery.id}"
        ><time datetime="${new Date(delivery.receivedAt).toISOString()}"
          >${shownTime(delivery.receivedAt)}</time
        ></a
      >
    </td>
    <td data-label="Type">${delivery.type ?? html`<span class="note">none</span>`}</td>
    <td data-label="Envelope" class="${blank(!delivery.envelopeId)}">${delivery.envelopeId ?? ''}</td>
    <td data-label="Verdict">${verdict(delivery)}</td>
    <td data-label="Redelivery" class="${blank(delivery.delivery <= 1)}">
      ${delivery.delivery > 1 ? `#${delivery.delivery}` : ''}
    </td>
    <td data-label="Forwarded" class="${blank(!forwarded)}">${forwards(delivery)}</td>
  </tr>`;
}

function filters(view: ListView): Markup {
  const { query } = view;
  const types =
    query.type !== undefined && !view.types.includes(query.type) ? [...view.types, query.type] : view.types;
  return html`<form class="filters" method="get" action="/" role="search" aria-label="Filter deliveries">
    <label
      >Type
      <select name="type">
        <option value="">Any type</option>
        ${types.map((type) => html`<option value="${type}" ${type === query.type ? ' selected' : ''}>${type}</option>`)}
      </select>
    </label>
    <label
      >Status
      <select name="status">
        <option value="">Any status</option>
        ${STATUS_FILTERS.map((status) => html`<option value="${status}" ${status === query.status ? ' selected' : ''}>${STATUS_LABELS[status]}</option>`)}
      </select>
    </label>
    <label
      >Text
      <input type="search" name="q" value="${query.text ?? ''}" placeholder="${TEXT_HINT}" />
    </label>
    <button type="submit">Filter</button>
    ${query.type !== undefined || query.status !== undefined || query.text ? html`<a href="/">Clear</a>` : ''}
  </form>`;
}

/** The line that says what is shown: read out by screen readers when it changes. */
export function summaryLine(view: ListView): string {
  const filtered = view.query.type !== undefined || view.query.status !== undefined || !!view.query.text;
  const shown = view.deliveries.length;
  return `${shown} ${shown === 1 ? 'delivery' : 'deliveries'} shown${filtered ? ' (filtered)' : ''}, newest first, of ${view.total} kept`;
}

export function listPage(view: ListView): Markup {
  const { listener } = view;
  const main = html`<h1>Deliveries</h1>
    <p class="intro">
      Listening on <code>${listener.url}</code> (${listener.scheme}
      signatures)${
        listener.forwardTo.length > 0
          ? html`, forwarding to
            ${listener.forwardTo.map((url, i) => html`${i > 0 ? ', ' : ''}<code>${url}</code>`)}`
          : ''
      }.
      Kept in ${listener.keptIn}, the newest ${listener.keep.toLocaleString('en-US')}.
    </p>
    ${filters(view)}
    <p id="summary" role="status">${summaryLine(view)}</p>
    <table class="deliveries">
      <caption class="visually-hidden">
        Deliveries, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Time (UTC)</th>
          <th scope="col">Type</th>
          <th scope="col">Envelope</th>
          <th scope="col">Verdict</th>
          <th scope="col">Redelivery</th>
          <th scope="col">Forwarded</th>
        </tr>
      </thead>
      <tbody id="rows">
        ${
          view.deliveries.length > 0
            ? view.deliveries.map(row)
            : html`<tr>
                <td colspan="6" class="empty">
                  No delivery
                  ${view.total > 0 ? 'matches these filters' : html`yet: send one to <code>${listener.url}</code>`}.
                </td>
              </tr>`
        }
      </tbody>
    </table>
    <p id="older">${view.older ? html`<a href="${view.older}">Older deliveries</a>` : ''}</p>`;
  return page({ title: 'Deliveries · webhook inspector', main, live: view.query.before === undefined });
}
