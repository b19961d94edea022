/** The shapes `webhooks test` works with: one delivery sent, one check's verdict, the scorecard. */
import type { DeliverySigner, Headers } from './signer.js';

/** What came back for one delivery: an HTTP status, or why there was none. */
export interface Attempt {
  /** What was sent, in a few words (`signer.signed`, `no signature headers`). */
  label: string;
  status?: number;
  /** From the first byte sent to the answer's status line (or to the failure). */
  ms: number;
  /** No answer: what went wrong (`connect ECONNREFUSED 127.0.0.1:3000`, `ECONNRESET: other side closed`). */
  error?: string;
  /** No answer: the error's code (`ECONNREFUSED`), when it has one. */
  code?: string;
  /** No answer within the service's delivery timeout. */
  timedOut?: boolean;
}

export type Verdict = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: CheckId;
  name: string;
  sent: string;
  expected: string;
  /** What came back, in one line. */
  got: string;
  verdict: Verdict;
  /** Why a receiver should pass it: what goes wrong when it does not. */
  why: string;
  attempts: Attempt[];
  ms: number;
}

export interface Scorecard {
  url: string;
  scheme: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  checks: CheckResult[];
}

export const CHECK_IDS = [
  'accepts-events',
  'rejects-altered-body',
  'rejects-wrong-secret',
  'rejects-bad-signature',
  'rejects-stale-timestamp',
  'tolerates-redelivery',
  'survives-rotation',
  'ignores-unknown',
  'tolerates-order',
  'answers-burst',
  'bounded-body',
] as const;
export type CheckId = (typeof CHECK_IDS)[number];

/** What a check is given: the signer, the clock, and a way to send. */
export interface Kit {
  signer: DeliverySigner;
  /** Unix seconds now (the clock the receiver compares webhook-timestamp with). */
  nowSeconds(): number;
  /** Sends one delivery and waits for its answer (at most the timeout). */
  send(label: string, body: string | Buffer, headers: Headers): Promise<Attempt>;
  timeoutMs: number;
  /** Seconds a signed timestamp may be off; 0 when the receiver is not expected to check it. */
  toleranceSeconds: number;
  /** Deliveries sent at once by the burst check. */
  burst: number;
  /** The largest body the service sends; the bounded-body check sends more. */
  maxBodyBytes: number;
}

export interface Outcome {
  pass: boolean;
  got: string;
  attempts: Attempt[];
}

export interface CheckSpec {
  id: CheckId;
  name: string;
  sent(kit: Kit): string;
  expected(kit: Kit): string;
  why: string;
  /** Why the check does not apply to this receiver (a scheme with no timestamp), or undefined. */
  skip?(kit: Kit): string | undefined;
  run(kit: Kit): Promise<Outcome>;
}
