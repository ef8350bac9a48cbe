import { defineConfig } from 'vitest/config';

/**
 * Suites that measure time on the box (ack latency under a burst; how long 60 final states take within Slack's
 * tiers): each runs alone, after everything else and after each other, so no other suite slows it.
 */
const ALONE = ['test/faults/burst.test.ts', 'test/faults/slack-finals.test.ts'] as const;
/** Pure logic and in-process fakes: no Redis, no child process (`npm run test:unit`, the inner loop). */
const UNIT = ['test/unit/**/*.test.ts'];
/** The root's run of it probes Redis; the projects that spawn `dist/` run it again to compile `src/` first if stale. */
const GLOBAL_SETUP = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    globalSetup: GLOBAL_SETUP,
    setupFiles: ['test/support/wire-safety-setup.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Suites start real servers (app, fakes, simulator) on ephemeral ports and mostly wait on them and on clocks:
    // with two workers a 2-core box sat about 60% idle; three cut the run by a third (four, little more).
    maxWorkers: 3,
    projects: [
      // Unit files share their workers' module cache (no file mocks or stubs a module), so the app's modules load
      // once per worker instead of once per file: most of the unit run was imports.
      { extends: true, test: { name: 'unit', include: UNIT, isolate: false } },
      // A project does not inherit the root's globalSetup (it runs once, for the root): those that spawn name it.
      {
        extends: true,
        test: {
          name: 'suites',
          include: ['test/**/*.test.ts'],
          exclude: [...ALONE, ...UNIT],
          globalSetup: GLOBAL_SETUP,
        },
      },
      {
        extends: true,
        test: { name: 'alone 1', include: [ALONE[0]], sequence: { groupOrder: 1 }, globalSetup: GLOBAL_SETUP },
      },
      {
        extends: true,
        test: { name: 'alone 2', include: [ALONE[1]], sequence: { groupOrder: 2 }, globalSetup: GLOBAL_SETUP },
      },
    ],
  },
});
