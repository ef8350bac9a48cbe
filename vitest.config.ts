import { defineConfig } from 'vitest/config';

/** Measures ack latency under a burst: run alone, after everything else, so other suites cannot slow it. */
const ALONE = ['test/faults/burst.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/wire-safety-setup.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Suites start real servers (app, fakes, simulator) on ephemeral ports; two workers suit a 2-core box.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'suites', include: ['test/**/*.test.ts'], exclude: ALONE } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
