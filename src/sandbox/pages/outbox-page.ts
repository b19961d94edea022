/**
 * The outbox as a page, like a mail catcher's inbox (Mailpit): every message
 * the service would have sent, newest first, with its recipient, channel,
 * text and link. Links are shown relative to the sandbox, so they open
 * wherever the page was opened from.
 */
import { page } from './frame.js';
import { html, oneLine, type Markup } from '../../core/web/html.js';
import type { OutboxMessage } from './outbox.js';
import { STRINGS } from './strings.js';

function relative(link: string, baseUrl: string): string {
  return link.startsWith(`${baseUrl}/`) ? link.slice(baseUrl.length) : link;
}

function article(message: OutboxMessage, baseUrl: string): Markup {
  const link = message.link ? relative(message.link, baseUrl) : null;
  const text = message.link ? message.text.replace(message.link, '').trim() : message.text;
  const meta = [message.at, message.channel, message.to, message.kind, message.envelope_id].map(oneLine);
  return html`<article class="message" aria-labelledby="${message.id}">
    <h2 id="${message.id}" dir="auto">${oneLine(message.subject)}</h2>
    <p class="meta">${meta.join(' \u00b7 ')}</p>
    <p class="text" dir="auto">${text}</p>
    ${link && html`<p><a href="${link}">${link}</a></p>`}
  </article>`;
}

export function outboxPage(messages: OutboxMessage[], baseUrl: string, self: string): Markup {
  const t = STRINGS.en;
  const list = [...messages].reverse();
  const main = html`<h1>${t.outboxTitle}</h1>
    <p>${t.outboxIntro}</p>
    ${
      list.length === 0 ? html`<p role="status">${t.outboxEmpty}</p>` : list.map((m) => article(m, baseUrl))
    }`;
  return page({ lang: 'en', title: t.outboxTitle, main, poll: self });
}
