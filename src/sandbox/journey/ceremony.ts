/**
 * The signing ceremony of a manual journey: what a person does on the
 * signer's page (open, verify identity, adopt a signature, sign or decline)
 * and in the ID app, each checked against the envelope's state and recorded
 * by the journey engine exactly as the auto journey records it (same events,
 * deliveries and audit entries, one stored line per step). Adopting a
 * signature and a failed attempt that is not the last are no event: they are
 * stored with the envelope.
 */
import { TERMINAL, journeyOf, type JourneyEngine } from './journey.js';
import { answerIdRequest, canRenew, openIdRequest, startIdRequest, type IdRequest } from './id-requests.js';
import { signatureOf, type Signature, type SignatureProblem } from '../documents/signature.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

/** Where a signer stands, as their page shows it. */
export type SignerStage =
  | { stage: 'finished'; status: EnvelopeRecord['status'] }
  | { stage: 'signed' }
  | { stage: 'waiting'; for: SignerRecord | undefined }
  | { stage: 'robot' }
  | { stage: 'verify'; request?: IdRequest }
  | { stage: 'signature' }
  | { stage: 'sign'; signature: Signature };

/** The steps a signer takes, in order: the identity check when the envelope asks for one, then their signature, then signing. */
export type StepName = 'verify' | 'signature' | 'sign';

export const stepsOf = (signer: SignerRecord): StepName[] =>
  signer.verification ? ['verify', 'signature', 'sign'] : ['signature', 'sign'];

/** A person's request that the state does not allow; the page says why and changes nothing. */
export class CeremonyRefusal extends Error {
  constructor(
    readonly code:
      | 'not_now'
      | 'consent_required'
      | 'reason_required'
      | 'no_request'
      | 'bad_answer'
      | 'too_many_requests'
      | 'signature_required'
      | SignatureProblem,
  ) {
    super(code);
  }
}

const ACTING: ReadonlySet<string> = new Set(['notified', 'viewed', 'verified']);

/** The signer who has to sign before this one, in a sequential envelope. */
function earlierSigner(envelope: EnvelopeRecord, signer: SignerRecord): SignerRecord | undefined {
  if (!envelope.sequential) return undefined;
  return envelope.signers
    .filter((s) => s !== signer && s.status !== 'signed' && (s.order ?? 0) < (signer.order ?? 0))
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0))[0];
}

export function stageOf(envelope: EnvelopeRecord, signer: SignerRecord): SignerStage {
  if (TERMINAL.has(envelope.status)) return { stage: 'finished', status: envelope.status };
  if (signer.status === 'signed') return { stage: 'signed' };
  if (!ACTING.has(signer.status)) return { stage: 'waiting', for: earlierSigner(envelope, signer) };
  if (journeyOf(envelope) === 'auto') return { stage: 'robot' };
  if (signer.verification && signer.status !== 'verified') {
    const request = openIdRequest(signer);
    return request ? { stage: 'verify', request } : { stage: 'verify' };
  }
  const signature = signatureOf(signer);
  return signature ? { stage: 'sign', signature } : { stage: 'signature' };
}

/** The signer opened their page: `signer.viewed`, once, when it is their turn. */
export function viewed(engine: JourneyEngine, envelope: EnvelopeRecord, signer: SignerRecord): void {
  if (journeyOf(envelope) !== 'manual' || TERMINAL.has(envelope.status) || signer.status !== 'notified')
    return;
  engine.act(envelope, (step, at) => {
    signer.status = 'viewed';
    signer.viewed_at = new Date(at).toISOString();
    engine.record(
      envelope,
      step,
      at,
      'signer.viewed',
      `signer:${signer.id} (${signer.name})`,
      'opened the envelope',
      signer,
    );
  });
}

function mustAct(envelope: EnvelopeRecord, signer: SignerRecord, stage: SignerStage['stage']): void {
  if (journeyOf(envelope) !== 'manual' || stageOf(envelope, signer).stage !== stage)
    throw new CeremonyRefusal('not_now');
}

/**
 * Starts an identity check (the page shows its number, or a code goes to the outbox), or, with
 * `renew`, replaces the open number or code with a new one (the signer asked for it).
 */
export function beginVerification(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  renew = false,
): IdRequest {
  mustAct(envelope, signer, 'verify');
  const open = openIdRequest(signer);
  if (open && !renew) return open;
  if (!canRenew(signer)) throw new CeremonyRefusal('too_many_requests');
  let request: IdRequest | undefined;
  engine.act(envelope, (_step, at) => {
    request = startIdRequest(signer, at);
  });
  return request!;
}

/**
 * The answer to a check: a number from the ID app's page (`kind` app) or a code typed on the
 * signer's page (`kind` code), each only where it belongs, so the app's number cannot be typed
 * on the signing page. Something that is no answer at all (no number of the three, not six
 * digits) changes nothing; a wrong answer fails the check.
 */
export function answer(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  requestId: string,
  value: string,
  kind: IdRequest['kind'],
): void {
  mustAct(envelope, signer, 'verify');
  const request = openIdRequest(signer);
  if (!request || request.id !== requestId || request.kind !== kind) throw new CeremonyRefusal('no_request');
  const wellFormed = kind === 'app' ? (request.choices ?? []).includes(value) : /^\d{6}$/.test(value);
  if (!wellFormed) throw new CeremonyRefusal('bad_answer');
  engine.act(envelope, (step, at) => answerIdRequest(engine, envelope, signer, request, value, step, at));
}

/** The signer's own signature, typed or drawn, kept until they sign (and changeable until then). */
export function adoptSignature(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  signature: Signature | SignatureProblem,
): void {
  const stage = stageOf(envelope, signer).stage;
  if (journeyOf(envelope) !== 'manual' || (stage !== 'signature' && stage !== 'sign'))
    throw new CeremonyRefusal('not_now');
  if (typeof signature === 'string') throw new CeremonyRefusal(signature);
  engine.act(envelope, () => {
    signer.signature = signature;
  });
}

export function sign(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  consent: boolean,
): void {
  if (journeyOf(envelope) === 'manual' && stageOf(envelope, signer).stage === 'signature')
    throw new CeremonyRefusal('signature_required');
  mustAct(envelope, signer, 'sign');
  if (!consent) throw new CeremonyRefusal('consent_required');
  engine.act(envelope, (step, at) => engine.signOrDecline(envelope, signer, step, at, false));
}

/** The most characters of a decline reason (as of a void reason). */
export const DECLINE_REASON_MAX = 500;

export function decline(
  engine: JourneyEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  reason: string,
): void {
  if (journeyOf(envelope) !== 'manual') throw new CeremonyRefusal('not_now');
  const stage = stageOf(envelope, signer).stage;
  if (stage !== 'verify' && stage !== 'signature' && stage !== 'sign') throw new CeremonyRefusal('not_now');
  // By characters, not UTF-16 units: a cut never splits a surrogate pair.
  const text = Array.from(reason.trim()).slice(0, DECLINE_REASON_MAX).join('');
  if (!text) throw new CeremonyRefusal('reason_required');
  engine.act(envelope, (step, at) => engine.signOrDecline(envelope, signer, step, at, true, text));
}
