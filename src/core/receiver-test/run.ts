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
import { NOT_CONNECTED_CODES } from '../client/wire.js';
import { DEFAULT_TOLERANCE_SECONDS, DELIVERY_TIMEOUT_MS } from '../webhooks/webhook-signing.js';
import { seconds, tally } from './answers.js';
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
import type { Attempt, CheckId, CheckResult, CheckSpec, Kit, Outcome, Scorecard } from './types.js';

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

/**
 * The receiver never answered: the first delivery found nothing at the URL, or it took every
 * connection and answered no delivery at all within the answer timeout.
 */
export class ReceiverUnreachableError extends NetworkError {}

/** A check's send after one of its deliveries went unanswered: the check ends there. */
class CheckStopped extends Error {}

export async function testReceiver(options: ReceiverTestOptions): Promise<Scorecard> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  /** Something was reached: an answer, or a connection that failed after it was made. */
  let reached = false;
  /** A delivery went unanswered within the timeout: the checks not begun yet run at once. */
  let unanswered = false;
  const kit: Kit = {
    signer: options.signer,
    nowSeconds: () => Math.floor(clock.now() / 1000),
    timeoutMs,
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
    burst: options.burst ?? DEFAULT_BURST,
    maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
    async send(label, body, headers) {
      const attempt = { label, ...(await options.send(body, headers)) };
      if (attempt.timedOut) unanswered = true;
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
  const run = async (spec: CheckSpec) => {
    const result = await runCheck(spec, kit, clock);
    options.onCheck?.(result);
    return result;
  };
  // In turn, as the service's deliveries come, until one goes unanswered. A receiver that holds
  // connections without answering would then cost a timeout for every delivery (41 of them: 7
  // minutes at the service's 10 s), so each check stops at its first unanswered delivery, and
  // the checks not begun yet run at once: the run waits out at most two timeouts in all.
  for (const [index, spec] of chosen.entries()) {
    if (unanswered) {
      checks.push(...(await Promise.all(chosen.slice(index).map(run))));
      break;
    }
    checks.push(await run(spec));
  }
  const attempts = checks.flatMap((c) => c.attempts);
  // Connections taken, and not one answer of any kind: nothing to grade, as with nothing there.
  if (
    attempts.some((a) => a.timedOut) &&
    attempts.every((a) => a.timedOut || NOT_CONNECTED_CODES.has(a.code ?? ''))
  )
    throw new ReceiverUnreachableError(
      `no answer from ${options.url}: it took the connections of ${attempts.length} deliveries and answered none within ${seconds(timeoutMs)}`,
      undefined,
      {
        hint: 'a receiver must answer each delivery within the answer timeout; is the process listening there stuck, or not an HTTP server?',
      },
    );
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
  const sent: Attempt[] = [];
  let stoppedBy: Attempt | undefined;
  const own: Kit = {
    ...kit,
    async send(label, body, headers) {
      if (stoppedBy) throw new CheckStopped();
      const attempt = await kit.send(label, body, headers);
      sent.push(attempt);
      if (attempt.timedOut) stoppedBy ??= attempt;
      return attempt;
    },
  };
  let outcome: Outcome;
  try {
    outcome = await spec.run(own);
  } catch (error) {
    if (!(error instanceof CheckStopped) || !stoppedBy) throw error;
    // Unanswered: a delivery more would wait out the timeout again and say nothing new.
    const before = sent.slice(0, sent.indexOf(stoppedBy));
    outcome = {
      pass: false,
      got: [
        `${stoppedBy.label} → no answer within ${seconds(kit.timeoutMs)}`,
        ...(before.length > 0 ? [`before it ${tally(before, kit.timeoutMs)}`] : []),
        "the check's other deliveries not sent",
      ].join('; '),
      attempts: sent,
    };
  }
  return {
    ...head,
    got: outcome.got,
    verdict: outcome.pass ? 'pass' : 'fail',
    attempts: outcome.attempts,
    ms: clock.now() - started,
  };
}
