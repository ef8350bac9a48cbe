import KeyvRedis, { createClient, type RedisClientType } from '@keyv/redis';
import { Keyv } from 'keyv';
import { DEFAULT_STORE_NAMESPACE } from '../config.js';
import type { Logger } from '../log.js';
import { type Claims, createMemoryClaims, createRedisClaims } from './claims.js';

const CONNECT_TIMEOUT_MS = 5_000;

/** Key-value data (bindings, caches) through Keyv, plus the atomic operations Keyv lacks. */
export interface Store {
  readonly kind: 'memory' | 'redis';
  readonly kv: Keyv;
  readonly claims: Claims;
  close(): Promise<void>;
}

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export interface StoreOptions {
  redisUrl?: string | undefined;
  namespace?: string;
  log: Logger;
}

export async function createStore({
  redisUrl,
  namespace = DEFAULT_STORE_NAMESPACE,
  log,
}: StoreOptions): Promise<Store> {
  if (!redisUrl) {
    log.warn('store.memory', {
      message:
        'Using the in-memory store: job bindings vanish on restart and replicas cannot share them. Set REDIS_URL.',
    });
    return { kind: 'memory', kv: new Keyv({ namespace }), claims: createMemoryClaims(), close: async () => {} };
  }
  const client = await connectRedis(redisUrl, log);
  // Throw on errors: a Redis outage must surface, not read as "no binding" and forget a thread.
  const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true, throwOnConnectError: true });
  const kv = new Keyv({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true });
  return {
    kind: 'redis',
    kv,
    claims: createRedisClaims(client, namespace),
    async close() {
      await client.close().catch(() => {});
    },
  };
}

async function connectRedis(redisUrl: string, log: Logger): Promise<RedisClientType> {
  const where = describeRedisUrl(redisUrl);
  const client: RedisClientType = createClient({
    url: redisUrl,
    // Fail commands at once while disconnected instead of queueing them: Slack must get an answer in time.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Before the first connection, give up at the first failure (refused, wrong password) and say why.
      reconnectStrategy: (retries, cause) => (connected ? Math.min(100 * 2 ** retries, 5_000) : cause),
    },
  });
  let connected = false;
  client.on('error', (error: Error) => {
    if (connected) log.warn('store.redis_error', { where, error: error.message });
  });
  client.on('ready', () => connected && log.info('store.redis_ready', { where }));
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new StoreUnavailableError(`Cannot reach Redis at ${where} (check REDIS_URL)`)),
      CONNECT_TIMEOUT_MS,
    ).unref(),
  );
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw error instanceof StoreUnavailableError
      ? error
      : new StoreUnavailableError(`Cannot reach Redis at ${where} (check REDIS_URL): ${(error as Error).message}`);
  }
  connected = true;
  return client;
}

/** host:port/db without credentials, for messages. */
export function describeRedisUrl(redisUrl: string): string {
  const url = new URL(redisUrl);
  return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}
