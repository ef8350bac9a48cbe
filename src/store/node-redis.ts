import { createClient, type RedisScripts } from '@redis/client';
import { withDeadline } from '../deadline.js';

export interface NodeRedisOptions<S extends RedisScripts> {
  url: string;
  connectTimeoutMs: number;
  /** The wait before the nth reconnect (from 1) after an outage. */
  reconnectDelayMs: (attempt: number) => number;
  /** An error once connected (before that, `connectNodeRedis` rejects with it). */
  onError: (error: Error) => void;
  /** Connected again after an outage. */
  onReady: () => void;
  scripts?: S;
}

/**
 * A node-redis client as the app's store and step adder use one: commands fail at once while disconnected instead of
 * queueing (a person waits on the answer), the first connection gives up at its first failure (refused, wrong
 * password) or after `connectTimeoutMs` and rejects saying why, and after that it reconnects by itself. No
 * `commandOptions.timeout`: node-redis makes an `AbortSignal.timeout` per command for it, which lives its full time and
 * promotes about 0.8 KB a command (BENCHMARKS §1b), and it bounds only the wait before a command is written. Callers
 * bound their commands themselves (`withDeadline`).
 */
export async function connectNodeRedis<S extends RedisScripts = Record<string, never>>(options: NodeRedisOptions<S>) {
  let connected = false;
  const client = createClient({
    url: options.url,
    scripts: options.scripts,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeoutMs,
      reconnectStrategy: (retries, cause) => (connected ? options.reconnectDelayMs(retries + 1) : cause),
    },
  });
  client.on('error', (error: Error) => connected && options.onError(error));
  client.on('ready', () => connected && options.onReady());
  try {
    await withDeadline(client.connect(), options.connectTimeoutMs, () => new Error('no answer'));
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw error;
  }
  connected = true;
  return client;
}
