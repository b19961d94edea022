/**
 * What reading a PDF may cost. A signed contract is read in milliseconds; a
 * file built to exhaust readers (a /Contents of a hundred megabytes, a stream
 * that inflates to gigabytes, hundreds of megabytes of `startxref`, `xref`
 * and `obj` keywords after the signature) must end just as surely, in
 * seconds, with a verdict or a refusal. So every part of the reading counts
 * its work on one meter: bytes lexed, streams inflated, cross-reference
 * entries merged, objects visited, bytes hashed. The meter allows a fixed
 * amount plus so much per byte of the file, and refuses the file
 * (PdfLimitError) when that runs out: the work done is linear in the file's
 * size whatever its structure. Streams inflate to a bound each and in all.
 *
 * The long loops are generators (`Steps`) that yield every so much work: run
 * at once (`runSteps`, for tests and helpers), or paced (`Pace`), which gives
 * the event loop a turn every few tens of milliseconds so that Ctrl-C or a
 * SIGTERM is heard while a large file is read, and stops there.
 */
import { InterruptedError } from '../errors.js';

/** Not a PDF this verifier reads (no header, no catalog), or one it refuses to read further. */
export class NotAPdfError extends Error {
  override readonly name: string = 'NotAPdfError';
}

/** An encrypted file whose signatures cannot be read: its password was not given (or does not open it), or its handler is not the standard one. */
export class EncryptedPdfError extends NotAPdfError {
  override readonly name = 'EncryptedPdfError';
  constructor(
    message: string,
    readonly why: 'password' | 'handler',
  ) {
    super(message);
  }
}

/** A file refused because reading it would cost more than its size warrants (a compression bomb, a structure built to be slow). */
export class PdfLimitError extends NotAPdfError {
  override readonly name = 'PdfLimitError';
}

export interface PdfLimits {
  /**
   * The most a signature's /Contents may hold, decoded. A CMS signature with its certificates,
   * a timestamp and archived revocation data is a few to a few hundred KB; writers reserve
   * 8 to 64 KB. A string written in more than two (literal) or three (hex) times this is not
   * decoded at all, anywhere in the file.
   */
  contentsBytes: number;
  /** The most one stream (an object or cross-reference stream) may inflate to. */
  streamBytes: number;
  /** The most all streams may inflate to together; default: the larger of 256 MB and twice the file. */
  decodedBytes?: number;
  /** The most one object's syntax may span (its stream data and long strings not counted): larger ones are unreadable. */
  objectBytes: number;
  /** Work units allowed: `workBase + workPerByte × the file's size`, unless `work` gives the total. */
  workBase: number;
  workPerByte: number;
  work?: number;
}

const MB = 1024 * 1024;

export const DEFAULT_LIMITS: PdfLimits = {
  contentsBytes: 2 * MB,
  streamBytes: 64 * MB,
  objectBytes: 16 * MB,
  // A fixed allowance and an allowance per byte of the file (a unit is meant as about a
  // nanosecond of work, COST): whatever its structure, the work on a file is linear in its size,
  // and a signed document of a few MB needs a small part of it.
  workBase: 2_500_000_000,
  workPerByte: 40,
};

/**
 * What one thing costs, in work units: a unit is about a nanosecond of the verifier's time (as
 * measured on files made of each kind of work), so that the allowance bounds the time as well
 * as the work.
 */
export const COST = {
  /** A byte lexed (counted by the lexer's reach: what it looked at), or inflated. */
  byte: 1,
  /** A cross-reference entry read or merged into a revision's. */
  entry: 800,
  /** An object looked up in a revision, a value visited in a walk, an object compared. */
  visit: 500,
  /** A %%EOF whose startxref names a section to try (which may throw, and fail). */
  candidate: 10_000,
  /** A %%EOF looked at (its startxref found), an `obj` keyword a repair's scan looks at. */
  scanned: 1000,
  /** A byte hashed (SHA-256, SHA-512). */
  hashedByte: 2,
  /** A signature's CMS read and its signature, certificates and chain checked (about 0.2 ms). */
  signature: 200_000,
} as const;

/** Work between two chances to pause (about a millisecond of it). */
const PAUSE_EVERY = 1_000_000;

const megabytes = (n: number) =>
  n < MB ? `${Math.max(1, Math.round(n / 1024))} KB` : `${Math.round(n / MB)} MB`;

/** The work and the inflated bytes of one file's reading, against its limits. */
export class Meter {
  work = 0;
  decoded = 0;
  readonly workLimit: number;
  readonly decodedLimit: number;
  readonly limits: PdfLimits;
  private nextPause = PAUSE_EVERY;

  constructor(
    readonly size: number,
    limits: Partial<PdfLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.workLimit = this.limits.work ?? this.limits.workBase + this.limits.workPerByte * size;
    this.decodedLimit = this.limits.decodedBytes ?? Math.max(256 * MB, 2 * size);
  }

  /** Counts `units` of work; PdfLimitError once the file's allowance is spent. */
  add(units: number): void {
    this.work += units;
    if (this.work > this.workLimit) {
      throw new PdfLimitError(
        `reading it takes more work than a PDF of ${megabytes(this.size)} needs (more than ${Math.round(this.workLimit / 1e6)} million steps): its structure repeats or nests to exhaust readers; not a document this check verifies`,
      );
    }
  }

  /** How many bytes the next stream may inflate to: its own bound, or what is left of all streams'. */
  inflateLimit(): number {
    return Math.max(0, Math.min(this.limits.streamBytes, this.decodedLimit - this.decoded));
  }

  /** Counts a stream's inflated bytes. */
  inflated(bytes: number): void {
    this.decoded += bytes;
    this.add(bytes);
  }

  /** The refusal for a stream that inflated past `inflateLimit()`. */
  bomb(): PdfLimitError {
    return this.decodedLimit - this.decoded < this.limits.streamBytes
      ? new PdfLimitError(
          `its streams inflate to more than ${megabytes(this.decodedLimit)} in all (a compression bomb): not a document this check verifies`,
        )
      : new PdfLimitError(
          `a stream inflates to more than ${megabytes(this.limits.streamBytes)} (a compression bomb): not a document this check verifies`,
        );
  }

  /** True every so much work: a loop yields then, so that a paced run may pause. */
  get due(): boolean {
    if (this.work < this.nextPause) return false;
    this.nextPause = this.work + PAUSE_EVERY;
    return true;
  }
}

/** A long computation that yields, now and then, a chance to pause. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end at once. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Milliseconds on the process's monotonic clock. process.hrtime, not performance.now: the
 * `performance` global loads node:perf_hooks (a dozen modules) the first time it is read.
 */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * Runs steps, giving the event loop a turn every `sliceMs` (so a signal
 * handler runs) and stopping with InterruptedError once `signal` is aborted.
 */
export class Pace {
  private last: number;
  constructor(
    private readonly signal?: AbortSignal,
    /** Milliseconds on a monotonic clock; a test's clock that jumps makes every pause a turn. */
    private readonly monotonic: () => number = monotonicMs,
    private readonly sliceMs = 40,
  ) {
    this.last = monotonic();
  }

  /** Stops here when the signal was aborted. */
  check(): void {
    if (this.signal?.aborted)
      throw new InterruptedError('interrupted before the verification finished', { sent: false });
  }

  /** A turn for the event loop, when the last one is `sliceMs` ago. */
  async turn(): Promise<void> {
    if (this.monotonic() - this.last < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = this.monotonic();
    this.check();
  }

  async run<T>(steps: Steps<T>): Promise<T> {
    this.check();
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      await this.turn();
    }
  }
}
