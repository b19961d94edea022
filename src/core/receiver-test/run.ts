/**
 * `webhooks test`: grades a webhook receiver the way the service will treat
 * it. Each check sends its deliveries through an injected `send`, so the
 * grading runs the same against a real receiver (http-sender.ts) or a test's
 * fake; the checks themselves are in forgery-checks.ts and
 * tolerance-checks.ts. No terminal output here: the CLI draws the scorecard.
 */
import { systemClock, type Clock } from '../clock.js';
import { MAX_BODY_BYTES } from '../endpoints.js';
import { NetworkError, UsageError } from '../errors.js';
// Failures before a connection exists (refused, no such host, no connection in time): nothing there.
import { NOT_CONNECTED_CODES } from '../wire.js';
import { DEFAULT_TOLERANCE_SECONDS, DELIVERY_TIMEOUT_MS } from '../webhook-signing.js';
import { alteredBody, badSignature, staleTimestamp, wrongSecret } from './forgery-checks.js';
import type { DeliverySigner, Headers } from './signer.js';
import {
  boundedBody,
  burst,
  everyEvent,
  order,
  redelivery,
  rotation,
  unknownThings,
} from './tolerance-checks.js';
import type { Attempt, CheckId, CheckResult, CheckSpec, Kit, Scorecard } from './types.js';

export { CHECK_IDS, type Attempt, type CheckId, type CheckResult, type Scorecard } from './types.js';

/** Every check, in the order the scorecard shows them. */
export const CHECKS: readonly CheckSpec[] = [
  everyEvent,
  alteredBody,
  wrongSecret,
  badSignature,
  staleTimestamp,
  redelivery,
  rotation,
  unknownThings,
  order,
  burst,
  boundedBody,
];

export const DEFAULT_BURST = 50;

/** Sends one delivery; resolves with its answer or why there was none, never rejects for a network failure. */
export type DeliverySend = (body: string | Buffer, headers: Headers) => Promise<Omit<Attempt, 'label'>>;

export interface ReceiverTestOptions {
  url: string;
  signer: DeliverySigner;
  send: DeliverySend;
  /** Only these checks (default: all). */
  only?: readonly CheckId[];
  burst?: number;
  timeoutMs?: number;
  toleranceSeconds?: number;
  maxBodyBytes?: number;
  clock?: Clock;
  /** Told of each check as it ends (a terminal shows progress). */
  onCheck?(result: CheckResult): void;
}

/** The receiver never answered: the first delivery found nothing at the URL. */
export class ReceiverUnreachableError extends NetworkError {}

export async function testReceiver(options: ReceiverTestOptions): Promise<Scorecard> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  /** Something was reached: an answer, or a connection that failed after it was made. */
  let reached = false;
  const kit: Kit = {
    signer: options.signer,
    nowSeconds: () => Math.floor(clock.now() / 1000),
    timeoutMs,
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    burst: options.burst ?? DEFAULT_BURST,
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    async send(label, body, headers) {
      const attempt = { label, ...(await options.send(body, headers)) };
      if (!NOT_CONNECTED_CODES.has(attempt.code ?? '')) reached = true;
      else if (!reached) {
        throw new ReceiverUnreachableError(
          `could not reach ${options.url}: ${attempt.error ?? 'no answer'}`,
          attempt.code,
          { hint: 'is the receiver running on that address? Start it first, then run webhooks test' },
        );
      }
      return attempt;
    },
  };
  const wanted = new Set(options.only ?? CHECKS.map((c) => c.id));
  const chosen = CHECKS.filter((c) => wanted.has(c.id));
  // Nothing to grade is no verdict: refused before anything is sent, rather than a pass.
  if (chosen.every((spec) => spec.skip?.(kit) !== undefined)) {
    const reasons = chosen.map((spec) => `${spec.id}: ${spec.skip?.(kit) ?? 'not chosen'}`);
    throw new UsageError(`no check to run${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}`);
  }
  const checks: CheckResult[] = [];
  for (const spec of chosen) {
    const result = await runCheck(spec, kit, clock);
    checks.push(result);
    options.onCheck?.(result);
  }
  const count = (verdict: CheckResult['verdict']) => checks.filter((c) => c.verdict === verdict).length;
  return {
    url: options.url,
    scheme: options.signer.scheme,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
    ms: clock.now() - started,
    checks,
  };
}

async function runCheck(spec: CheckSpec, kit: Kit, clock: Clock): Promise<CheckResult> {
  const head = {
    id: spec.id,
    name: spec.name,
    sent: spec.sent(kit),
    expected: spec.expected(kit),
    why: spec.why,
  };
  const skip = spec.skip?.(kit);
  if (skip) return { ...head, got: `skipped: ${skip}`, verdict: 'skip', attempts: [], ms: 0 };
  const started = clock.now();
  const outcome = await spec.run(kit);
  return {
    ...head,
    got: outcome.got,
    verdict: outcome.pass ? 'pass' : 'fail',
    attempts: outcome.attempts,
    ms: clock.now() - started,
  };
}
