import { z } from 'zod';

/**
 * The work engine: named queues ("lanes"), each with its own concurrency, retries and backoff. Two implementations
 * keep the same contract (test/queue/engine-contract.ts): BullMQ on Redis (`redis.ts`) and in-process (`memory.ts`).
 * The queue decides *when* a job runs; the job store's transitions still decide *what* it does.
 */

/** How long to wait between tries: `fixed` waits `delayMs` each time, `exponential` `delayMs × 2^(retry − 1)`. */
export const backoffSchema = z.object({
  type: z.enum(['fixed', 'exponential']),
  delayMs: z.number().int().nonnegative(),
});
export type Backoff = z.infer<typeof backoffSchema>;

const laneSettingsSchema = z.object({
  /** Names the queue in Redis keys, metrics and `npm run queues`. */
  name: z.string().regex(/^[a-z][a-z0-9-]{0,39}$/, 'lowercase letters, digits and dashes'),
  /** Jobs of this lane running at once in one worker process. */
  concurrency: z.number().int().min(1).max(1_000),
  /** Tries in all, the first included. */
  attempts: z.number().int().min(1).max(100),
  backoff: backoffSchema,
});

/** A lane: its settings and the schema of its jobs' data (JSON: it crosses processes, so it is parsed on both ends). */
export interface LaneDefinition<S extends z.ZodType = z.ZodType> extends z.infer<typeof laneSettingsSchema> {
  data: S;
}

/** Checks a lane's settings once, where the lanes are declared. */
export function defineLane<S extends z.ZodType>(lane: LaneDefinition<S>): LaneDefinition<S> {
  laneSettingsSchema.parse(lane);
  return lane;
}

/** What a processor learns about the job it runs. */
export interface JobMeta {
  readonly id: string;
  readonly lane: string;
  /** 1 on a step's first try, 2 on its first retry, … (a job taken over from a dead worker keeps its number). */
  readonly attempt: number;
  /** Aborted when the engine closes and its deadline passes: the job is handed back, its result is ignored. */
  readonly signal: AbortSignal;
}

/**
 * A plain function holding no state between jobs, so any worker can run any job. `unrun` is told when a job fails
 * for good without being run: on Redis, a step whose worker died more often than a step may be taken over (the
 * engine fails it at its next start), so the person concerned can still be told.
 */
export type Processor<D, R = unknown> = ((data: D, meta: JobMeta) => Promise<R | Again>) & {
  unrun?: (data: D, error: Error, job: Pick<JobMeta, 'id'>) => Promise<void>;
};

/**
 * What a processor returns to run the same job again after `delayMs`, with `data` (a poll's next step): the job
 * keeps its id the whole time, so adding that id again meanwhile changes nothing, and a worker that dies between
 * two steps cannot lose it (the job is rescheduled in one step, atomically on Redis). Each step has a budget of its
 * own: its tries, its backoff and its take-overs start afresh, and its wait is measured from its own due time.
 */
export class Again {
  constructor(
    readonly data: unknown,
    readonly delayMs: number,
  ) {}
}

export interface AddOptions {
  /**
   * Names the work (project, job, round): while a job with this id is waiting, delayed (a retry's backoff
   * included) or running, adding it again changes nothing (its data and due time are kept). A completed job is
   * removed at once, so its id names the next round's work; one that failed for good is replaced by the new work
   * (it leaves the failed set). Default: a fresh id.
   */
  id?: string;
  /** Not before this many ms from now. */
  delayMs?: number;
}

/** A job scheduler: every `everyMs` (the first at once), or at each time of a cron pattern read in `tz`. */
export const scheduleSchema = z.union([
  z.object({ everyMs: z.number().int().min(10) }),
  z.object({ cron: z.string().min(1), tz: z.string().min(1) }),
]);
export type LaneSchedule = z.infer<typeof scheduleSchema>;

/** The adding side of a lane: what the web role holds. */
export interface Lane<D> {
  readonly name: string;
  /**
   * Resolves with the job's id (the one given, or the fresh one made). Rejects with the schema's error for data that
   * is not the lane's, with QueueUnavailableError when Redis is not.
   */
  add(data: D, options?: AddOptions): Promise<string>;
  /** Creates or replaces scheduler `id`: one job per occurrence, whatever the number of instances. */
  schedule(id: string, schedule: LaneSchedule, data: D): Promise<void>;
  /** Removes the scheduler and its next occurrence; false when there was none. */
  unschedule(id: string): Promise<boolean>;
}

/** Jobs in the engine's store now (on Redis every instance reads the same numbers). */
export interface LaneCounts {
  waiting: number;
  delayed: number;
  active: number;
  failed: number;
}

/** Counts plus what this process's workers did since start (Prometheus sums these over instances). */
export interface LaneStats extends LaneCounts {
  lane: string;
  completedTotal: number;
  /** Tries that failed and were retried. */
  retriedTotal: number;
  /** Jobs that failed for good (landed in the failed set). */
  failedTotal: number;
  /** Started − ready, for each step's first start: due time to start, the wait a worker shortage adds. */
  wait: { count: number; sumMs: number; maxMs: number };
}

export interface FailedJob {
  id: string;
  lane: string;
  /** The job's data as JSON, shortened and with anything shaped like a token redacted. */
  data: string;
  error: string;
  attempts: number;
  failedAt: number;
}

export interface ScheduleInfo {
  id: string;
  schedule: LaneSchedule;
  nextAt: number | undefined;
  /** The data each occurrence's job is given (which workspace's it is). */
  data: unknown;
}

/** What an operator sees and can do, by lane name (on Redis also from outside the app: `npm run queues`). */
export interface QueueInspector {
  /** Every lane known: on Redis, every lane any instance has used under this namespace. */
  lanes(): Promise<string[]>;
  counts(lane: string): Promise<LaneCounts>;
  /**
   * Worker processes taking the lane's jobs now (on Redis every instance's, from its client list): 0 means added work
   * waits until a worker starts. A Redis that refuses CLIENT LIST reads as 1 (unknown, assumed served).
   */
  consumers(lane: string): Promise<number>;
  /**
   * Of `ids`, the jobs that wait for a worker now (due or delayed: not running, not done, not failed), with their
   * data, in one read (on Redis one round trip, however many ids).
   */
  queued(lane: string, ids: readonly string[]): Promise<Map<string, unknown>>;
  /** Newest first. */
  failed(lane: string, limit?: number): Promise<FailedJob[]>;
  schedules(lane: string): Promise<ScheduleInfo[]>;
  /** Runs a failed job again with all its tries; false when no failed job has this id. */
  retry(lane: string, id: string): Promise<boolean>;
  /** Deletes a failed job, freeing its id; false when no failed job has this id. */
  remove(lane: string, id: string): Promise<boolean>;
  /**
   * Deletes the lane's waiting, delayed and failed jobs whose data `match`es (a removed workspace's); running jobs
   * finish. Resolves with how many went.
   */
  discard(lane: string, match: (data: unknown) => boolean): Promise<number>;
}

export interface CloseReport {
  /** Jobs still running at the deadline, handed back (on Redis another worker takes them at once). */
  handedBack: number;
  /** Jobs that end with this process (in memory only: waiting, delayed and handed back). */
  dropped: number;
  /** Of those, the ones that never started, with their data, so whoever asked can be told (in memory only). */
  unstarted: UnstartedJob[];
}

export interface UnstartedJob {
  lane: string;
  data: unknown;
}

export interface Engine extends QueueInspector {
  readonly kind: 'memory' | 'redis';
  /** The lane's adding side (web and worker roles). The same definition may be passed any number of times. */
  lane<S extends z.ZodType>(definition: LaneDefinition<S>): Lane<z.infer<S>>;
  /** Processes the lane in this process (worker role), once per lane. */
  work<S extends z.ZodType>(definition: LaneDefinition<S>, processor: Processor<z.infer<S>>): void;
  /** Every lane this engine added to or works. */
  stats(): Promise<LaneStats[]>;
  /**
   * Stops taking work, lets running jobs finish within `deadlineMs`, then aborts their signals and hands them back,
   * then closes connections. Adds are taken until the running jobs are done (they add what follows them); adding
   * after close rejects.
   */
  close(deadlineMs: number): Promise<CloseReport>;
}

/** Told of every start and finish, for metrics (metrics.ts). */
export interface JobObserver {
  started(lane: string, waitMs: number | undefined): void;
  finished(lane: string, outcome: 'completed' | 'retried' | 'failed', durationMs: number): void;
}

/** Redis did not answer in time or is not reachable; the engine recovers by itself when it is back. */
export class QueueUnavailableError extends Error {
  override name = 'QueueUnavailableError';
}

/** Thrown by a processor when trying again cannot help: the job fails at once, without its remaining tries. */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}
