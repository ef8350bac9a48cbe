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
import { FailedJobs, flat, heapPop, heapPush, type Job, type Scheduler } from './memory-job.js';
import { firstOccurrence, nextOccurrence } from './occurrences.js';
import type { LaneTotals } from './tracker.js';

/** setTimeout fires at once beyond this (~24.8 days): a later due time re-arms on the way. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One lane in process. Every queued job is in one min-heap on its due time with a single timer for the earliest, so
 * 10,000 delayed jobs cost 10,000 small objects, not 10,000 timers. The heap keeps jobs removed since (discarded,
 * unscheduled): they are skipped when they come up, as the map no longer holds them.
 */
export class MemoryLane {
  /** Queued and running jobs by id. */
  readonly #jobs = new Map<string, Job>();
  readonly #failed = new FailedJobs();
  readonly #heap: Job[] = [];
  readonly #running = new Map<Job, AbortController>();
  readonly #schedulers = new Map<string, Scheduler>();
  #processor: Processor<unknown> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #stopped = false;
  #autoId = 0;

  constructor(
    readonly definition: LaneDefinition,
    private readonly tracker: LaneTotals,
  ) {}

  get working(): boolean {
    return this.#processor !== undefined;
  }

  work(processor: Processor<unknown>): void {
    this.#processor = processor;
    queueMicrotask(() => this.#pump());
  }

  /** The new job, or undefined when a job with this id is queued or running (the same work, one job). */
  add(json: string, { id = String(++this.#autoId), delayMs = 0 }: AddOptions, scheduler = ''): Job | undefined {
    if (this.#jobs.has(id)) return undefined;
    this.#failed.delete(id); // failed for good: the new work takes its id
    const job: Job = { id: flat(id), json: flat(json), readyAt: Date.now() + delayMs, tries: 0, seq: 0, scheduler };
    this.#jobs.set(id, job);
    this.#queue(job);
    return job;
  }

  counts(): LaneCounts {
    this.#failed.expire();
    const now = Date.now();
    const counts = { waiting: 0, delayed: 0, active: this.#running.size, failed: this.#failed.size };
    for (const job of this.#jobs.values())
      if (!this.#running.has(job)) counts[job.readyAt <= now ? 'waiting' : 'delayed']++;
    return counts;
  }

  /** Of `ids`, the jobs queued and not running, with their data. */
  queued(ids: readonly string[]): Map<string, unknown> {
    const jobs = ids.flatMap((id) => this.#jobs.get(id) ?? []).filter((job) => !this.#running.has(job));
    return new Map(jobs.map((job) => [job.id, JSON.parse(job.json)]));
  }

  schedule(id: string, schedule: LaneSchedule, json: string): void {
    const first = firstOccurrence(schedule, Date.now()); // throws on a pattern that is not cron
    this.unschedule(id);
    const entry: Scheduler = { schedule, json, next: undefined };
    this.#schedulers.set(id, entry);
    this.#occur(id, entry, first);
  }

  unschedule(id: string): boolean {
    const next = this.#schedulers.get(id)?.next;
    if (next && this.#jobs.get(next.id) === next && !this.#running.has(next)) this.#jobs.delete(next.id);
    return this.#schedulers.delete(id);
  }

  schedules(): ScheduleInfo[] {
    return [...this.#schedulers].map(([id, { schedule, next, json }]) => ({
      id,
      schedule,
      nextAt: next?.readyAt,
      data: JSON.parse(json),
    }));
  }

  /** Newest first. */
  failed(limit: number): FailedJob[] {
    return this.#failed.expire().list(this.definition.name, limit);
  }

  retry(id: string): boolean {
    const job = this.#failed.get(id);
    if (!job || !this.#failed.delete(id)) return false;
    Object.assign(job, { readyAt: Date.now(), tries: 0 }); // all its tries again
    this.#jobs.set(id, job);
    this.#queue(job);
    return true;
  }

  remove(id: string): boolean {
    return this.#failed.delete(id);
  }

  /** Deletes the queued and failed jobs whose data matches (running ones finish); how many went. */
  discard(match: (data: unknown) => boolean): number {
    let gone = 0;
    for (const jobs of [this.#jobs, this.#failed]) {
      for (const job of jobs.values()) {
        if (!this.#running.has(job) && match(JSON.parse(job.json)) && jobs.delete(job.id)) gone++;
      }
    }
    return gone;
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

  /** Aborts what still runs: each job stays queued, where it ends with the process. */
  handBack(): number {
    for (const controller of this.#running.values()) controller.abort(new Error('The queue engine is closing'));
    return this.#running.size;
  }

  /** What ends with the process: the queued jobs, and the data of those due that never started (nothing was done). */
  left(): { dropped: number; unstarted: string[] } {
    const now = Date.now();
    const jobs = [...this.#jobs.values()];
    const unstarted = jobs.filter((job) => job.tries === 0 && job.readyAt <= now).map((job) => job.json);
    return { dropped: jobs.length, unstarted };
  }

  /**
   * Puts a job in the heap at its due time and makes sure it starts then; once the caller's step is done, when due
   * now (an occurrence is its scheduler's `next` before it can start).
   */
  #queue(job: Job): void {
    heapPush(this.#heap, job);
    const now = Date.now();
    if (job.readyAt <= now) queueMicrotask(() => this.#pump());
    else this.#arm(now);
  }

  /** Starts the due jobs the concurrency allows, then arms the timer for the next due time. */
  #pump(): void {
    const processor = this.#processor;
    if (!processor || this.#stopped) return;
    const now = Date.now();
    for (let job = this.#heap[0]; job; job = this.#heap[0]) {
      const live = this.#jobs.get(job.id) === job;
      if (live && (job.readyAt > now || this.#running.size >= this.definition.concurrency)) break;
      heapPop(this.#heap);
      if (live) this.#start(job, processor);
    }
    this.#arm(now);
  }

  /**
   * One timer for the earliest due time ahead; a due job that waits for a free slot starts when one frees. `now` is
   * the caller's reading: read again here, a job it saw not yet due could look due and get no timer at all.
   */
  #arm(now: number): void {
    const next = this.#heap[0]?.readyAt ?? Number.POSITIVE_INFINITY;
    if (this.#stopped || next <= now || next >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = next;
    // Due beyond the timer's range, it fires early and the pump arms it again.
    this.#timer = setTimeout(
      () => {
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#pump();
      },
      Math.max(0, Math.min(next - Date.now(), MAX_TIMER_MS)),
    );
    this.#timer.unref();
  }

  #start(job: Job, processor: Processor<unknown>): void {
    const controller = new AbortController();
    this.#running.set(job, controller);
    const first = job.tries++ === 0;
    if (first && job.scheduler) this.#occurred(job);
    const { name } = this.definition;
    this.tracker.started(name, first ? Date.now() - job.readyAt : undefined);
    const meta = { id: job.id, lane: name, attempt: job.tries, signal: controller.signal };
    const began = performance.now();
    // A next step's data is checked within the try: data that is not the lane's fails it, as on Redis.
    const run = runProcessor(this.definition, processor, JSON.parse(job.json), meta).then((result) =>
      result instanceof Again ? { json: flat(encodeData(this.definition, result.data)), delayMs: result.delayMs } : 0,
    );
    // Out of the running set before it is queued again, so no pump starts it twice.
    untilAborted(run, controller.signal)
      .then(
        (next) => {
          this.#running.delete(job);
          this.tracker.completed(name, performance.now() - began);
          if (!next) return void this.#jobs.delete(job.id);
          // The next step: its own tries, due time and wait.
          Object.assign(job, { json: next.json, readyAt: Date.now() + next.delayMs, tries: 0 });
          heapPush(this.#heap, job);
        },
        (error: unknown) => {
          this.#running.delete(job);
          if (error !== HANDED_BACK) this.#failTry(job, error, performance.now() - began);
        },
      )
      .finally(() => this.#pump());
  }

  #failTry(job: Job, error: unknown, durationMs: number): void {
    const retryInMs = retryDelayMs(this.definition, job.tries, error instanceof PermanentJobError);
    this.tracker.failed(this.definition.name, job.id, { attempt: job.tries, error, retryInMs, durationMs });
    if (retryInMs !== undefined) {
      job.readyAt = Date.now() + retryInMs;
      heapPush(this.#heap, job);
      return;
    }
    Object.assign(job, { error: errorText(error), failedAt: Date.now() });
    this.#jobs.delete(job.id);
    this.#failed.set(job.id, job).expire();
  }

  /** An occurrence started for the first time: the next one is added now, as BullMQ does. */
  #occurred(occurrence: Job): void {
    const entry = this.#schedulers.get(occurrence.scheduler);
    if (entry?.next !== occurrence) return; // replaced or removed meanwhile
    this.#occur(occurrence.scheduler, entry, nextOccurrence(entry.schedule, occurrence.readyAt, Date.now()));
  }

  #occur(id: string, entry: Scheduler, at: number): void {
    const add = (when: number) =>
      this.add(entry.json, { id: `repeat:${id}:${when}`, delayMs: Math.max(0, when - Date.now()) }, id);
    // An occurrence with this id still running (rescheduled within its millisecond): the one after it.
    entry.next = add(at) ?? add(nextOccurrence(entry.schedule, at, at + 1));
  }
}
