import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real Chromium on a 2-core machine: a few browsers at a time, generous timeouts, no wall-clock asserts.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/no-leftover-browsers.ts'],
  },
});
