/**
 * Identity checks of a manual journey, as the national digital identity
 * services run them (UAE PASS, Nafath): the signer's page shows a number, the
 * person's phone app (the sandbox's page at /_sandbox/id/<request>) offers
 * three, and choosing the one shown verifies. One-time-code methods (`sms_otp`,
 * `email_otp`) send a code instead (a message in the outbox: by SMS to the signer's phone, by
 * e-mail to their address), typed on the page.
 *
 * A check allows MAX_ATTEMPTS failures, as identity services and signing services do: a wrong
 * number chosen (that request ends; the page offers another), a wrong code typed (the code
 * stays good until it expires), or a request left unanswered for ID_REQUEST_MS of sandbox time
 * (`--speed` scales it). A new code or number can be asked for (up to MAX_REQUESTS in one
 * check). Only the last failure fails the check.
 *
 * Each outcome is the same event as in the auto journey (`signer.verified`, or
 * `signer.verification_failed` and `envelope.failed`), with the reason of the last failure in
 * the event (`wrong_number`, `wrong_code`, `expired`); the failures before it make no event.
 */
import { randomInt } from 'node:crypto';
import { randomBase62 } from '../ids.js';
import type { EventRecorder as JourneyEngine, Step } from './journey-shape.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

/** How long a number or a code waits for its answer, in sandbox time. */
export const ID_REQUEST_MS = 120_000;

/** Failures a check allows: the last of them fails it. */
export const MAX_ATTEMPTS = 3;

/** Numbers or codes one check may send (the first included): a new one is asked for, not farmed. */
export const MAX_REQUESTS = 6;

/** Methods checked with a code sent to the signer's channel; any other method is an app check. */
const CODE_METHODS: ReadonlySet<string> = new Set(['sms_otp', 'email_otp']);

export interface IdRequest {
  /** `idr_` and 22 base62 characters (over 128 random bits): the ID app's page is reached by it. */
  id: string;
  kind: 'app' | 'code';
  /** The number the page shows (app) or the code sent (code). */
  answer: string;
  /** The three numbers the app offers, the answer among them (app only). */
  choices?: string[];
  created_at: string;
  /** Sandbox time (ms) after which an unanswered request has expired. */
  expires_at: number;
  /** Wrong answers it was given (a code may be typed again; an app request ends at its first). */
  wrong?: number;
  /** How it ended: answered, wrongly answered, unanswered in time, or replaced by a new one the signer asked for. */
  outcome?: 'verified' | 'wrong' | 'expired' | 'replaced';
}

export const idRequestsOf = (signer: SignerRecord): IdRequest[] =>
  Array.isArray(signer.id_requests) ? (signer.id_requests as IdRequest[]) : [];

/** The request still waiting for its answer, if any. */
export const openIdRequest = (signer: SignerRecord): IdRequest | undefined =>
  idRequestsOf(signer).find((r) => r.outcome === undefined);

export const isCodeMethod = (method: string): boolean => CODE_METHODS.has(method);

/** The failures of the signer's check so far: wrong answers and requests left to expire. */
export function failuresOf(signer: SignerRecord): number {
  return idRequestsOf(signer).reduce(
    // Requests from before attempts were counted ended at their one wrong answer.
    (sum, r) => sum + (r.wrong ?? (r.outcome === 'wrong' ? 1 : 0)) + (r.outcome === 'expired' ? 1 : 0),
    0,
  );
}

/** Failures the check still allows before the one that fails it. */
export const attemptsLeft = (signer: SignerRecord): number => Math.max(0, MAX_ATTEMPTS - failuresOf(signer));

/** Whether the signer may ask for another number or code. */
export const canRenew = (signer: SignerRecord): boolean => idRequestsOf(signer).length < MAX_REQUESTS;

/**
 * How a code reaches the signer: `sms_otp` by SMS to their phone, `email_otp` by e-mail to their
 * address; a signer without that contact gets it on their own channel.
 */
export function codeChannel(signer: SignerRecord): { channel: string; to: string } {
  if (signer.verification === 'sms_otp' && signer.phone) return { channel: 'sms', to: signer.phone };
  if (signer.verification === 'email_otp' && signer.email) return { channel: 'email', to: signer.email };
  const to = signer.channel === 'whatsapp' ? signer.phone : signer.email;
  return { channel: signer.channel, to: to ?? signer.email ?? signer.phone ?? '' };
}

function twoDigitChoices(): { answer: string; choices: string[] } {
  const numbers = new Set<number>();
  while (numbers.size < 3) numbers.add(randomInt(10, 100));
  const choices = [...numbers].map(String);
  return { answer: choices[randomInt(0, 3)]!, choices };
}

/** A new number or code for the signer; an open one is replaced (the caller checks MAX_REQUESTS). */
export function startIdRequest(signer: SignerRecord, at: number): IdRequest {
  const open = openIdRequest(signer);
  if (open) open.outcome = 'replaced';
  const kind = isCodeMethod(signer.verification ?? '') ? 'code' : 'app';
  const request: IdRequest = {
    id: `idr_${randomBase62(22)}`,
    kind,
    ...(kind === 'app' ? twoDigitChoices() : { answer: String(randomInt(0, 1_000_000)).padStart(6, '0') }),
    created_at: new Date(at).toISOString(),
    expires_at: at + ID_REQUEST_MS,
  };
  signer.id_requests = [...idRequestsOf(signer), request];
  signer.next_at = request.expires_at;
  return request;
}

const actorOf = (signer: SignerRecord): string => `signer:${signer.id} (${signer.name})`;

/**
 * The check failed: the signer's event, then the envelope's. The auto
 * journey's magic contact fails with no why or reason; a person's check says
 * which (`wrong_number`, `wrong_code`, `expired`).
 */
export function failVerification(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  step: Step,
  at: number,
  why?: string,
  reason?: string,
): void {
  signer.status = 'verification_failed';
  signer.next_at = null;
  engine.record(
    envelope,
    step,
    at,
    'signer.verification_failed',
    actorOf(signer),
    `identity verification with ${String(signer.verification)} failed${why ? `: ${why}` : ''}`,
    signer,
    reason,
  );
  engine.finish(
    envelope,
    step,
    at,
    'failed',
    'envelope.failed',
    `signer ${signer.name} failed identity verification`,
    'verification_failed',
  );
}

/**
 * The person's answer: the right one verifies the signer; a wrong one is a failure, which fails
 * the check when it is the last the check allows.
 */
export function answerIdRequest(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  request: IdRequest,
  answer: string,
  step: Step,
  at: number,
): void {
  if (answer === request.answer) {
    const failed = failuresOf(signer);
    request.outcome = 'verified';
    signer.status = 'verified';
    signer.verified_at = new Date(at).toISOString();
    signer.next_at = null;
    engine.record(
      envelope,
      step,
      at,
      'signer.verified',
      actorOf(signer),
      `identity verified with ${String(signer.verification)}${failed > 0 ? ` after ${failed} failed attempt${failed === 1 ? '' : 's'}` : ''}`,
      signer,
    );
    return;
  }
  request.wrong = (request.wrong ?? 0) + 1;
  // An app's request ends at a wrong choice (the page shows a new number); a code stays good until it expires.
  if (request.kind === 'app') request.outcome = 'wrong';
  if (failuresOf(signer) < MAX_ATTEMPTS) {
    if (request.kind === 'app') signer.next_at = null;
    return;
  }
  request.outcome = 'wrong';
  const wrong = request.kind === 'app' ? 'wrong_number' : 'wrong_code';
  const why =
    request.kind === 'app'
      ? `a wrong number was chosen in the app (${MAX_ATTEMPTS} failed attempts)`
      : `a wrong code was typed (${MAX_ATTEMPTS} failed attempts)`;
  failVerification(engine, envelope, signer, step, at, why, wrong);
}

/** The engine's timer for a signer of a manual journey: an open request whose time ran out. */
export function expireIdRequest(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  step: Step,
  at: number,
): void {
  const request = openIdRequest(signer);
  signer.next_at = null;
  if (!request || request.expires_at > at) {
    if (request) signer.next_at = request.expires_at;
    return;
  }
  request.outcome = 'expired';
  // Not the last failure: the signer asks for a new number or code on their page.
  if (failuresOf(signer) < MAX_ATTEMPTS) return;
  failVerification(
    engine,
    envelope,
    signer,
    step,
    request.expires_at,
    `the check was not answered in time (${MAX_ATTEMPTS} failed attempts)`,
    'expired',
  );
}

/** The envelope, signer and request of a request id (the ID app's page is reached by it alone). */
export function findIdRequest(
  store: { envelopes: Map<string, EnvelopeRecord> },
  id: string,
): { envelope: EnvelopeRecord; signer: SignerRecord; request: IdRequest } | undefined {
  if (!/^idr_[A-Za-z0-9]{22}$/.test(id)) return undefined;
  for (const envelope of store.envelopes.values())
    for (const signer of envelope.signers) {
      const request = idRequestsOf(signer).find((r) => r.id === id);
      if (request) return { envelope, signer, request };
    }
  return undefined;
}
