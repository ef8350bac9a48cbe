import { createClient } from '@keyv/redis';
import { dropNamespace } from './redis.js';

/**
 * What FLUSHDB, a restart without persistence or a failover to an empty replica does to a test's data: every key
 * of `namespace` (`<namespace>:…`, Keyv's `<namespace>::…` included) is gone, at once. Only that namespace: the
 * test Redis (DB 15) is shared with tests running in parallel, so a real FLUSHDB is not an option.
 */
export async function loseNamespaceData(namespace: string): Promise<void> {
  await dropNamespace(namespace);
}

/**
 * `CLIENT PAUSE <ms> <mode>` on the server at `url`. `ALL` holds every command of every client on every database
 * (CLIENT UNPAUSE included, in Redis 7) until `ms` has passed; `WRITE` holds writes only. Every test sharing that
 * server hangs too: use a private server (private-redis.ts), or the proxy (redis-proxy.ts) to hang one app only.
 */
export async function pauseRedisServer(url: string, ms: number, mode: 'ALL' | 'WRITE' = 'ALL'): Promise<void> {
  const client = createClient({ url, socket: { reconnectStrategy: false } });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.sendCommand(['CLIENT', 'PAUSE', String(ms), mode]);
  } finally {
    client.destroy();
  }
}
