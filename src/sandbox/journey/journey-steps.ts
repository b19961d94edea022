/**
 * The steps of a journey that happen by themselves, on the sandbox clock: in
 * the automatic journey every signer's next step (notified, viewed, verified,
 * signed, or a magic contact's other path); in a manual one, a person's
 * identity check running out of time. journey.ts schedules them and stores
 * what they record.
 */
import { expireIdRequest, failVerification } from './id-requests.js';
import { magicBehaviour } from './magic.js';
import type { Step, StepEngine } from './journey-shape.js';
import type { EnvelopeRecord, SignerRecord } from '../store/records.js';

/** Sandbox-time delays between steps (ms); at speed 1 a two-signer journey takes a few seconds. */
export const STEP_DELAYS_MS = { notify: 500, view: 1000, verify: 800, sign: 1000 } as const;

/**
 * `auto`: the sandbox's signers walk the journey by themselves at `--speed`.
 * `manual`: each signer is notified (a message in the outbox) and then waits
 * for a person on the signer's page (ceremony.ts); only an identity check
 * left unanswered moves on by itself (it expires).
 */
export type JourneyMode = 'auto' | 'manual';

/** The journey an envelope was created under: kept with it, so a restart in the other mode does not change it. */
export const journeyOf = (envelope: EnvelopeRecord): JourneyMode =>
  envelope.journey === 'manual' ? 'manual' : 'auto';

const iso = (ms: number): string => new Date(ms).toISOString();

/** One step of one signer: the automatic journey's, or the expiry of a person's identity check. */
export function advance(
  engine: StepEngine,
  envelope: EnvelopeRecord,
  signer: SignerRecord,
  step: Step,
): void {
  const at = signer.next_at!;
  const actor = `signer:${signer.id} (${signer.name})`;
  // People decide in a manual journey: the magic contact values are for the robots of the auto one.
  const manual = journeyOf(envelope) === 'manual';
  const magic = manual ? undefined : magicBehaviour(signer);
  const contact = signer.channel === 'whatsapp' ? signer.phone : signer.email;
  if (manual && signer.status !== 'pending') {
    // The one timer of a person's step: an identity check left unanswered.
    expireIdRequest(engine, envelope, signer, step, at);
    return;
  }
  switch (signer.status) {
    case 'pending':
      signer.status = 'notified';
      signer.notified_at = iso(at);
      signer.next_at = magic === 'never_view' || manual ? null : at + STEP_DELAYS_MS.view;
      engine.record(
        envelope,
        step,
        at,
        'signer.notified',
        'system',
        `notified by ${signer.channel}${contact ? ` at ${contact}` : ''}`,
        signer,
      );
      return;
    case 'notified':
      signer.status = 'viewed';
      signer.viewed_at = iso(at);
      signer.next_at = at + (signer.verification ? STEP_DELAYS_MS.verify : STEP_DELAYS_MS.sign);
      engine.record(envelope, step, at, 'signer.viewed', actor, 'opened the envelope', signer);
      return;
    case 'viewed':
      if (signer.verification) {
        if (magic === 'fail_verification') {
          failVerification(engine, envelope, signer, step, at);
          return;
        }
        signer.status = 'verified';
        signer.verified_at = iso(at);
        signer.next_at = at + STEP_DELAYS_MS.sign;
        engine.record(
          envelope,
          step,
          at,
          'signer.verified',
          actor,
          `identity verified with ${signer.verification}`,
          signer,
        );
        return;
      }
      engine.signOrDecline(envelope, signer, step, at, magic === 'decline');
      return;
    case 'verified':
      engine.signOrDecline(envelope, signer, step, at, magic === 'decline');
      return;
    default:
      signer.next_at = null;
  }
}
