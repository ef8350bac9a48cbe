import { DelayedError, type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import type { Logger } from '../log.js';
import { Again, type JobMeta, type LaneDefinition, PermanentJobError, type Processor } from './engine.js';
import { errorText, HANDED_BACK, parseData, retryDelayMs, runProcessor, untilAborted } from './job-rules.js';
import { cronRepeatStrategy } from './occurrences.js';
import { type RedisTimings, throttledErrors, workerConnectionOptions } from './redis-connection.js';
import type { LaneTotals } from './tracker.js';

/**
 * A job whose worker died is taken over when its lock lapses; one that keeps killing its worker fails after this
 * many take-overs instead of looping (BullMQ's default, 1, would fail a job on the second deploy that interrupts it).
 */
const MAX_STALLED = 3;

export interface LaneWorkerOptions {
  definition: LaneDefinition;
  processor: Processor<unknown>;
  redisUrl: string;
  where: string;
  prefix: string;
  timings: RedisTimings;
  tracker: LaneTotals;
  log: Logger;
}

export interface LaneWorker {
  /** Stops fetching; resolves once running jobs are done (or handed back). */
  close(): Promise<void>;
  /** Aborts running jobs' signals: each goes back to waiting for another worker. Returns how many. */
  handBack(): number;
  /** Drops the connections without waiting (after a close that did not end in time). */
  disconnect(): Promise<void>;
  /** Looks for due work at once: a step worker told of an add (BullMQ's workers wait on their own fetch). */
  wake?(): void;
}

/** A BullMQ Worker on one lane, running plain processors and counting what they did. */
export function startLaneWorker(options: LaneWorkerOptions): LaneWorker {
  const { definition, redisUrl, prefix, timings, tracker, log } = options;
  const running = new Set<string>();
  const nextStep: NextStep = (job, token, again) => reschedule(worker, job, token, again);
  const worker: Worker = new Worker(
    definition.name,
    (job, token, signal) => run(options, running, nextStep, job, token, signal),
    {
      connection: workerConnectionOptions(redisUrl, timings),
      prefix,
      concurrency: definition.concurrency,
      lockDuration: timings.lockDurationMs,
      stalledInterval: timings.stalledIntervalMs,
      maxStalledCount: MAX_STALLED,
      drainDelay: 1,
      // After a failed Redis command the fetch loop waits this long before trying again (BullMQ's default is 15 s).
      runRetryDelay: 1_000,
      // The next occurrence of a scheduler is computed when its current one starts.
      settings: { repeatStrategy: cronRepeatStrategy },
    },
  );
  const errors = throttledErrors(log, options.where);
  worker.on('error', errors.error);
  worker.on('ready', errors.ready);
  worker.on('completed', (job) => tracker.completed(definition.name, sinceStart(job)));
  worker.on('failed', (job, error) => {
    if (!job?.id) return;
    const attempt = job.attemptsMade;
    const retryInMs = retryDelayMs(definition, attempt, error.name === 'UnrecoverableError');
    tracker.failed(definition.name, job.id, { attempt, error, retryInMs, durationMs: sinceStart(job) });
    // Failed at its start, unrun: BullMQ defers the failure of a job taken over too often to its next start.
    if (job.deferredFailure && options.processor.unrun) {
      options.processor
        .unrun(job.data, error, { id: job.id })
        .catch((failure: unknown) =>
          log.error('queue.unrun_unanswered', { lane: definition.name, job_id: job.id, error: errorText(failure) }),
        );
    }
  });
  worker.on('stalled', (jobId) =>
    log.warn('queue.job_stalled', {
      lane: definition.name,
      job_id: jobId,
      message: 'Its worker stopped renewing the lock (died or hung): the job is back in its queue',
    }),
  );
  return {
    close: () => worker.close(),
    handBack() {
      const count = running.size;
      worker.cancelAllJobs('The queue engine is closing');
      return count;
    },
    disconnect: () => worker.disconnect(),
  };
}

type NextStep = (job: Job, token: string | undefined, again: Again) => Promise<void>;

async function run(
  { definition, processor, tracker }: LaneWorkerOptions,
  running: Set<string>,
  nextStep: NextStep,
  job: Job,
  token: string | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const id = job.id ?? '';
  const abort = signal ?? new AbortController().signal;
  const meta: JobMeta = { id, lane: definition.name, attempt: job.attemptsMade + 1, signal: abort };
  // A step's first start (its tries and starts are reset with each step): its wait is the lane's wait.
  const first = job.attemptsMade === 0 && job.attemptsStarted <= 1;
  tracker.started(definition.name, first ? (job.processedOn ?? Date.now()) - readyAt(job) : undefined);
  running.add(id);
  try {
    const result = await untilAborted(runProcessor(definition, processor, job.data, meta), abort);
    if (result instanceof Again) {
      await nextStep(job, token, new Again(parseData(definition, result.data), result.delayMs));
      throw new DelayedError();
    }
  } catch (error) {
    if (error instanceof DelayedError) throw error;
    if (error === HANDED_BACK) {
      // On a Redis that does not answer, the lock lapses instead and the stalled check returns the job.
      await job.moveToWait(token).catch(() => {});
      throw new WaitingError();
    }
    if (error instanceof PermanentJobError) throw new UnrecoverableError(error.message);
    throw error;
  } finally {
    running.delete(id);
  }
}

/**
 * The same job, its next step, in one script (never lost, never half done): back to delayed with its new data and
 * a budget of its own, as if added now with the step's delay. BullMQ's `moveToDelayed` keeps tries made (`atm`),
 * tries started (`ats`) and take-overs (`stc`), so its script resets them with the data; the step is due at
 * `timestamp + opts.delay`. Our jobs' options are plain JSON (no flow or deduplication keys, which BullMQ encodes),
 * so they are written back as they were read.
 */
async function reschedule(worker: Worker, job: Job, token: string | undefined, { data, delayMs }: Again) {
  const now = Date.now();
  const fields = {
    data: JSON.stringify(data),
    opts: JSON.stringify({ ...job.opts, delay: delayMs }),
    timestamp: now,
    atm: 0,
    ats: 0,
    stc: 0,
  };
  await worker
    .getBackend()
    .moveToDelayed(job.id ?? '', now, delayMs, token, { skipAttempt: true, fieldsToUpdate: fields });
}

/** When the job (or its step) became due: added, plus its delay (BullMQ zeroes `delay` when it promotes a job). */
function readyAt(job: Job): number {
  return job.timestamp + (job.opts.delay ?? 0);
}

function sinceStart(job: Job): number {
  return Date.now() - (job.processedOn ?? Date.now());
}
