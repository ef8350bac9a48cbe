import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Suites start real servers (app, fakes, simulator) on ephemeral ports; two workers suit a 2-core box.
    maxWorkers: 2,
  },
});
