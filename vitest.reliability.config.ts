import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: the built binary against a real sandbox and
 * listener under faults, crashes and hostile input. Separate from `npm test`
 * (vitest.config.ts excludes test/reliability). Each test bounds its own load
 * in count and time; the limits here are a backstop.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/reliability/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    // Two files at a time on a two-core machine: each load is sized to leave the other room.
    maxWorkers: 2,
    // A test that fails is not run again: a retry would hide exactly what these tests look for.
    retry: 0,
  },
});
