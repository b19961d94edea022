/**
 * The listener's observer (types.ts, DeliveryObserver) that keeps each delivery in the store:
 * numbered on from the newest kept, the secret that verified it masked, and what a refused
 * one claims to be (its body read as JSON, if it is). Called on the path deliveries are
 * answered on, so it only copies what the listener already has.
 */
import { maskKey } from '../../core/keys.js';
import type { DeliveryObserver, ForwardOutcome, ObservedDelivery } from '../types.js';
import type { Attempt, AttemptKind, DeliveryRecord, DeliveryStore } from './records.js';

/** A refused body is read for what it claims (its type, its envelope) only up to this size. */
const CLAIM_LIMIT = 64 * 1024;

function field(payload: unknown, ...path: string[]): unknown {
  let value = payload;
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The payload of a refused delivery, when its body is JSON: what it claims, unverified. */
function claimed(body: Buffer): unknown {
  if (body.length > CLAIM_LIMIT) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** What an app answered, as an attempt kept beside the delivery. */
export function attemptOf(kind: AttemptKind, outcome: ForwardOutcome, at: number): Attempt {
  return 'status' in outcome
    ? {
        kind,
        at,
        url: outcome.url,
        status: outcome.status,
        durationMs: outcome.durationMs,
        answer: outcome.body,
        error: null,
      }
    : { kind, at, url: outcome.url, status: null, durationMs: null, answer: null, error: outcome.error };
}

export class DeliveryRecorder implements DeliveryObserver {
  private readonly masked: string[];

  constructor(
    private readonly store: DeliveryStore,
    /** The listener's secrets, in the order the verifier numbers them (its secretIndex). */
    secrets: readonly string[],
    private readonly now: () => number,
  ) {
    this.masked = secrets.map((secret) => maskKey(secret));
  }

  arrived(observed: ObservedDelivery): number {
    const { verdict, event, request } = observed;
    const id = this.store.lastId + 1;
    const payload = event ? event.payload : claimed(request.body);
    const type = event ? event.type : (field(payload, 'type') ?? field(payload, 'event'));
    const record: DeliveryRecord = {
      id,
      receivedAt: observed.receivedAt,
      method: request.method,
      path: request.url,
      httpVersion: request.httpVersion,
      rawHeaders: request.rawHeaders as string[],
      body: request.body,
      verified: event !== undefined,
      answered: observed.answered ?? null,
      reason: observed.refusal ?? null,
      code: verdict.ok ? (event ? null : 'not_json') : verdict.code,
      eventId: event ? event.id : (verdict.id ?? stringOrNull(field(payload, 'id'))),
      type: stringOrNull(type),
      envelopeId: stringOrNull(field(payload, 'data', 'envelope_id')),
      delivery: event ? event.delivery : 1,
      filtered: observed.filtered === true,
      secret: verdict.ok ? (this.masked[verdict.secretIndex] ?? null) : null,
      signedAt: verdict.ok ? (verdict.timestampSeconds ?? null) : null,
      attempts: [],
    };
    this.store.add(record);
    return id;
  }

  forwarded(key: number, outcomes: readonly ForwardOutcome[], answered: number): void {
    const at = this.now();
    this.store.addAttempts(
      key,
      outcomes.map((outcome) => attemptOf('forward', outcome, at)),
      answered,
    );
  }
}
