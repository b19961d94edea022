/**
 * The outbox as a page, like a mail catcher's inbox (Mailpit): every message
 * the service would have sent, newest first, with its recipient, channel,
 * text and link. Links are shown relative to the sandbox, so they open
 * wherever the page was opened from.
 */
import type { OutboxMessage } from './outbox.js';
import { escapeHtml, escapeLine, page } from './frame.js';
import { STRINGS } from './strings.js';

function relative(link: string, baseUrl: string): string {
  return link.startsWith(`${baseUrl}/`) ? link.slice(baseUrl.length) : link;
}

function article(message: OutboxMessage, baseUrl: string): string {
  const link = message.link ? relative(message.link, baseUrl) : null;
  const text = message.link ? message.text.replace(message.link, '').trim() : message.text;
  return `<article class="message" aria-labelledby="${escapeHtml(message.id)}">
<h2 id="${escapeHtml(message.id)}" dir="auto">${escapeLine(message.subject)}</h2>
<p class="meta">${escapeLine(message.at)} &middot; ${escapeLine(message.channel)} &middot; ${escapeLine(message.to)} &middot; ${escapeLine(message.kind)} &middot; ${escapeLine(message.envelope_id)}</p>
<p class="text" dir="auto">${escapeHtml(text)}</p>
${link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : ''}
</article>`;
}

export function outboxPage(messages: OutboxMessage[], baseUrl: string, self: string): string {
  const t = STRINGS.en;
  const list = [...messages].reverse();
  const main = `<h1>${escapeHtml(t.outboxTitle)}</h1><p>${escapeHtml(t.outboxIntro)}</p>${
    list.length === 0
      ? `<p role="status">${escapeHtml(t.outboxEmpty)}</p>`
      : list.map((m) => article(m, baseUrl)).join('\n')
  }`;
  return page({ lang: 'en', title: t.outboxTitle, main, poll: self });
}
