import type { RedisOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { describeRedisUrl } from '../store/redis-settings.js';
import { QueueUnavailableError } from './engine.js';

/**
 * How the BullMQ engine talks to Redis. BullMQ's own suite runs on ioredis (its node-redis adapter is newer and
 * untested against the @redis/client 5 we ship), and ioredis' `commandTimeout` also bounds a command already sent
 * to a Redis that hangs, which node-redis 5's timeout does not (it only covers the wait before sending).
 */
export interface RedisTimings {
  /** Adds, counts and operator commands fail after this (a person is waiting on an add in the web role). */
  commandTimeoutMs: number;
  /** A worker renews its job's lock every half of this; a dead worker's job is taken over within this + stalledIntervalMs. */
  lockDurationMs: number;
  /** How often workers look for jobs whose lock has lapsed. */
  stalledIntervalMs: number;
  connectTimeoutMs: number;
  /**
   * An idle step worker looks for due work at least this often: delayed work coming due that another process
   * added, a lapsed lease, an add whose announcement it missed (step-wakes.ts).
   */
  stepIdleMs: number;
}

export const DEFAULT_REDIS_TIMINGS: RedisTimings = {
  commandTimeoutMs: 2_000,
  lockDurationMs: 10_000,
  stalledIntervalMs: 5_000,
  connectTimeoutMs: 5_000,
  stepIdleMs: 200,
};

/**
 * BullMQ blocks a worker's fetch for up to 10 s (less when a delayed job is due sooner) and abandons a fetch stuck
 * on a hung Redis 1 s after its block time. A worker's connections therefore get a longer command timeout than the
 * adding side, or every idle fetch would time out.
 */
const LONGEST_BLOCK_MS = 10_000;

/** Reconnecting after an outage: soon at first, then every 5 s at most (BullMQ's own strategy waits up to 20 s). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(250 * attempt, 5_000);
}

/**
 * Where this deployment's queues live on Redis: under STORE_NAMESPACE and the deployment's own id (its default
 * project), so two bots sharing a Redis and a namespace never take each other's work.
 */
export function queueNamespace(storeNamespace: string, deployment: string): string {
  return `${storeNamespace}:${deployment}`;
}

/** Keys live under `<STORE_NAMESPACE>:queue:<lane>:…`, so several bots share one Redis and tests use fresh prefixes. */
export function queuePrefix(namespace: string): string {
  return `${namespace}:queue`;
}

/** The connection the adding side (Queue objects, stats, operator commands) shares: every command bounded. */
export async function connectQueueRedis(redisUrl: string, timings: RedisTimings, log: Logger): Promise<Redis> {
  const where = describeRedisUrl(redisUrl);
  const connection = new Redis(redisUrl, {
    commandTimeout: timings.commandTimeoutMs,
    connectTimeout: timings.connectTimeoutMs,
    // Fail at once while disconnected instead of queueing: the caller answers "try again" in time.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: reconnectDelayMs,
    lazyConnect: true,
  });
  let lastError: Error | undefined;
  const remember = (error: Error) => {
    lastError = error;
  };
  connection.on('error', remember);
  const timeout = setTimeout(() => {
    remember(new Error(`no answer within ${timings.connectTimeoutMs} ms`));
    connection.disconnect();
  }, timings.connectTimeoutMs);
  try {
    await connection.connect();
  } catch (error) {
    connection.disconnect();
    const why = (lastError ?? (error as Error)).message;
    throw new QueueUnavailableError(`Cannot reach Redis at ${where} (check REDIS_URL): ${why}`);
  } finally {
    clearTimeout(timeout);
  }
  // Connected once: from now on an outage is logged (throttled) and ioredis reconnects by itself.
  const errors = throttledErrors(log, where);
  connection.off('error', remember);
  connection.on('error', errors.error);
  connection.on('ready', errors.ready);
  return connection;
}

/** Options BullMQ creates a worker's two connections from (its main one and the one its fetch blocks on). */
export function workerConnectionOptions(redisUrl: string, timings: RedisTimings): RedisOptions {
  return {
    url: redisUrl,
    commandTimeout: LONGEST_BLOCK_MS + timings.commandTimeoutMs,
    connectTimeout: timings.connectTimeoutMs,
    maxRetriesPerRequest: null, // BullMQ requires it on blocking connections: commands wait out a reconnect
    retryStrategy: reconnectDelayMs,
  };
}

/** A Redis that is gone or hung makes every connection report each retry: one line per 10 s per place, and one on recovery. */
export function throttledErrors(log: Logger, where: string, everyMs = 10_000) {
  let lastAt = 0;
  let suppressed = 0;
  let failing = false;
  return {
    error: (error: Error) => {
      failing = true;
      const now = Date.now();
      if (now - lastAt < everyMs) {
        suppressed++;
        return;
      }
      log.warn('queue.redis_error', { where, error: error.message, ...(suppressed > 0 && { suppressed }) });
      lastAt = now;
      suppressed = 0;
    },
    ready: () => {
      if (!failing) return;
      failing = false;
      log.info('queue.redis_ready', { where });
    },
  };
}

/** A command that failed on Redis (timed out, disconnected, refused) as the error callers handle. */
export function unavailable(error: unknown): QueueUnavailableError {
  if (error instanceof QueueUnavailableError) return error;
  return new QueueUnavailableError(`Queue storage unavailable: ${(error as Error).message}`, { cause: error });
}
