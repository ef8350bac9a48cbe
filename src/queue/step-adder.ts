import { type CommandParser, defineScript } from '@redis/client';
import { withDeadline } from '../deadline.js';
import type { Logger } from '../log.js';
import { connectNodeRedis } from '../store/node-redis.js';
import { describeRedisUrl } from '../store/redis-settings.js';
import { QueueUnavailableError } from './engine.js';
import { type RedisTimings, reconnectDelayMs, throttledErrors, unavailable } from './redis-connection.js';
import { ADD } from './step-scripts.js';
import type { StepKeys } from './step-store.js';

/** A job to add to a step lane: its entry (step-store.ts) and when it is due. */
export interface StepJob {
  id: string;
  entry: string;
  dueAt: number;
}

/**
 * The adding side of the step lanes. Adds go through node-redis, not the queue's ioredis: on Node 24 each ioredis
 * command leaves about 1.3 KB for a full collection (its promise's executor closure outlives the scavenges), and in
 * the web role an add follows every command a person types (BENCHMARKS §1b). node-redis bounds only the wait before a
 * command is written, so each add has its own deadline.
 */
export interface StepAdder {
  /** False when the id is already waiting, delayed or running. `wake`: the channel that tells other processes, or ''. */
  add(keys: StepKeys, job: StepJob, lane: string, wake: string): Promise<boolean>;
  /** Marks a lane as a step lane where `lanes()` looks (a field of BullMQ's meta hash, harmless to BullMQ). */
  mark(keys: StepKeys): Promise<void>;
  close(): void;
}

const stepAdd = defineScript({
  SCRIPT: ADD,
  NUMBER_OF_KEYS: 4,
  parseCommand(parser: CommandParser, keys: StepKeys, job: StepJob, lane: string, wake: string) {
    for (const key of [keys.jobs, keys.due, keys.failed, keys.failures]) parser.pushKey(key);
    parser.push(job.id, job.entry, String(job.dueAt), wake, lane);
  },
  transformReply: (added: unknown) => added === 1,
});

export async function connectStepAdder(redisUrl: string, timings: RedisTimings, log: Logger): Promise<StepAdder> {
  const where = describeRedisUrl(redisUrl);
  const errors = throttledErrors(log, where);
  const bounded = <T>(work: Promise<T>) =>
    withDeadline(
      work,
      timings.commandTimeoutMs,
      () => new Error(`no answer within ${timings.commandTimeoutMs} ms`),
    ).catch((error: unknown) => {
      throw unavailable(error);
    });
  const client = await connectNodeRedis({
    url: redisUrl,
    connectTimeoutMs: timings.connectTimeoutMs,
    reconnectDelayMs,
    onError: errors.error,
    onReady: errors.ready,
    scripts: { stepAdd },
  }).catch((error: unknown) => {
    throw new QueueUnavailableError(`Cannot reach Redis at ${where} (check REDIS_URL): ${(error as Error).message}`);
  });
  return {
    add: (keys, job, lane, wake) => bounded(client.stepAdd(keys, job, lane, wake)),
    mark: async (keys) => {
      await bounded(client.hSet(keys.meta, 'steps', '1'));
    },
    close: () => client.destroy(),
  };
}
