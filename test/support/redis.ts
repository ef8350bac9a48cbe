import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';

/** Redis tests use their own database index and a namespace per run, and delete their keys afterwards. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

async function probe(): Promise<string | undefined> {
  const client = createClient({ url: TEST_REDIS_URL, socket: { connectTimeout: 1_000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    await client.close();
    return undefined;
  } catch (error) {
    client.destroy();
    return (error as Error).message || 'connection failed';
  }
}

const failure = await probe();
/** In CI (CI=true) or with REQUIRE_REDIS=1 an unreachable Redis fails the run instead of skipping. */
const required = process.env.REQUIRE_REDIS === '1' || process.env.CI === 'true';
if (failure && required) {
  throw new Error(`Redis tests are required here (CI/REQUIRE_REDIS) but ${TEST_REDIS_URL} is unreachable: ${failure}`);
}
if (failure) {
  console.warn(
    `[redis tests skipped] Redis at ${TEST_REDIS_URL} is unreachable (${failure}). Start redis-server or set TEST_REDIS_URL.`,
  );
}
export const redisAvailable = failure === undefined;

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

/** Store variants every store-backed suite runs on. */
export const storeKinds = [
  { kind: 'memory' as const, redisUrl: undefined, available: true },
  { kind: 'redis' as const, redisUrl: TEST_REDIS_URL, available: redisAvailable },
];
