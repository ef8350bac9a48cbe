import { type Job, type JobSchedulerJson, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { describeRedisUrl } from '../store/redis-settings.js';
import type { FailedJob, LaneCounts, LaneSchedule, QueueInspector, ScheduleInfo } from './engine.js';
import { errorText, summarise } from './job-rules.js';
import { cronRepeatStrategy } from './occurrences.js';
import {
  connectQueueRedis,
  DEFAULT_REDIS_TIMINGS,
  queuePrefix,
  throttledErrors,
  unavailable,
} from './redis-connection.js';
import { stepInspector } from './step-lane.js';

/** Events kept per lane in BullMQ's stream (it keeps 10,000 by default; nothing here reads them). */
const EVENTS_KEPT = 1_000;

/** The inspector alone, for `npm run queues`: its own connection, closed by `close`. */
export async function openRedisInspector(
  redisUrl: string,
  namespace: string,
  log: Logger,
  stepLanes: ReadonlySet<string>,
): Promise<QueueInspector & { close(): Promise<void> }> {
  const connection = await connectQueueRedis(redisUrl, DEFAULT_REDIS_TIMINGS, log);
  const queues = new Map<string, Queue>();
  const onError = throttledErrors(log, describeRedisUrl(redisUrl)).error;
  return {
    ...createRedisInspector(
      connection,
      queuePrefix(namespace),
      queueCache(queues, connection, queuePrefix(namespace), onError),
      stepLanes,
    ),
    async close() {
      // closing the operator's CLI: a connection that fails to close goes with the process.
      await Promise.all([...queues.values()].map((queue) => queue.close().catch(() => {})));
      connection.disconnect();
    },
  };
}

/**
 * The operator's view of the lanes under one prefix, by lane name: what `npm run queues` shows from outside the app
 * and what the Redis engine answers for its own lanes. `queueFor` gives the BullMQ Queue of a lane name; the lanes
 * in `stepLanes` run on the step scheduler instead (step-worker.ts).
 */
export function createRedisInspector(
  connection: Redis,
  prefix: string,
  queueFor: (lane: string) => Queue,
  stepLanes: ReadonlySet<string>,
): QueueInspector {
  const bull = bullInspector(connection, prefix, queueFor);
  const steps = stepInspector(connection, prefix);
  const of = (lane: string) => (stepLanes.has(lane) ? steps : bull);
  return {
    lanes: bull.lanes,
    counts: (lane) => of(lane).counts(lane),
    consumers: (lane) => of(lane).consumers(lane),
    queued: (lane, ids) => of(lane).queued(lane, ids),
    failed: (lane, limit) => of(lane).failed(lane, limit),
    schedules: (lane) => of(lane).schedules(lane),
    retry: (lane, id) => of(lane).retry(lane, id),
    remove: (lane, id) => of(lane).remove(lane, id),
    discard: (lane, match) => of(lane).discard(lane, match),
  };
}

function bullInspector(connection: Redis, prefix: string, queueFor: (lane: string) => Queue): QueueInspector {
  const guarded = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw unavailable(error);
    }
  };
  const failedJob = async (lane: string, id: string): Promise<Job | undefined> => {
    const job = await queueFor(lane).getJob(id);
    return job && (await job.isFailed()) ? job : undefined;
  };
  return {
    lanes: () => guarded(() => laneNames(connection, prefix)),
    counts: (lane) => guarded(() => laneCounts(queueFor(lane))),
    consumers: (lane) => guarded(() => queueFor(lane).getWorkersCount()),
    queued: (lane, ids) => guarded(() => queuedJobs(connection, queueFor(lane), ids)),
    failed: (lane, limit = 50) =>
      guarded(async () => {
        const jobs = await queueFor(lane).getFailed(0, limit - 1);
        return jobs.filter((job): job is Job => Boolean(job)).map((job) => describeFailed(lane, job));
      }),
    schedules: (lane) =>
      guarded(async () => (await queueFor(lane).getJobSchedulers()).map((json) => describeSchedule(json))),
    retry: (lane, id) =>
      guarded(async () => {
        const job = await failedJob(lane, id);
        // All its tries again; its starts are kept, so its wait is not measured as a first start.
        await job?.retry('failed', { resetAttemptsMade: true });
        return job !== undefined;
      }),
    remove: (lane, id) =>
      guarded(async () => {
        const job = await failedJob(lane, id);
        await job?.remove();
        return job !== undefined;
      }),
    discard: (lane, match) => guarded(() => discardMatching(queueFor(lane), match)),
  };
}

/**
 * Of `ids`, the jobs that wait, with their data, in one round trip: a job's hash holds its data until it completes
 * (removed) and `finishedOn` once it failed; a running one is in the active list.
 */
async function queuedJobs(connection: Redis, queue: Queue, ids: readonly string[]): Promise<Map<string, unknown>> {
  const queued = new Map<string, unknown>();
  if (ids.length === 0) return queued;
  const reads = connection.multi();
  for (const id of ids) reads.hmget(queue.toKey(id), 'data', 'finishedOn').lpos(queue.toKey('active'), id);
  const replies = (await reads.exec()) ?? [];
  ids.forEach((id, i) => {
    const [[jobError, fields] = [], [activeError, position] = []] = replies.slice(2 * i, 2 * i + 2);
    if (jobError || activeError) throw jobError ?? activeError;
    const [data, finishedOn] = (fields ?? []) as (string | null)[];
    if (data && finishedOn === null && position === null) queued.set(id, JSON.parse(data));
  });
  return queued;
}

/** Jobs read per page while looking for the ones to discard. */
const DISCARD_PAGE = 500;

/**
 * Reads the waiting, delayed and failed jobs page by page, then deletes the matching ones (deleting while paging
 * would shift the pages). A job that started meanwhile is locked: BullMQ leaves it, and it finishes.
 */
async function discardMatching(queue: Queue, match: (data: unknown) => boolean): Promise<number> {
  const states = ['waiting', 'prioritized', 'delayed', 'failed'] as const;
  const ids: string[] = [];
  for (let start = 0; ; start += DISCARD_PAGE) {
    const page = await queue.getJobs([...states], start, start + DISCARD_PAGE - 1, true);
    for (const job of page) if (job?.id && match(job.data)) ids.push(job.id);
    if (page.length < DISCARD_PAGE) break;
  }
  let discarded = 0;
  for (const id of ids) discarded += await queue.remove(id);
  return discarded;
}

/** One Queue per lane name on the shared connection, made when first needed. */
export function queueCache(
  queues: Map<string, Queue>,
  connection: Redis,
  prefix: string,
  onError: (error: Error) => void,
): (name: string) => Queue {
  return (name) => {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection,
        prefix,
        streams: { events: { maxLen: EVENTS_KEPT } },
        settings: { repeatStrategy: cronRepeatStrategy },
      });
      queue.on('error', onError);
      queues.set(name, queue);
    }
    return queue;
  };
}

export async function laneCounts(queue: Queue): Promise<LaneCounts> {
  const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'failed');
  return {
    waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
    delayed: counts.delayed ?? 0,
    active: counts.active ?? 0,
    failed: counts.failed ?? 0,
  };
}

/** Every queue BullMQ has written meta for under the prefix. */
async function laneNames(connection: Redis, prefix: string): Promise<string[]> {
  const names = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await connection.scan(cursor, 'MATCH', `${prefix}:*:meta`, 'COUNT', 500);
    for (const key of keys) names.add(key.slice(prefix.length + 1, -':meta'.length));
    cursor = next;
  } while (cursor !== '0');
  return [...names].sort();
}

function describeFailed(lane: string, job: Job): FailedJob {
  return {
    id: job.id ?? '',
    lane,
    data: summarise(JSON.stringify(job.data)),
    error: errorText(job.failedReason),
    attempts: job.attemptsMade,
    failedAt: job.finishedOn ?? 0,
  };
}

function describeSchedule(json: JobSchedulerJson): ScheduleInfo {
  const schedule: LaneSchedule =
    json.every !== undefined ? { everyMs: Number(json.every) } : { cron: json.pattern ?? '', tz: json.tz ?? 'UTC' };
  return { id: json.key, schedule, nextAt: json.next, data: json.template?.data };
}
