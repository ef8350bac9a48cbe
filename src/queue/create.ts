import type { Logger } from '../log.js';
import type { Engine, JobObserver } from './engine.js';
import { createMemoryEngine } from './memory.js';
import { createRedisEngine } from './redis.js';
import type { RedisTimings } from './redis-connection.js';

export interface EngineOptions {
  /** BullMQ on this Redis when set; in process otherwise. */
  redisUrl?: string | undefined;
  /** STORE_NAMESPACE. */
  namespace: string;
  log: Logger;
  observer?: JobObserver;
  timings?: Partial<RedisTimings>;
}

/** The engine the configuration asks for. Rejects with QueueUnavailableError when Redis cannot be reached. */
export async function createEngine({ redisUrl, namespace, log, observer, timings }: EngineOptions): Promise<Engine> {
  const common = { log, ...(observer && { observer }) };
  if (redisUrl) return createRedisEngine({ redisUrl, namespace, ...common, ...(timings && { timings }) });
  log.warn('queue.memory', {
    message: 'Using the in-process queue: work waiting or delayed when the process stops is lost. Set REDIS_URL.',
  });
  return createMemoryEngine(common);
}
