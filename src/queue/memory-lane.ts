import {
  type AddOptions,
  Again,
  type FailedJob,
  type LaneCounts,
  type LaneDefinition,
  type LaneSchedule,
  PermanentJobError,
  type Processor,
  type ScheduleInfo,
} from './engine.js';
import { encodeData, errorText, HANDED_BACK, retryDelayMs, runProcessor, untilAborted } from './job-rules.js';
import { FailedSet, flat, type MemoryJob, newMemoryJob, type State } from './memory-job.js';
import { MemorySchedulers } from './memory-schedulers.js';
import { MinHeap } from './min-heap.js';
import type { LaneTotals } from './tracker.js';

/** setTimeout fires at once beyond this (~24.8 days): a later due time re-arms on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One lane in process: a map by id, a FIFO of waiting jobs, a heap of delayed ones and a single timer for the
 * earliest of them, so 10,000 delayed jobs cost 10,000 small objects, not 10,000 timers.
 */
export class MemoryLane {
  readonly #jobs = new Map<string, MemoryJob>();
  #waiting: MemoryJob[] = [];
  #head = 0;
  readonly #delayed = new MinHeap<MemoryJob>();
  readonly #failed = new FailedSet((job) => this.#forget(job));
  readonly #counts: LaneCounts = { waiting: 0, delayed: 0, active: 0, failed: 0 };
  readonly #schedulers = new MemorySchedulers(
    (json, options, scheduler) => this.add(json, options, scheduler),
    (job) => this.#forget(job),
  );
  readonly #running = new Map<MemoryJob, AbortController>();
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #processor: Processor<unknown> | undefined;
  #pumping = false;
  #stopped = false;
  #autoId = 0;

  constructor(
    readonly definition: LaneDefinition,
    private readonly tracker: LaneTotals,
  ) {}

  get working(): boolean {
    return this.#processor !== undefined;
  }

  counts(): LaneCounts {
    this.#failed.expire(Date.now());
    return { ...this.#counts };
  }

  add(
    json: string,
    { id = String(++this.#autoId), delayMs = 0 }: AddOptions,
    scheduler?: string,
  ): MemoryJob | undefined {
    // Waiting, delayed or active: the same work, one job. Failed for good: the new work takes its id.
    if (this.#jobs.get(id)?.state === 'failed') this.discard((job) => job.id === id);
    else if (this.#jobs.has(id)) return undefined;
    const job = newMemoryJob(id, json, Date.now() + delayMs, scheduler);
    this.#jobs.set(job.id, job);
    this.#counts.waiting++;
    if (delayMs > 0) this.#delay(job, job.readyAt);
    else this.#enqueue(job);
    return job;
  }

  work(processor: Processor<unknown>): void {
    this.#processor = processor;
    this.#pumpSoon();
  }

  schedule(id: string, schedule: LaneSchedule, json: string): void {
    this.#schedulers.schedule(id, schedule, json);
  }

  unschedule(id: string): boolean {
    return this.#schedulers.unschedule(id);
  }

  schedules = (): ScheduleInfo[] => this.#schedulers.list();

  failed(limit: number): FailedJob[] {
    this.#failed.expire(Date.now());
    return this.#failed.list(this.definition.name, limit);
  }

  retry(id: string): boolean {
    const job = this.#failed.take(id);
    if (!job) return false;
    // All its tries again; its starts are kept, so its wait is not measured as a first start (as on Redis).
    Object.assign(job, { attemptsMade: 0, readyAt: Date.now() });
    this.#move(job, 'waiting');
    this.#enqueue(job);
    return true;
  }

  /** Deletes the jobs `match` picks but running ones (the FIFO and the heap skip them); how many went. */
  discard(match: (job: MemoryJob) => boolean): number {
    const gone = [...this.#jobs.values()].filter((job) => job.state !== 'active' && match(job));
    for (const job of gone) this.#forget(this.#failed.take(job.id) ?? job);
    return gone.length;
  }

  /** Stops starting jobs; running ones go on. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** Resolves once no job of this lane is running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** The data of the jobs waiting that never started: nothing of them was done. */
  unstarted(): string[] {
    return [...this.#jobs.values()].filter((job) => job.state === 'waiting' && job.starts === 0).map((job) => job.json);
  }

  /** Aborts what still runs: each job goes back to waiting, where it ends with the process. */
  handBack(): number {
    for (const controller of this.#running.values()) controller.abort(new Error('The queue engine is closing'));
    return this.#running.size;
  }

  #enqueue(job: MemoryJob): void {
    this.#waiting.push(job);
    this.#pumpSoon();
  }

  /** Starts jobs once the caller's step is done (an occurrence is the scheduler's `next` before it can start). */
  #pumpSoon(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    queueMicrotask(() => {
      this.#pumping = false;
      this.#pump();
    });
  }

  #delay(job: MemoryJob, readyAt: number): void {
    job.readyAt = readyAt;
    this.#move(job, 'delayed');
    this.#delayed.push(readyAt, job);
    this.#arm();
  }

  #arm(): void {
    const next = this.#delayed.peekKey();
    if (this.#stopped || next === undefined || next >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = next;
    this.#timer = setTimeout(() => this.#promote(), Math.min(Math.max(0, next - Date.now()), MAX_TIMER_MS));
    this.#timer.unref();
  }

  #promote(): void {
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    while ((this.#delayed.peekKey() ?? Number.POSITIVE_INFINITY) <= now) {
      const job = this.#delayed.pop();
      if (!job || this.#jobs.get(job.id) !== job || job.state !== 'delayed' || job.readyAt > now) continue; // stale
      this.#move(job, 'waiting');
      this.#waiting.push(job);
    }
    this.#arm();
    this.#pump();
  }

  #pump(): void {
    const processor = this.#processor;
    if (!processor || this.#stopped) return;
    while (this.#running.size < this.definition.concurrency && this.#head < this.#waiting.length) {
      const job = this.#waiting[this.#head++];
      if (job && this.#jobs.get(job.id) === job && job.state === 'waiting') this.#start(job, processor);
    }
    if (this.#head > 1_024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }

  #start(job: MemoryJob, processor: Processor<unknown>): void {
    const controller = new AbortController();
    const first = job.starts++ === 0 && job.attemptsMade === 0;
    this.#move(job, 'active');
    this.#running.set(job, controller);
    if (first && job.scheduler) this.#schedulers.started(job);
    const { name } = this.definition;
    this.tracker.started(name, first ? Date.now() - job.readyAt : undefined);
    const meta = { id: job.id, lane: name, attempt: job.attemptsMade + 1, signal: controller.signal };
    const began = performance.now();
    untilAborted(runProcessor(this.definition, processor, JSON.parse(job.json), meta), controller.signal)
      .then(
        (result) => {
          this.tracker.completed(name, performance.now() - began);
          if (!(result instanceof Again)) return this.#forget(job);
          Object.assign(job, { json: flat(encodeData(this.definition, result.data)), attemptsMade: 0, starts: 0 });
          if (result.delayMs > 0) return this.#delay(job, Date.now() + result.delayMs);
          job.readyAt = Date.now();
          this.#move(job, 'waiting');
          this.#waiting.push(job);
        },
        (error: unknown) => {
          if (error === HANDED_BACK) this.#move(job, 'waiting');
          else this.#failAttempt(job, error, performance.now() - began);
        },
      )
      .finally(() => {
        this.#running.delete(job);
        this.#pump();
      });
  }

  #failAttempt(job: MemoryJob, error: unknown, durationMs: number): void {
    const attempt = ++job.attemptsMade;
    const retryInMs = retryDelayMs(this.definition, attempt, error instanceof PermanentJobError);
    if (retryInMs === undefined) this.#fail(job, error);
    else this.#delay(job, Date.now() + retryInMs);
    this.tracker.failed(this.definition.name, job.id, { attempt, error, retryInMs, durationMs });
  }

  #fail(job: MemoryJob, error: unknown): void {
    const now = Date.now();
    Object.assign(job, { error: errorText(error), failedAt: now });
    this.#move(job, 'failed');
    this.#failed.add(job, now);
  }

  /** Removes a job from the map (the FIFO and the heap skip what the map no longer holds). */
  #forget(job: MemoryJob): void {
    if (this.#jobs.get(job.id) !== job) return;
    this.#jobs.delete(job.id);
    this.#counts[job.state]--;
  }

  #move(job: MemoryJob, state: State): void {
    this.#counts[job.state]--;
    this.#counts[state]++;
    job.state = state;
  }
}
