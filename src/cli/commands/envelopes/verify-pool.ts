/**
 * The worker threads of an archive run: a few workers (verify-worker.ts), each verifying one file
 * at a time, handed its next file when it answers. A worker that dies on a file (an uncaught
 * error, a crash) makes that file unreadable, and another worker takes its place; the run goes
 * on. A worker that runs out of its heap on a file hands that file to `fallback` (the command's own
 * thread, whose heap is Node's default, as one file's run has it) and is replaced. A worker that
 * cannot even start is not replaced: when none is left, the files still to verify go to
 * `fallback`. Ctrl-C terminates every worker at once.
 */
import { Worker } from 'node:worker_threads';
import { InterruptedError } from '../../../core/errors.js';
import type { FileOutcome, RunSettings } from './verify-one.js';
import { unreadableJson } from './verify-text.js';
import type { FileTask, WorkerMessage } from './verify-worker.js';

/** The young generation of a worker's heap (bench/verify-archive.mjs: no slower than V8's default). */
const YOUNG_GENERATION_MB = 8;

/**
 * The most old generation a worker's heap may hold. V8 sizes a heap's growth by its bound: with
 * Node's default (about 4 GB here) it lets the heap grow to four times what was alive at the last
 * full collection, and a worker that met a large file kept a heap of 80 MB and more, growing with
 * each such file, so a run's peak memory rose with the number of files (bench/verify-archive.mjs:
 * 1.26 times for the corpus thrice, 1.66 for nine times). Under 1 GB it grows the heap by about
 * 1.6 instead: 1.12 and 1.17 times, for 10 to 15 % more CPU. A file that needs more is verified
 * on the command's own thread.
 */
export const WORKER_HEAP_MB = 1024;

interface Task extends FileTask {
  resolve: (outcome: FileOutcome) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  ready: boolean;
  task: Task | undefined;
}

export class VerifyPool {
  private readonly workers = new Set<PoolWorker>();
  private readonly queue: Task[] = [];
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Why the last worker could not start, when none can. */
  private down: string | undefined;

  constructor(
    /** The worker's script (dist/cli/verify-worker.cjs). */
    private readonly script: URL | string,
    readonly size: number,
    private readonly settings: RunSettings,
    private readonly fallback: (file: string) => Promise<FileOutcome>,
    signal: AbortSignal,
    /** The bound of each worker's old generation, MB (the tests make it small). */
    private readonly heapMb = WORKER_HEAP_MB,
  ) {
    for (let i = 0; i < size; i++) this.spawn();
    signal.addEventListener('abort', () => void this.close(new InterruptedError()), { once: true });
  }

  /** The outcome of one file; rejects with InterruptedError when the run is stopped. */
  verify(index: number, file: string): Promise<FileOutcome> {
    if (this.down !== undefined) return this.fallback(file);
    return new Promise<FileOutcome>((resolve, reject) => {
      if (this.closed) return reject(new InterruptedError());
      this.queue.push({ index, file, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates every worker; what was still in flight or queued is rejected with `error`. */
  close(error: Error = new InterruptedError()): Promise<void> {
    if (this.closing) return this.closing;
    this.closed = true;
    const workers = [...this.workers];
    this.workers.clear();
    for (const task of [...this.queue.splice(0), ...workers.flatMap((w) => (w.task ? [w.task] : []))])
      task.reject(error);
    this.closing = Promise.all(workers.map((w) => w.worker.terminate())).then(() => undefined);
    return this.closing;
  }

  private spawn(): void {
    const entry: PoolWorker = {
      worker: new Worker(this.script, {
        workerData: this.settings,
        resourceLimits: {
          // A small young generation: V8 otherwise grows it to tens of MB per thread for the
          // garbage of parsing a file, about 100 MB more resident memory a worker for no speed.
          maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
          maxOldGenerationSizeMb: this.heapMb,
        },
      }),
      ready: false,
      task: undefined,
    };
    this.workers.add(entry);
    let failure: NodeJS.ErrnoException | undefined;
    entry.worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') entry.ready = true;
      else if (entry.task?.index === message.index) {
        const task = entry.task;
        entry.task = undefined;
        task.resolve(message.outcome);
      }
      this.dispatch();
    });
    entry.worker.on('error', (error) => (failure = error));
    entry.worker.on('exit', (code) => {
      if (this.closed || !this.workers.delete(entry)) return;
      const why = failure?.message ?? `it exited with ${code}`;
      if (entry.task) {
        const { file, resolve, reject } = entry.task;
        if (failure?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
          // Too large for a worker's heap: the command's own thread has Node's whole default.
          this.fallback(file).then(resolve, reject);
        } else {
          // It died on this file: the file is unreadable, the run goes on with another worker.
          const reason = `${file}: the verifier stopped on it (${why})`;
          resolve({
            file,
            result: 'unreadable',
            reason,
            ...(this.settings.json ? { json: unreadableJson(file, reason) } : {}),
          });
        }
        this.spawn();
      } else if (entry.ready) {
        this.spawn();
      } else if (this.workers.size === 0) {
        // None could start: the rest is verified on the command's own thread.
        this.down = why;
        for (const task of this.queue.splice(0)) this.fallback(task.file).then(task.resolve, task.reject);
      }
      this.dispatch();
    });
  }

  /** Hands queued files to the workers that are ready and idle. */
  private dispatch(): void {
    for (const entry of this.workers) {
      if (this.queue.length === 0) return;
      if (!entry.ready || entry.task) continue;
      const task = this.queue.shift()!;
      entry.task = task;
      entry.worker.postMessage({ index: task.index, file: task.file } satisfies FileTask);
    }
  }
}
