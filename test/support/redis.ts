import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { inject } from 'vitest';

import { TEST_REDIS_URL } from './redis-probe.js';

/** Redis tests use their own database index and a namespace per run, and delete their keys afterwards. */
export { TEST_REDIS_URL };

/** Probed once per run by test/support/global-setup.ts, which prints why the Redis suites are skipped. */
export const redisAvailable = inject('redisAvailable');

export function testNamespace(): string {
  return `test-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under `namespace` (Keyv keys `ns::…` and claim keys `ns:…`). */
export async function dropNamespace(namespace: string): Promise<void> {
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
    if (keys.length) await client.del(keys);
  }
  await client.close();
}

export const memoryStore = {
  kind: 'memory' as const,
  label: 'memory store',
  redisUrl: undefined,
  available: true,
  split: false,
  workerProcesses: false,
};
export const redisStore = {
  kind: 'redis' as const,
  label: 'Redis store',
  redisUrl: TEST_REDIS_URL,
  available: redisAvailable,
  split: false,
  workerProcesses: false,
};
/**
 * Redis with the app deployed as on a host: each boot is 1 `ROLE=web` app (the one the test talks to) and 2
 * `ROLE=worker` apps, each with its own engine, store and Slack clients, sharing only Redis (test/support/harness.ts).
 * They run in the test's process, so a test's clock and hooks reach all three; no module of `src/` holds state
 * between apps (only a date-formatter cache and the chart's drawing thread), so they share what three processes would.
 */
export const splitRedis = { ...redisStore, label: 'Redis, 1 web + 2 workers', split: true };
/**
 * The same with the 2 workers as real processes (`dist/index.js`, `ROLE=worker`), for suites that reach the app only
 * as Slack and Mintlify do (no clock, hook or store patch of the test's, which a process cannot take).
 */
export const splitProcesses = { ...splitRedis, label: 'Redis, 1 web + 2 worker processes', workerProcesses: true };

/** Store variants every store-backed suite runs on: one process on memory and on Redis, and the split topology. */
export const storeKinds = [memoryStore, redisStore, splitRedis];
/** Only the stores themselves (a suite of the store, not of the app). */
export const storesOnly = [memoryStore, redisStore];

export type StoreKind = (typeof storeKinds)[number];
