import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite runs on its own: `npm run test:reliability` (vitest.reliability.config.ts),
    // and so do the browser tests: `npm run test:browser` (vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'test/reliability/**', 'test/browser/**'],
    // A TMPDIR of the run's own, removed at the end: nothing is left in the machine's.
    globalSetup: ['test/helpers/private-tmpdir.ts'],
    // Guards against a hang, never a speed limit: a test that spawns a dozen CLIs and a sandbox
    // takes seconds here and minutes on one core shared with a busy loop, and must pass on both.
    // What waits for something waits for the thing (a line, a state, an exit), not for a time.
    testTimeout: 180_000,
    // A hook starts processes (a sandbox, a listener): on one loaded core that takes far longer than here.
    hookTimeout: 180_000,
    // Command tests run in process and wait mostly on sockets, so four files at a time
    // keep two cores busy. No test mocks modules or changes process.env, and the one that
    // fakes Date (idempotency retention) restores it after each test, so files share a
    // worker's module graph instead of re-importing it (isolate: false):
    // the suite's wall time halves. A test that needs isolation must not be written.
    // Two files per core this process may run on (taskset and cgroups count), at most four.
    maxWorkers: Math.min(4, 2 * availableParallelism()),
    isolate: false,
  },
});
