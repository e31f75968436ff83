import { defineConfig } from 'vitest/config';
import { ImagesLastSequencer } from './test/support/images-last-sequencer';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real Chromium on a 2-core machine: a few browsers at a time, generous timeouts, no wall-clock asserts.
    maxWorkers: 2,
    testTimeout: 60_000,
    // Files that need the container images last: their build overlaps the rest (test/support/images-last-sequencer.ts).
    sequence: { sequencer: ImagesLastSequencer },
    hookTimeout: 120_000,
    // First the Debian packages the tests run (installed when missing, as `npm start` installs Chromium).
    globalSetup: ['scripts/install-test-packages.ts', 'test/support/no-leftover-browsers.ts'],
  },
});
