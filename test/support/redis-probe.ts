import { createClient } from '@keyv/redis';

/** Redis tests use their own database index (15 on 127.0.0.1 unless TEST_REDIS_URL says otherwise). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15';

/** Why Redis at `url` cannot be used, or `undefined` when it answers PING. Never throws. */
export async function probeRedis(url: string, connectTimeoutMs = 1_000): Promise<string | undefined> {
  const client = createClient({ url, socket: { connectTimeout: connectTimeoutMs, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    await client.close();
    return undefined;
  } catch (error) {
    // A connect that failed has already closed the client: destroying it again would throw "The client is closed".
    if (client.isOpen) client.destroy();
    return (error as Error).message || 'connection failed';
  }
}

/** In CI (CI=true) or with REQUIRE_REDIS=1 an unreachable Redis fails the run; elsewhere its suites are skipped. */
export function redisRequired(env: NodeJS.ProcessEnv): boolean {
  return env.REQUIRE_REDIS === '1' || env.CI === 'true';
}

/** The one line saying why the Redis suites are skipped, or the error that fails a run that requires them. */
export function redisVerdict(
  url: string,
  failure: string | undefined,
  env: NodeJS.ProcessEnv,
): { available: true } | { available: false; skipLine: string } {
  if (!failure) return { available: true };
  if (redisRequired(env)) {
    throw new Error(
      `Redis tests are required here (${env.CI === 'true' ? 'CI=true' : 'REQUIRE_REDIS=1'}) but ${url} is unreachable: ${failure}. Start redis-server on 127.0.0.1:6379 or set TEST_REDIS_URL.`,
    );
  }
  return {
    available: false,
    skipLine: `[redis tests skipped] Redis at ${url} is unreachable (${failure}); memory-store suites still run. Start redis-server or set TEST_REDIS_URL.`,
  };
}
