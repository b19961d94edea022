import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the sandbox's web pages in a real browser (Debian's chromium,
 * driven by playwright-core; test/helpers/browser.ts). Separate from `npm test`
 * (vitest.config.ts excludes test/browser), which needs no browser.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    // A TMPDIR of the run's own, removed at the end, as in the other suites.
    globalSetup: ['test/helpers/private-tmpdir.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One file at a time: each has a browser of its own (a browser, a GPU and a renderer
    // process) beside the sandbox and the CLI it starts, and the machine has two cores.
    maxWorkers: 1,
  },
});
