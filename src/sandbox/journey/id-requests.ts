/**
 * Identity checks of a manual journey, as the national digital identity
 * services run them (UAE PASS, Nafath): the signer's page shows a number, the
 * person's phone app (the sandbox's page at /_sandbox/id/<request>) offers
 * three, and choosing the one shown verifies. A wrong choice fails the check;
 * no answer within ID_REQUEST_MS (sandbox time, so `--speed` scales it)
 * expires it. One-time-code methods (`sms_otp`, `email_otp`) send a code to
 * the signer's channel instead (a message in the outbox), typed on the page.
 *
 * Each outcome is the same event as in the auto journey (`signer.verified`,
 * or `signer.verification_failed` and `envelope.failed`), with the reason in
 * the event (`wrong_number`, `wrong_code`, `expired`).
 */
import { randomInt } from 'node:crypto';
import { randomBase62 } from '../ids.js';
import type { EventRecorder as JourneyEngine, Step } from './journey-shape.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

/** How long an identity check waits for its answer, in sandbox time. */
export const ID_REQUEST_MS = 120_000;

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
  outcome?: 'verified' | 'wrong' | 'expired';
}

export const idRequestsOf = (signer: SignerRecord): IdRequest[] =>
  Array.isArray(signer.id_requests) ? (signer.id_requests as IdRequest[]) : [];

/** The request still waiting for its answer, if any. */
export const openIdRequest = (signer: SignerRecord): IdRequest | undefined =>
  idRequestsOf(signer).find((r) => r.outcome === undefined);

export const isCodeMethod = (method: string): boolean => CODE_METHODS.has(method);

function twoDigitChoices(): { answer: string; choices: string[] } {
  const numbers = new Set<number>();
  while (numbers.size < 3) numbers.add(randomInt(10, 100));
  const choices = [...numbers].map(String);
  return { answer: choices[randomInt(0, 3)]!, choices };
}

/** A new check for the signer (an open one is replaced by nothing: the caller checks there is none). */
export function startIdRequest(signer: SignerRecord, at: number): IdRequest {
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

/** The person's answer: the right one verifies the signer, any other fails the check. */
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
      `identity verified with ${String(signer.verification)}`,
      signer,
    );
    return;
  }
  request.outcome = 'wrong';
  const wrong = request.kind === 'app' ? 'wrong_number' : 'wrong_code';
  const why = request.kind === 'app' ? 'a wrong number was chosen in the app' : 'a wrong code was typed';
  failVerification(engine, envelope, signer, step, at, why, wrong);
}

/** The engine's timer for a signer of a manual journey: an open check whose time ran out. */
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
  failVerification(
    engine,
    envelope,
    signer,
    step,
    request.expires_at,
    'the check was not answered in time',
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
