import { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { type RedisTimings, reconnectDelayMs, throttledErrors } from './redis-connection.js';
import { stepWakeChannel } from './step-store.js';

/**
 * Wakes this process's step workers when another process adds work due now to their lane (the web role's commands):
 * `ADD` announces the lane on the wake channel, so the work is claimed at once instead of at a worker's next idle
 * look. A message missed while disconnected costs only that wait. One subscribed connection per worker process.
 */
export function listenForAdds(
  options: { redisUrl: string; where: string; prefix: string; timings: RedisTimings; log: Logger },
  wake: (lane: string) => void,
): { close(): void } {
  const { redisUrl, where, prefix, timings, log } = options;
  const subscriber = new Redis(redisUrl, {
    connectTimeout: timings.connectTimeoutMs,
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelayMs,
  });
  const errors = throttledErrors(log, where);
  subscriber.on('error', errors.error);
  subscriber.on('ready', errors.ready);
  subscriber.on('message', (_channel: string, lane: string) => wake(lane));
  // ioredis subscribes again after each reconnect; a first subscribe that fails is reported like any outage.
  subscriber.subscribe(stepWakeChannel(prefix)).catch(errors.error);
  return { close: () => subscriber.disconnect() };
}
