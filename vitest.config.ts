import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The reliability suite runs on its own: `npm run test:reliability` (vitest.reliability.config.ts).
    exclude: [...configDefaults.exclude, 'test/reliability/**'],
    // A TMPDIR of the run's own, removed at the end: nothing is left in the machine's.
    globalSetup: ['test/helpers/private-tmpdir.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end files spawn processes; two cores run two files at a time well.
    maxWorkers: 2,
  },
});
