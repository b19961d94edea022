/**
 * The outbox: every message the service would have sent, derived from the
 * envelopes' state rather than kept apart, so it is the same after a restart
 * and cannot disagree with the journey: an invitation when a signer is
 * notified, a reminder each sandbox day they have not acted (at most three),
 * a one-time code or an ID-app request for each identity check, and the
 * completed copy to every signer. Texts are in the envelope's locale (Arabic
 * for `ar`, English otherwise).
 */
import { createHash } from 'node:crypto';
import { DAY_MS } from '../store/days.js';
import { idRequestsOf } from '../journey/id-requests.js';
import { plain } from '../../core/web/html.js';
import { messageTexts, pageLanguage } from './strings.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

export type MessageKind = 'invitation' | 'reminder' | 'code' | 'id_request' | 'completed';

export interface OutboxMessage {
  id: string;
  envelope_id: string;
  signer_id: string | null;
  kind: MessageKind;
  channel: string;
  to: string;
  subject: string;
  text: string;
  link: string | null;
  at: string;
}

/** Reminders stop after this many. */
export const MAX_REMINDERS = 3;

/** What the outbox needs to make links: the sandbox's address and each signer's page. */
export interface OutboxLinks {
  baseUrl: string;
  signerPath(envelope: EnvelopeRecord, signer: SignerRecord): string;
}

const messageId = (...parts: string[]): string =>
  `msg_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24)}`;

const contactOf = (signer: SignerRecord): string =>
  String((signer.channel === 'whatsapp' ? signer.phone : signer.email) ?? signer.email ?? signer.phone ?? '');

const timeOf = (value: unknown): number | undefined =>
  typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? Date.parse(value) : undefined;

/** When the signer stopped needing reminders: their own last step, or the envelope's end. */
function remindedUntil(envelope: EnvelopeRecord, signer: SignerRecord, now: number): number {
  const ends = [now, timeOf(signer.signed_at), timeOf(signer.declined_at), timeOf(envelope.finished_at)];
  if (signer.status === 'verification_failed') ends.push(timeOf(envelope.finished_at));
  return Math.min(...ends.filter((t): t is number => t !== undefined));
}

export function envelopeMessages(envelope: EnvelopeRecord, links: OutboxLinks, now: number): OutboxMessage[] {
  const lang = pageLanguage(envelope.locale);
  const title = plain(envelope.title);
  const messages: OutboxMessage[] = [];
  const add = (
    signer: SignerRecord,
    kind: MessageKind,
    at: number,
    n: number,
    link: string | null,
    extra: { code?: string; channel?: string; method?: string } = {},
  ) => {
    const texts = messageTexts(lang, kind, { name: signer.name, title, link, ...extra });
    messages.push({
      id: messageId(envelope.id, signer.id, kind, String(n)),
      envelope_id: envelope.id,
      signer_id: signer.id,
      kind,
      channel: extra.channel ?? signer.channel,
      to: extra.channel === 'app' ? signer.name : contactOf(signer),
      subject: texts.subject,
      text: texts.text,
      link,
      at: new Date(at).toISOString(),
    });
  };
  for (const signer of envelope.signers) {
    const link = `${links.baseUrl}${links.signerPath(envelope, signer)}`;
    const notified = timeOf(signer.notified_at);
    if (notified === undefined) continue;
    add(signer, 'invitation', notified, 0, link);
    const until = remindedUntil(envelope, signer, now);
    for (let n = 1; n <= MAX_REMINDERS && notified + n * DAY_MS < until; n++)
      add(signer, 'reminder', notified + n * DAY_MS, n, link);
    idRequestsOf(signer).forEach((request, n) => {
      const at = Date.parse(request.created_at);
      if (request.kind === 'code') add(signer, 'code', at, n, null, { code: request.answer });
      else
        add(signer, 'id_request', at, n, `${links.baseUrl}/_sandbox/id/${request.id}`, {
          channel: 'app',
          method: String(signer.verification),
        });
    });
    const completed = timeOf(envelope.completed_at);
    if (envelope.status === 'completed' && completed !== undefined)
      add(signer, 'completed', completed, 0, link);
  }
  return messages;
}

/** Every message of the given envelopes, oldest first (ties: in the order they were made). */
export function outbox(
  envelopes: Iterable<EnvelopeRecord>,
  links: OutboxLinks,
  now: number,
): OutboxMessage[] {
  const all: OutboxMessage[] = [];
  for (const envelope of envelopes) all.push(...envelopeMessages(envelope, links, now));
  return all
    .map((message, i) => ({ message, i }))
    .sort((a, b) => a.message.at.localeCompare(b.message.at) || a.i - b.i)
    .map(({ message }) => message);
}
