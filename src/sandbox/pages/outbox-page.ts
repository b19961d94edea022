/**
 * The outbox as a page, like a mail catcher's inbox (Mailpit): every message the service would
 * have sent, newest first, in the language asked (`?lang=ar`; English otherwise): when it went
 * and by which channel, from whom, to whom, until when it holds, its text as sent (in the
 * envelope's language, its link whole, as the recipient got it) and the button it carries.
 */
import { channelName, humanTime } from '../documents/humanise.js';
import { page } from './frame.js';
import { html, oneLine, type Markup } from '../../core/web/html.js';
import type { OutboxMessage } from './outbox.js';
import { STRINGS, textFor, type Language } from './strings.js';

function article(message: OutboxMessage, lang: Language): Markup {
  const t = STRINGS[lang];
  const f = t.outboxFields;
  // A contact or an id isolated (bdi), so that the page's direction does not reorder it.
  const row = (label: string, value: Markup | string, isolate = false) =>
    html`<div>
      <dt>${label}</dt>
      <dd>${isolate ? html`<bdi>${value}</bdi>` : value}</dd>
    </div>`;
  const expires = message.expires_at ? humanTime(message.expires_at, lang) : undefined;
  return html`<article class="message" aria-labelledby="${message.id}">
    <h2 id="${message.id}" dir="auto">${oneLine(message.subject)}</h2>
    <dl class="meta">
      ${row(f.sent, humanTime(message.at, lang) ?? message.at)}
      ${row(f.channel, html`<span class="channel ${message.channel}">${channelName(message.channel, lang)}</span>`)}
      ${row(f.from, t.outboxSender(oneLine(message.from)))} ${row(f.to, oneLine(message.to), true)}
      ${expires && row(f.expires, expires)} ${row(f.envelope, message.envelope_id, true)}
    </dl>
    <p class="text" dir="auto">${message.text}</p>
    ${
      message.link &&
      html`<p>
        <a class="button primary" href="${message.link}"
          >${textFor(t.outboxOpen, message.kind) ?? message.link}</a
        >
      </p>`
    }
  </article>`;
}

export function outboxPage(messages: OutboxMessage[], lang: Language, self: URL): Markup {
  const t = STRINGS[lang];
  const list = [...messages].reverse();
  const main = html`<h1>${t.outboxTitle}</h1>
    <p>${t.outboxIntro}</p>
    ${list.length === 0 ? html`<p role="status">${t.outboxEmpty}</p>` : list.map((m) => article(m, lang))}`;
  const other = new URL(self);
  other.searchParams.set('lang', lang === 'ar' ? 'en' : 'ar');
  return page({
    lang,
    title: t.outboxTitle,
    main,
    switchTo: `${other.pathname}${other.search}`,
    poll: `${self.pathname}${self.search}`,
  });
}
