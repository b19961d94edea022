/**
 * The outbox: every message the service would have sent, derived from the
 * envelopes' state rather than kept apart, so it is the same after a restart
 * and cannot disagree with the journey: an invitation when a signer is
 * notified, a reminder each sandbox day they have not acted (at most three),
 * a one-time code (by SMS or e-mail, as its method says) or an ID-app request
 * for each number or code of an identity check, and the completed copy to
 * every signer. Texts are in the envelope's locale (Arabic for `ar`, English
 * otherwise); each message says who sent it, by which channel, and until when
 * it holds (the envelope's expiry, or the code's).
 */
import { createHash } from 'node:crypto';
import { DAY_MS } from '../store/days.js';
import { codeChannel, idRequestsOf } from '../journey/id-requests.js';
import { plain } from '../../core/web/html.js';
import { messageTexts } from './outbox-words.js';
import { pageLanguage } from './strings.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

export type MessageKind = 'invitation' | 'reminder' | 'code' | 'id_request' | 'completed';

export interface OutboxMessage {
  id: string;
  envelope_id: string;
  signer_id: string | null;
  kind: MessageKind;
  /** How it went: `email`, `whatsapp`, `sms` (a code of sms_otp) or `app` (the ID app's request). */
  channel: string;
  to: string;
  /** Who sent it: the name of the API key that created the envelope. */
  from: string;
  subject: string;
  text: string;
  link: string | null;
  at: string;
  /** Until when it holds: the envelope's expiry (invitations, reminders), the code's or number's; else null. */
  expires_at: string | null;
}

/** Reminders stop after this many. */
export const MAX_REMINDERS = 3;

/** What the outbox needs to make links: the sandbox's address and each signer's page; and who sent an envelope. */
export interface OutboxLinks {
  baseUrl: string;
  signerPath(envelope: EnvelopeRecord, signer: SignerRecord): string;
  /** The name of the API key that created the envelope. */
  senderOf(envelope: EnvelopeRecord): string;
}

const messageId = (...parts: string[]): string =>
  `msg_${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24)}`;

const contactOf = (signer: SignerRecord): string =>
  String((signer.channel === 'whatsapp' ? signer.phone : signer.email) ?? signer.email ?? signer.phone ?? '');

const isoOrNull = (at: number | undefined): string | null =>
  at === undefined ? null : new Date(at).toISOString();

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
  const from = links.senderOf(envelope);
  const envelopeExpiry = timeOf(envelope.expires_at);
  const messages: OutboxMessage[] = [];
  const add = (
    signer: SignerRecord,
    kind: MessageKind,
    at: number,
    n: number,
    link: string | null,
    extra: {
      code?: string;
      channel?: string;
      to?: string;
      method?: string;
      expires?: number | undefined;
    } = {},
  ) => {
    const texts = messageTexts(lang, kind, { name: signer.name, title, link, at, ...extra });
    messages.push({
      id: messageId(envelope.id, signer.id, kind, String(n)),
      envelope_id: envelope.id,
      signer_id: signer.id,
      kind,
      channel: extra.channel ?? signer.channel,
      to: extra.to ?? (extra.channel === 'app' ? signer.name : contactOf(signer)),
      from,
      subject: texts.subject,
      text: texts.text,
      link,
      at: new Date(at).toISOString(),
      expires_at: isoOrNull(extra.expires),
    });
  };
  for (const signer of envelope.signers) {
    const link = `${links.baseUrl}${links.signerPath(envelope, signer)}`;
    const notified = timeOf(signer.notified_at);
    if (notified === undefined) continue;
    add(signer, 'invitation', notified, 0, link, { expires: envelopeExpiry });
    const until = remindedUntil(envelope, signer, now);
    for (let n = 1; n <= MAX_REMINDERS && notified + n * DAY_MS < until; n++)
      add(signer, 'reminder', notified + n * DAY_MS, n, link, { expires: envelopeExpiry });
    idRequestsOf(signer).forEach((request, n) => {
      const at = Date.parse(request.created_at);
      if (request.kind === 'code')
        add(signer, 'code', at, n, null, {
          code: request.answer,
          ...codeChannel(signer),
          expires: request.expires_at,
        });
      else
        add(signer, 'id_request', at, n, `${links.baseUrl}/_sandbox/id/${request.id}`, {
          channel: 'app',
          method: String(signer.verification),
          expires: request.expires_at,
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
