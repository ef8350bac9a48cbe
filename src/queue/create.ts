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
  /** On Redis, the lanes run on the step scheduler instead of BullMQ (STEP_LANES in src/lanes.ts). */
  stepLanes?: ReadonlySet<string>;
}

/** The engine the configuration asks for. Rejects with QueueUnavailableError when Redis cannot be reached. */
export async function createEngine(options: EngineOptions): Promise<Engine> {
  const { redisUrl, namespace, log, observer, timings, stepLanes } = options;
  const common = { log, ...(observer && { observer }) };
  if (redisUrl) {
    return createRedisEngine({
      redisUrl,
      namespace,
      ...common,
      ...(timings && { timings }),
      ...(stepLanes && { stepLanes }),
    });
  }
  log.warn('queue.memory', {
    message: 'Using the in-process queue: work waiting or delayed when the process stops is lost. Set REDIS_URL.',
  });
  return createMemoryEngine(common);
}
