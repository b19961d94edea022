/**
 * One call to a Redis store, bounded in time (the rate budget and the shared
 * journal): node-redis's command timeout covers only a command not yet
 * written, and a store that stops answering (a hung host, a partition, a
 * SIGSTOP) must not hold the run.
 */

/** `work`'s answer, or a rejection once `ms` have passed without one. */
export async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // After a stalled event loop the answer may be waiting unread: timers run before I/O,
      // so it gets one turn of the loop to arrive before the store counts as lost.
      setImmediate(() => reject(new Error(`no answer within ${ms} ms`)));
    }, ms);
  });
  // A late failure of work that lost the race is not an unhandled rejection.
  work.catch(() => {});
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
