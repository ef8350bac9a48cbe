import type { FailedJob, LaneSchedule } from './engine.js';
import { FAILED_KEPT, summarise } from './job-rules.js';

/** One job: its data as the JSON text it would be on Redis. Waiting or delayed is only whether `readyAt` passed. */
export interface Job {
  id: string;
  json: string;
  /** When its current wait ends (added, `Again`, backoff). */
  readyAt: number;
  /** Tries of its current step started so far (0: the step never started). */
  tries: number;
  /** Its place among jobs due at the same millisecond. */
  seq: number;
  /** The scheduler this job is an occurrence of, '' for none. */
  scheduler: string;
  error?: string;
  failedAt?: number;
}

/** A job scheduler: one pending occurrence at a time, as BullMQ keeps one delayed job per scheduler. */
export interface Scheduler {
  schedule: LaneSchedule;
  json: string;
  next: Job | undefined;
}

/**
 * V8 builds a long string (JSON text, an id from a template) as a rope of its parts; reading it as a number makes V8
 * flatten it in place. A job waits minutes here, where a flat id and data cost about 150 bytes less (BENCHMARKS §8).
 */
export function flat(text: string): string {
  Number(text);
  return text;
}

let pushes = 0;
/** Due first, and in the order they were queued among jobs due at the same millisecond (FIFO, as on Redis). */
const before = (a: Job, b: Job) => a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);

/** Adds `job` to a binary min-heap of due times. */
export function heapPush(heap: Job[], job: Job): void {
  job.seq = pushes++;
  let i = heap.push(job) - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const above = heap[parent] as Job;
    if (before(above, job)) break;
    heap[i] = above;
    i = parent;
  }
  heap[i] = job;
}

/** Removes the heap's first job. */
export function heapPop(heap: Job[]): void {
  const last = heap.pop();
  if (!last || heap.length === 0) return;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    const right = heap[child + 1];
    if (right && before(right, heap[child] as Job)) child++;
    const below = heap[child];
    if (!below || before(last, below)) break;
    heap[i] = below;
    i = child;
  }
  heap[i] = last;
}

/** A lane's failed jobs by id, oldest first, bounded in count and age like BullMQ's `removeOnFail`. */
export class FailedJobs extends Map<string, Job> {
  /** Drops the oldest beyond the bounds, freeing their ids. */
  expire(): this {
    const oldest = Date.now() - FAILED_KEPT.ageMs;
    for (const job of this.values()) {
      if (this.size <= FAILED_KEPT.count && (job.failedAt ?? 0) >= oldest) break;
      this.delete(job.id);
    }
    return this;
  }

  /** Newest first. */
  list(lane: string, limit: number): FailedJob[] {
    return [...this.values()]
      .slice(-limit)
      .reverse()
      .map((job) => {
        const { id, json, error = '', tries: attempts, failedAt = 0 } = job;
        return { id, lane, data: summarise(json), error, attempts, failedAt };
      });
  }
}
