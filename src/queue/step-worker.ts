import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Again, type JobMeta, PermanentJobError } from './engine.js';
import { errorText, HANDED_BACK, parseData, retryDelayMs, runProcessor, untilAborted } from './job-rules.js';
import { reconnectDelayMs, throttledErrors } from './redis-connection.js';
import type { LaneWorker, LaneWorkerOptions } from './redis-worker.js';
import { failedKept } from './step-lane.js';
import { UNREADABLE_ERROR } from './step-scripts.js';
import {
  type CycleResult,
  cycle,
  type Entry,
  formatFailure,
  parseEntry,
  type Settle,
  type StepKeys,
  stepClientName,
  stepKeys,
  stepScripts,
  unheld,
} from './step-store.js';

/**
 * The step lanes' worker (polls and the other tracking lanes on Redis). A poll is one step after another of a job
 * that lives for hours; on BullMQ each step cost about 27 Redis commands (its delayed set, promotion, its active list,
 * three events) that cannot be turned off. Here a worker settles the steps it finished and claims the next due ones
 * in one script (`CYCLE`), a batch at a time, so a step costs a few commands. A claim leases the job until
 * `lockDurationMs` from now (renewed while it runs); a lease that lapses is a take-over, counted against the step
 * only, as tries are. Same contract as BullMQ's lanes (test/queue/engine-contract.ts).
 */

/** A step whose worker died more often than this fails without running (as MAX_STALLED in redis-worker.ts). */
const MAX_TAKEOVERS = 3;
/** A finished step waits at most this long for others to settle with it in one round trip. */
const BATCH_MS = 25;
const STALLED_ERROR = 'job stalled more than allowable limit';

interface Running {
  entry: Entry;
  id: string;
  leasedAt: number;
  controller: AbortController;
}

export function startStepWorker(options: LaneWorkerOptions): LaneWorker & { wake(): void } {
  return new StepWorker(options);
}

class StepWorker implements LaneWorker {
  readonly #options: LaneWorkerOptions;
  readonly #lane: string;
  readonly #keys: StepKeys;
  readonly #redis: Redis;
  readonly #errors: ReturnType<typeof throttledErrors>;
  readonly #running = new Map<string, Running>();
  readonly #pending: Settle[] = [];
  readonly #name = randomUUID().slice(0, 8);
  readonly #loop: Promise<void>;
  readonly #renewer: NodeJS.Timeout;
  #claims = 0;
  #stopping = false;
  #abandoned = false;
  // A wake before the loop waits is remembered, so a step that finished during a round trip is not left waiting.
  #woken = false;
  #wakeUp: (() => void) | undefined;
  #batchTimer: NodeJS.Timeout | undefined;

  constructor(options: LaneWorkerOptions) {
    const { definition, prefix, timings, log, redisUrl } = options;
    this.#options = options;
    this.#lane = definition.name;
    this.#keys = stepKeys(prefix, this.#lane);
    this.#redis = new Redis(redisUrl, {
      connectionName: stepClientName(prefix, this.#lane),
      commandTimeout: timings.commandTimeoutMs,
      connectTimeout: timings.connectTimeoutMs,
      maxRetriesPerRequest: null,
      retryStrategy: reconnectDelayMs,
    });
    this.#errors = throttledErrors(log, options.where);
    this.#redis.on('error', this.#errors.error);
    this.#redis.on('ready', this.#errors.ready);
    this.#loop = this.#work();
    this.#renewer = setInterval(() => this.#renew(), timings.lockDurationMs / 6);
  }

  wake(): void {
    this.#woken = true;
    this.#wakeUp?.();
  }

  async close(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#batchTimer);
    this.wake();
    await this.#loop;
    clearInterval(this.#renewer);
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  handBack(): number {
    for (const item of this.#running.values()) item.controller.abort();
    return this.#running.size;
  }

  async disconnect(): Promise<void> {
    this.#abandoned = true;
    this.wake();
    clearInterval(this.#renewer);
    this.#redis.disconnect();
  }

  async #work(): Promise<void> {
    while (!this.#abandoned) {
      this.#woken = false;
      const until = await this.#turn();
      const idle = this.#pending.length === 0 && this.#running.size === 0;
      if (this.#stopping && idle) break;
      if (this.#woken || (this.#pending.length > 0 && (this.#stopping || this.#running.size === 0))) continue;
      await new Promise<void>((resolve) => {
        const timer = until === undefined ? undefined : setTimeout(() => this.wake(), Math.max(0, until - Date.now()));
        this.#wakeUp = () => {
          this.#wakeUp = undefined;
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** One round trip: settles what finished, claims what is due. Returns when to look again (undefined: when a step finishes). */
  async #turn(): Promise<number | undefined> {
    const { definition, timings, log } = this.#options;
    const settles = this.#pending.splice(0);
    const now = Date.now();
    const limit = this.#stopping ? 0 : definition.concurrency - this.#running.size;
    const token = `${this.#name}.${++this.#claims}`;
    const claim = { lockMs: timings.lockDurationMs, limit, token, maxTakeovers: MAX_TAKEOVERS };
    let result: CycleResult;
    try {
      result = await cycle(this.#redis, this.#keys, {
        ...claim,
        stalledError: STALLED_ERROR,
        ...failedKept(now),
        settles,
      });
    } catch (error) {
      this.#pending.unshift(...settles); // settling twice is harmless: the second finds the job no longer held
      this.#errors.error(error as Error);
      this.#woken = false; // look again after a pause, not at once on a Redis that fails
      return Date.now() + 1_000;
    }
    result.settled.forEach((held, i) => {
      const settle = settles[i];
      if (held === 0) log.warn('queue.step_superseded', { lane: this.#lane, job_id: settle?.id, kind: settle?.kind });
    });
    for (const [id, tries, json] of result.unrun) this.#unrun(id, tries, json);
    for (const id of result.unreadable) {
      const failure = { attempt: 0, error: new Error(UNREADABLE_ERROR), retryInMs: undefined, durationMs: 0 };
      this.#options.tracker.failed(this.#lane, id, failure);
    }
    for (const [id, text, tookOver] of result.claimed) {
      if (tookOver)
        log.warn('queue.job_stalled', { lane: this.#lane, job_id: id, message: 'Its lease lapsed: taken over' });
      const item = { entry: parseEntry(text), id, leasedAt: now, controller: new AbortController() };
      this.#running.set(id, item);
      void this.#run(item);
    }
    if (result.claimed.length === limit && limit > 0) return undefined;
    const nextAt = result.nextAt === '' ? Number.POSITIVE_INFINITY : Number(result.nextAt);
    return Math.min(nextAt, Date.now() + timings.stepIdleMs);
  }

  async #run(item: Running): Promise<void> {
    const { definition, processor, tracker } = this.#options;
    const { entry, id, controller } = item;
    const started = Date.now();
    const meta: JobMeta = { id, lane: this.#lane, attempt: entry.tries + 1, signal: controller.signal };
    const first = entry.tries === 0 && entry.takeovers === 0;
    tracker.started(this.#lane, first ? started - entry.readyAt : undefined);
    try {
      const result = await untilAborted(runProcessor(definition, processor, JSON.parse(entry.json), meta), meta.signal);
      if (result instanceof Again) {
        const dueAt = Date.now() + result.delayMs;
        const json = JSON.stringify(parseData(definition, result.data));
        this.#settle(item, 'again', dueAt, unheld(0, 0, dueAt, json));
      } else {
        this.#settle(item, 'done', 0, '');
        tracker.completed(this.#lane, Date.now() - started);
      }
    } catch (error) {
      this.#failed(item, meta, error, started);
    }
  }

  #failed(item: Running, meta: JobMeta, error: unknown, started: number): void {
    const { entry } = item;
    const now = Date.now();
    if (error === HANDED_BACK) {
      this.#settle(item, 'back', now, unheld(entry.tries, 0, now, entry.json));
      return;
    }
    const retryInMs = retryDelayMs(this.#options.definition, meta.attempt, error instanceof PermanentJobError);
    this.#options.tracker.failed(this.#lane, item.id, {
      attempt: meta.attempt,
      error,
      retryInMs,
      durationMs: now - started,
    });
    if (retryInMs === undefined) {
      this.#settle(item, 'fail', 0, formatFailure(meta.attempt, errorText(error), entry.json));
    } else {
      const dueAt = now + retryInMs;
      this.#settle(item, 'retry', dueAt, unheld(meta.attempt, entry.takeovers, dueAt, entry.json));
    }
  }

  /** A finished step waits for others to settle with it in one round trip: a quarter of the slots, or BATCH_MS. */
  #settle(item: Running, kind: Settle['kind'], dueAt: number, payload: string): void {
    this.#running.delete(item.id);
    this.#pending.push({ id: item.id, token: item.entry.token, kind, dueAt, payload });
    const { concurrency } = this.#options.definition;
    const free = concurrency - this.#running.size;
    if (this.#stopping || this.#running.size === 0 || free >= Math.max(1, concurrency / 4)) this.wake();
    else
      this.#batchTimer ??= setTimeout(() => {
        this.#batchTimer = undefined;
        this.wake();
      }, BATCH_MS);
  }

  /** A step taken over too often, failed without running: counted, logged, and its processor told (`unrun`). */
  #unrun(id: string, tries: string, json: string): void {
    const { definition, processor, tracker, log } = this.#options;
    const error = new Error(STALLED_ERROR);
    log.warn('queue.job_stalled', { lane: this.#lane, job_id: id, message: 'Its lease lapsed once too often' });
    tracker.failed(this.#lane, id, { attempt: Number(tries), error, retryInMs: undefined, durationMs: 0 });
    const data = definition.data.safeParse(JSON.parse(json));
    if (!data.success || !processor.unrun) return;
    processor.unrun(data.data, error, { id }).catch((failure: unknown) => {
      log.error('queue.unrun_unanswered', { lane: this.#lane, job_id: id, error: errorText(failure) });
    });
  }

  /** A step running longer than a third of the lease has its lease extended, while its claim still holds it. */
  #renew(): void {
    const { lockDurationMs } = this.#options.timings;
    const now = Date.now();
    const long = [...this.#running.values()].filter((item) => now - item.leasedAt >= lockDurationMs / 3);
    if (long.length === 0) return;
    for (const item of long) item.leasedAt = now;
    const pairs = long.flatMap((item) => [item.id, item.entry.token]);
    stepScripts(this.#redis)
      .stepRenew(this.#keys.lease, this.#keys.jobs, lockDurationMs, ...pairs)
      .catch((error: Error) => this.#errors.error(error));
  }
}
