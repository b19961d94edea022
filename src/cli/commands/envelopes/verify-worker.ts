/**
 * A worker thread of an archive run (verify-pool.ts): it loads the verifier and the reader of a
 * PDF only (verify-one.ts), says it is ready, then verifies the files it is handed, one at a time
 * (the pool hands a worker its next file only once it has answered), each into its outcome.
 * Built on its own entry (dist/cli/verify-worker.cjs); its run settings come as workerData.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { verifyOne, type FileOutcome, type RunSettings } from './verify-one.js';

/** What the pool sends a worker. */
export interface FileTask {
  index: number;
  file: string;
}

/** What a worker sends the pool. */
export type WorkerMessage =
  | { type: 'ready' }
  | {
      type: 'done';
      index: number;
      outcome: FileOutcome;
      /** The worker's heap as V8 holds it from the system after the file (total_heap_size, bytes). */
      heapBytes: number;
    };

if (parentPort) {
  const port = parentPort;
  const settings = workerData as RunSettings;
  // Never aborted: the pool ends a run by terminating its workers.
  const { signal } = new AbortController();
  port.on('message', (task: FileTask) => {
    void verifyOne(task.file, settings, signal).then((outcome) =>
      port.postMessage({
        type: 'done',
        index: task.index,
        outcome,
        heapBytes: getHeapStatistics().total_heap_size,
      } satisfies WorkerMessage),
    );
  });
  port.postMessage({ type: 'ready' } satisfies WorkerMessage);
}
