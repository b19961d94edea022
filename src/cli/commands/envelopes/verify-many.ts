/**
 * `envelopes verify <file|dir>...` over many files in one process: the files of every argument
 * (input/pdf-tree.ts: directories walked to their `*.pdf`, links not followed out of them), each
 * read and verified on its own (verify-one.ts), by worker threads (verify-pool.ts: one per eight
 * files, up to one per core and four) or on the command's own thread (fewer files, or no worker
 * script to start: from the sources, in the single executable), then reported in the order found:
 * its --json line, or a row of the summary when it does not verify (verify-report.ts). Exit 0 when
 * every file verifies, 1 when any does not, 2 when none could be read; Ctrl-C stops the run (130)
 * after the summary of what was done.
 *
 * Memory stays flat in the number of files: a worker reads one file at a time with a bounded heap
 * (verify-pool.ts), a verdict is dropped once its line is written, and at most WINDOW files are
 * verified ahead of the first one not yet reported. What is kept per file is its path and, for one
 * that fails, its reason.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { InterruptedError, UsageError } from '../../../core/errors.js';
import type { CommandContext } from '../../context.js';
import { ExitCode } from '../../exit-codes.js';
import { pdfTree, type PdfEntry } from '../../input/pdf-tree.js';
import { verifySettings, type VerifyFlags } from './verify-flags.js';
import type { FileOutcome, RunSettings } from './verify-one.js';
import { counted, printSummary, RunProgress, type RunCounts } from './verify-report.js';
import { unreadableJson } from './verify-text.js';

/**
 * The most worker threads a run starts, however many cores: each holds a heap and a compiled
 * verifier of its own (tens of MB); SIGN_VERIFY_THREADS asks for more.
 */
const MAX_THREADS = 4;

/**
 * The files a worker must have ahead of it to pay for itself: starting one costs about 40 ms of
 * CPU (its script compiled, the verifier's first files run cold), what verifying four typical
 * signed files costs.
 */
const FILES_PER_WORKER = 8;

/** The environment variable that sets the number of worker threads (0: the command's own thread). */
export const THREADS_VARIABLE = 'SIGN_VERIFY_THREADS';

/**
 * How many worker threads (0: none, the files are verified on the command's own thread):
 * SIGN_VERIFY_THREADS, else one per FILES_PER_WORKER files up to one per core and MAX_THREADS,
 * none for fewer files than that; never more than the files.
 */
export function threadCount(env: NodeJS.ProcessEnv, files: number, cores = availableParallelism()): number {
  const given = env[THREADS_VARIABLE]?.trim();
  if (given) {
    const value = /^\d+$/.test(given) ? Number(given) : Number.NaN;
    if (!Number.isSafeInteger(value) || value > 64)
      throw new UsageError(`${THREADS_VARIABLE}=${given}: not a number of threads from 0 to 64`, {
        hint: `unset it for one per core (at most ${MAX_THREADS}), or give 0 to verify on the command's own thread`,
      });
    return Math.min(value, files);
  }
  return Math.min(Math.floor(files / FILES_PER_WORKER), cores, MAX_THREADS);
}

/**
 * The worker's script, beside the bundle's chunks (dist/cli/verify-worker.cjs): none from the
 * sources (tests run them in process) nor in a single executable, whose chunks are not files.
 */
function workerScript(): URL | undefined {
  const script = new URL('./verify-worker.cjs', import.meta.url);
  return script.protocol === 'file:' && existsSync(script) ? script : undefined;
}

/** What verifies a file: the pool's workers or the command's own thread. */
type Verify = (index: number, file: string) => Promise<FileOutcome>;

export async function verifyMany(ctx: CommandContext, options: VerifyFlags, args: string[]): Promise<number> {
  if (options.envelope !== undefined)
    throw new UsageError(
      `--envelope checks one file against its envelope's audit trail: give one file, not ${args.length > 1 ? `${args.length} arguments` : 'a directory'}`,
      { hint: 'run `sign-cli envelopes verify <file.pdf> --envelope <id>` for each signed copy' },
    );
  // The workers verify offline: they carry the verifier only, no HTTP client.
  if (options.online)
    throw new UsageError(
      `--online fetches revocation data for one file: give one file, not ${args.length > 1 ? `${args.length} arguments` : 'a directory'}`,
      {
        hint: 'verify the archive offline, then `sign-cli envelopes verify <file.pdf> --online` for a file whose status is unknown',
      },
    );
  const flags = await verifySettings(options);
  const { output } = ctx;
  const signal = ctx.signal;
  const progress = new RunProgress(output, ctx.io.clock);
  progress.looking();
  let tree;
  try {
    tree = await pdfTree(args, signal);
  } finally {
    progress.done();
  }
  if (tree.linksOut.length > 0)
    output.info(
      `skipped ${tree.linksOut.length} link${tree.linksOut.length === 1 ? '' : 's'} leading out of the directories given, not followed (name ${tree.linksOut.length === 1 ? 'its file' : 'their files'} to verify ${tree.linksOut.length === 1 ? 'it' : 'them'}): ${tree.linksOut.slice(0, 3).join(', ')}${tree.linksOut.length > 3 ? ', …' : ''}`,
    );
  const { entries } = tree;
  if (entries.length === 0)
    throw new UsageError(`nothing to verify: no *.pdf in ${args.join(', ')}`, {
      hint: 'give signed PDFs, or directories that hold them',
    });
  const settings: RunSettings = {
    trusted: flags.trusted,
    ...(flags.at ? { at: flags.at } : {}),
    ...(flags.password !== undefined ? { password: flags.password } : {}),
    allowWeak: flags.allowWeak,
    maxBytes: flags.maxBytes,
    now: ctx.io.clock.now(),
    json: output.json,
    revocation: flags.revocation,
  };
  const toRead = entries.filter((e) => e.unreadable === undefined).length;
  const threads = threadCount(ctx.env, toRead);
  const script = threads > 0 ? workerScript() : undefined;
  const onThread: Verify = async (_index, file) =>
    (await import('./verify-one.js')).verifyOne(file, settings, signal);
  let pool: import('./verify-pool.js').VerifyPool | undefined;
  if (script) {
    const { VerifyPool } = await import('./verify-pool.js');
    pool = new VerifyPool(script, threads, settings, (file) => onThread(0, file), signal);
  }
  const verify: Verify = pool ? (index, file) => pool.verify(index, file) : onThread;
  const files = `${toRead} file${toRead === 1 ? '' : 's'}`;
  output.trace(
    pool
      ? `verifying ${files} on ${pool.size} worker thread${pool.size === 1 ? '' : 's'}`
      : threads > 0
        ? `verifying ${files} on the command's own thread (no worker script beside it)`
        : `verifying ${files} on the command's own thread (too few for a worker to pay for its start, or ${THREADS_VARIABLE}=0)`,
  );
  const counts: RunCounts = { total: entries.length, valid: 0, invalid: 0, unreadable: 0 };
  const failed: Pick<FileOutcome, 'file' | 'result' | 'reason'>[] = [];
  progress.update(counts);
  const report = (outcome: FileOutcome) => {
    counts[outcome.result]++;
    if (outcome.result !== 'valid')
      failed.push({ file: outcome.file, result: outcome.result, reason: outcome.reason });
    if (outcome.json !== undefined) output.jsonLineText(outcome.json);
    progress.update(counts, outcome.file);
  };
  let interrupted = false;
  try {
    await inOrder(entries, pool ? pool.size : 1, verify, settings.json, report, signal);
  } catch (error) {
    if (!(error instanceof InterruptedError)) throw error;
    interrupted = true;
  } finally {
    progress.done();
    await pool?.close();
  }
  await printSummary(ctx, counts, failed, interrupted);
  if (!interrupted && failed.some((f) => f.reason.includes('certificate chain: not to a trusted root')))
    output.info(
      "hint: if you trust the issuer, pass its CA certificate with --trust <ca.pem> (the sandbox's is served at <base-url>/_sandbox/ca.pem)",
    );
  if (interrupted) return ExitCode.interrupted;
  if (counts.unreadable === counted(counts)) return ExitCode.usage;
  return counts.valid === counts.total ? ExitCode.ok : ExitCode.failed;
}

/** Files verified ahead of the first one not yet reported, per slot: bounds what waits to be reported. */
const WINDOW_PER_SLOT = 4;

/**
 * Verifies the entries with up to `slots` at a time and reports each outcome in the entries'
 * order, as soon as every one before it is reported. Rejects with InterruptedError at Ctrl-C,
 * having reported what came before.
 */
function inOrder(
  entries: readonly PdfEntry[],
  slots: number,
  verify: Verify,
  json: boolean,
  report: (outcome: FileOutcome) => void,
  signal: AbortSignal,
): Promise<void> {
  const window = slots * WINDOW_PER_SLOT;
  const done = new Map<number, FileOutcome>();
  let next = 0;
  let reported = 0;
  let running = 0;
  return new Promise<void>((resolve, reject) => {
    const stop = () => reject(new InterruptedError());
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    const finish = (error?: Error) => {
      signal.removeEventListener('abort', stop);
      if (error === undefined) resolve();
      else reject(error);
    };
    const flush = () => {
      for (let outcome = done.get(reported); outcome; outcome = done.get(reported)) {
        done.delete(reported++);
        report(outcome);
      }
    };
    const fill = (): void => {
      for (;;) {
        if (signal.aborted) return;
        const before = next + reported;
        while (next < entries.length && running < slots && next < reported + window) {
          const index = next++;
          const { path, unreadable } = entries[index]!;
          if (unreadable !== undefined) {
            done.set(index, {
              file: path,
              result: 'unreadable',
              reason: unreadable,
              ...(json ? { json: unreadableJson(path, unreadable) } : {}),
            });
            continue;
          }
          running++;
          verify(index, path)
            .then((outcome) => {
              running--;
              done.set(index, outcome);
              fill();
            })
            // A file's failure is its outcome: what arrives here ends the run (Ctrl-C, a write that failed).
            .catch(finish);
        }
        flush();
        if (reported === entries.length) return finish();
        // Nothing more to hand out until a file in flight is done.
        if (next + reported === before) return;
      }
    };
    fill();
  });
}
