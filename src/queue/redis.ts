import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { Logger } from '../log.js';
import { describeRedisUrl } from '../store/redis-settings.js';
import {
  type CloseReport,
  type Engine,
  type JobObserver,
  type Lane,
  type LaneDefinition,
  type Processor,
  QueueUnavailableError,
} from './engine.js';
import { checkAddOptions, checkSchedule, FAILED_KEPT, jobIdSchema, parseData, sameLane } from './job-rules.js';
import {
  connectQueueRedis,
  DEFAULT_REDIS_TIMINGS,
  queuePrefix,
  type RedisTimings,
  throttledErrors,
  unavailable,
} from './redis-connection.js';
import { createRedisInspector, queueCache } from './redis-inspector.js';
import { type LaneWorker, startLaneWorker } from './redis-worker.js';
import { connectStepAdder, type StepAdder } from './step-adder.js';
import { stepLane } from './step-lane.js';
import { keepMovingFromBullMQ } from './step-migration.js';
import { stepKeys } from './step-store.js';
import { listenForAdds } from './step-wakes.js';
import { startStepWorker } from './step-worker.js';
import { createLaneTotals } from './tracker.js';

export interface RedisEngineOptions {
  redisUrl: string;
  /** STORE_NAMESPACE: queue keys live under `<namespace>:queue:`. */
  namespace: string;
  log: Logger;
  observer?: JobObserver;
  timings?: Partial<RedisTimings>;
  /** Lanes run on the step scheduler (step-worker.ts) instead of BullMQ: they take no schedulers. */
  stepLanes?: ReadonlySet<string>;
}

/**
 * The engine on Redis: any number of web and worker processes share the lanes. Lanes run on BullMQ, except the step
 * lanes (`stepLanes`), which run on the engine's own step scheduler (step-worker.ts). The web role only adds (one
 * shared, bounded connection); each lane worked here adds a BullMQ Worker with its own two connections, or a step
 * worker with one.
 */
export async function createRedisEngine(options: RedisEngineOptions): Promise<Engine> {
  const { redisUrl, namespace, log, stepLanes = new Set<string>() } = options;
  const timings = { ...DEFAULT_REDIS_TIMINGS, ...options.timings };
  const where = describeRedisUrl(redisUrl);
  const prefix = queuePrefix(namespace);
  const { connection, adder } = await connectAddingSide(redisUrl, timings, log, stepLanes.size > 0);
  const tracker = createLaneTotals(log, options.observer);
  const definitions = new Map<string, LaneDefinition>();
  const queues = new Map<string, Queue>();
  const queueFor = queueCache(queues, connection, prefix, throttledErrors(log, where).error);
  const workers = new Map<string, LaneWorker>();
  // Stopped at once on close: listening for adds (from the first step lane worked here on), moving from BullMQ.
  const stops: (() => void)[] = [];
  // Closing stops taking work at once; adds still land until the workers are done, since running jobs add what
  // follows them (an outcome after a poll, a refresh after an outcome).
  let closing = false;
  let closed = false;
  const common = { redisUrl, where, prefix, timings, tracker, log };
  const inspector = createRedisInspector(connection, prefix, queueFor, stepLanes);

  const register = (definition: LaneDefinition): void => {
    const known = definitions.get(definition.name);
    if (known && !sameLane(known, definition)) {
      throw new Error(`Lane ${definition.name} is defined twice with different settings`);
    }
    definitions.set(definition.name, definition);
    // A BullMQ lane's Queue is made here, before its first add (which then finds it connected).
    if (!stepLanes.has(definition.name)) queueFor(definition.name);
  };
  const open = (): void => {
    if (closed) throw new QueueUnavailableError('The queue engine is closed');
  };

  return {
    kind: 'redis',
    ...inspector,
    lane<S extends z.ZodType>(definition: LaneDefinition<S>): Lane<z.infer<S>> {
      register(definition);
      if (!adder || !stepLanes.has(definition.name)) return redisLane(definition, queueFor(definition.name), open);
      const localWorker = () => workers.get(definition.name);
      return stepLane(definition, { adder, prefix, open, localWorker });
    },
    work<S extends z.ZodType>(definition: LaneDefinition<S>, processor: Processor<z.infer<S>>): void {
      if (closing) throw new QueueUnavailableError('The queue engine is closing');
      register(definition);
      if (workers.has(definition.name)) throw new Error(`Lane ${definition.name} is already worked by this engine`);
      const settings = { ...common, definition, processor: processor as Processor<unknown> };
      if (adder && stepLanes.has(definition.name)) {
        if (stops.length === 0) stops.push(listenForAdds(common, (lane) => workers.get(lane)?.wake?.()).close);
        const { worker, stop } = workSteps(settings, { adder, open, queue: queueFor(definition.name) });
        workers.set(definition.name, worker);
        stops.push(stop);
      } else {
        workers.set(definition.name, startLaneWorker(settings));
      }
    },
    async stats() {
      const stats = (lane: string) => inspector.counts(lane).then((counts) => ({ lane, ...counts }));
      const counted = await Promise.all([...definitions.keys()].map(stats));
      return counted.map((counts) => ({ ...counts, ...tracker.totals(counts.lane) }));
    },
    async close(deadlineMs) {
      if (closing) return { handedBack: 0, dropped: 0, unstarted: [] };
      closing = true;
      for (const stop of stops) stop();
      const markClosed = () => {
        closed = true;
      };
      const connections = { connection, adder, markClosed };
      return closeInOrder([...workers.values()], [...queues.values()], connections, deadlineMs, timings);
    },
  };
}

/** The adding side's connections: ioredis for BullMQ's lanes and the inspector, node-redis for step lanes' adds. */
async function connectAddingSide(redisUrl: string, timings: RedisTimings, log: Logger, steps: boolean) {
  const connection = await connectQueueRedis(redisUrl, timings, log);
  if (!steps) return { connection, adder: undefined };
  const adder = await connectStepAdder(redisUrl, timings, log).catch((error: unknown) => {
    connection.disconnect();
    throw error;
  });
  return { connection, adder };
}

/** A step lane worked here: its worker, and what an earlier release left of it on BullMQ moved over. */
function workSteps(
  settings: Parameters<typeof startStepWorker>[0],
  { adder, open, queue }: { adder: StepAdder; open: () => void; queue: Queue },
) {
  const { definition, prefix, log } = settings;
  const worker = startStepWorker(settings);
  void adder.mark(stepKeys(prefix, definition.name)).catch(() => {}); // found by lanes()
  const lane = stepLane(definition, { adder, prefix, open, localWorker: () => worker });
  return { worker, stop: keepMovingFromBullMQ(queue, lane as Lane<unknown>, log) };
}

function redisLane<S extends z.ZodType>(
  definition: LaneDefinition<S>,
  queue: Queue,
  open: () => void,
): Lane<z.infer<S>> {
  const jobOptions = {
    attempts: definition.attempts,
    backoff: { type: definition.backoff.type, delay: definition.backoff.delayMs },
    // Gone once done, so the id names the next round's work; failed jobs stay for operators, bounded.
    removeOnComplete: true,
    removeOnFail: { count: FAILED_KEPT.count, age: FAILED_KEPT.ageMs / 1_000 },
  };
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    open();
    try {
      return await run();
    } catch (error) {
      throw unavailable(error);
    }
  };
  return {
    name: definition.name,
    async add(data, options = {}) {
      const parsed = parseData(definition, data);
      const { id, delayMs } = checkAddOptions(options);
      return guarded(async () => {
        // A job that failed for good gives its id up to new work (BullMQ would keep the failed job and drop the add).
        // Two adds racing here still leave one job: BullMQ's add is a no-op for an id that exists.
        if (id !== undefined && (await queue.getJobState(id)) === 'failed') await queue.remove(id);
        const job = await queue.add(definition.name, parsed, { ...jobOptions, jobId: id, delay: delayMs });
        return String(job.id);
      });
    },
    async schedule(id, schedule, data) {
      const parsed = parseData(definition, data);
      const checked = checkSchedule(schedule);
      const repeat = 'everyMs' in checked ? { every: checked.everyMs } : { pattern: checked.cron, tz: checked.tz };
      const template = { name: definition.name, data: parsed, opts: jobOptions };
      await guarded(() => queue.upsertJobScheduler(jobIdSchema.parse(id), repeat, template));
    },
    unschedule: (id) => guarded(() => queue.removeJobScheduler(id)),
  };
}

/**
 * Stop taking work, let running jobs finish within the deadline, hand back the rest, then close connections. Handing
 * back and closing get one command timeout each, so on a Redis that hangs close() still ends within
 * deadlineMs + 2 × commandTimeoutMs (jobs not handed back then are taken over when their lock lapses).
 */
async function closeInOrder(
  workers: LaneWorker[],
  queues: Queue[],
  { connection, adder, markClosed }: { connection: Redis; adder: StepAdder | undefined; markClosed: () => void },
  deadlineMs: number,
  timings: RedisTimings,
): Promise<CloseReport> {
  // closing on a stop: a worker that fails to close is disconnected below.
  const closing = Promise.all(workers.map((worker) => worker.close().catch(() => {})));
  const finished = await within(closing, deadlineMs);
  const handedBack = finished ? 0 : workers.reduce((sum, worker) => sum + worker.handBack(), 0);
  if (!(await within(closing, timings.commandTimeoutMs))) {
    // last resort on a stop: nothing is left to do with its failure.
    void Promise.all(workers.map((worker) => worker.disconnect().catch(() => {})));
  }
  markClosed();
  // closing on a stop: a queue's connection that fails to close goes with the process.
  await within(Promise.all(queues.map((queue) => queue.close().catch(() => {}))), timings.commandTimeoutMs);
  connection.disconnect();
  adder?.close();
  return { handedBack, dropped: 0, unstarted: [] };
}

/** True when `work` settled within `ms`. */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = work.then(() => true as const);
  try {
    return await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
