import type { TestProject } from 'vitest/node';
import { probeRedis, redisVerdict, TEST_REDIS_URL } from './redis-probe.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisAvailable: boolean;
  }
}

/** Probes Redis once per run: the Redis suites are skipped with one line saying why, or the run fails in CI. */
export default async function setup(project: TestProject): Promise<void> {
  const verdict = redisVerdict(TEST_REDIS_URL, await probeRedis(TEST_REDIS_URL), process.env);
  if (!verdict.available) console.warn(verdict.skipLine);
  project.provide('redisAvailable', verdict.available);
}
