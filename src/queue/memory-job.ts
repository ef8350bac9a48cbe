import type { FailedJob, LaneCounts } from './engine.js';
import { FAILED_KEPT, summarise } from './job-rules.js';

export type State = keyof LaneCounts;

/**
 * V8 builds a long string (JSON text, an id from a template) as a rope of its parts; reading it as a number makes V8
 * flatten it in place. A job waits minutes here, where a flat id and data cost about 150 bytes less (BENCHMARKS §8).
 */
export function flat(text: string): string {
  Number(text);
  return text;
}

/** A new job, waiting until `readyAt`. */
export function newMemoryJob(id: string, json: string, readyAt: number, scheduler?: string): MemoryJob {
  const job: MemoryJob = { id: flat(id), json: flat(json), state: 'waiting', readyAt, attemptsMade: 0, starts: 0 };
  if (scheduler) job.scheduler = scheduler;
  return job;
}

/** One job in memory: a few fields and its data as the JSON text it would be on Redis (~300 bytes plus the data). */
export interface MemoryJob {
  id: string;
  json: string;
  state: State;
  /** When its current wait ends (added, delayed, backoff). */
  readyAt: number;
  /** Failed tries so far. */
  attemptsMade: number;
  starts: number;
  error?: string;
  failedAt?: number;
  /** The scheduler this job is an occurrence of. */
  scheduler?: string;
}

/** A lane's failed jobs, oldest first, bounded in count and age like BullMQ's `removeOnFail`. */
export class FailedSet {
  #jobs: MemoryJob[] = [];

  /** `evict` is told of each job dropped for being too many or too old, so its id is freed. */
  constructor(private readonly evict: (job: MemoryJob) => void) {}

  add(job: MemoryJob, now: number): void {
    this.#jobs.push(job);
    const excess = this.#jobs.length - FAILED_KEPT.count;
    if (excess > 0) for (const old of this.#jobs.splice(0, excess)) this.evict(old);
    this.expire(now);
  }

  /** Takes the failed job `id` out of the set (to retry or delete it). */
  take(id: string): MemoryJob | undefined {
    const index = this.#jobs.findIndex((job) => job.id === id);
    return index < 0 ? undefined : this.#jobs.splice(index, 1)[0];
  }

  /** Newest first. */
  list(lane: string, limit: number): FailedJob[] {
    return this.#jobs
      .slice(-limit)
      .reverse()
      .map((job) => ({
        id: job.id,
        lane,
        data: summarise(job.json),
        error: job.error ?? '',
        attempts: job.attemptsMade,
        failedAt: job.failedAt ?? 0,
      }));
  }

  expire(now: number): void {
    while ((this.#jobs[0]?.failedAt ?? now) < now - FAILED_KEPT.ageMs) {
      const old = this.#jobs.shift();
      if (old) this.evict(old);
    }
  }
}
