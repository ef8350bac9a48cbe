import { defineConfig } from 'vitest/config';

/** Measures ack latency under a burst: run alone, after everything else, so other suites cannot slow it. */
const ALONE = ['test/faults/burst.test.ts'];
/** Pure logic and in-process fakes: no Redis, no child process (`npm run test:unit`, the inner loop). */
const UNIT = ['test/unit/**/*.test.ts'];

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
      // Unit files share their workers' module cache (no file mocks or stubs a module), so the app's modules load
      // once per worker instead of once per file: most of the unit run was imports.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      { extends: true, test: { name: 'suites', include: ['test/**/*.test.ts'], exclude: [...ALONE, ...UNIT] } },
      { extends: true, test: { name: 'alone', include: ALONE, sequence: { groupOrder: 1 } } },
    ],
  },
});
