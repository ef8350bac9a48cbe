import type { AddOptions, LaneSchedule, ScheduleInfo } from './engine.js';
import type { MemoryJob } from './memory-job.js';
import { firstOccurrence, nextOccurrence } from './occurrences.js';

interface Scheduler {
  schedule: LaneSchedule;
  json: string;
  /** The pending occurrence: one at a time, as BullMQ keeps one delayed job per scheduler. */
  next: MemoryJob | undefined;
}

type Add = (json: string, options: AddOptions, scheduler: string) => MemoryJob | undefined;

/** A lane's job schedulers in process: each occurrence is a job `repeat:<id>:<due ms>`, as BullMQ names them. */
export class MemorySchedulers {
  readonly #schedulers = new Map<string, Scheduler>();

  constructor(
    private readonly add: Add,
    private readonly forget: (job: MemoryJob) => void,
  ) {}

  schedule(id: string, schedule: LaneSchedule, json: string): void {
    const first = firstOccurrence(schedule, Date.now()); // throws on a pattern that is not cron
    this.unschedule(id);
    const entry: Scheduler = { schedule, json, next: undefined };
    this.#schedulers.set(id, entry);
    this.#addOccurrence(id, entry, first);
  }

  unschedule(id: string): boolean {
    const entry = this.#schedulers.get(id);
    if (!entry) return false;
    this.#schedulers.delete(id);
    const next = entry.next;
    if (next && (next.state === 'waiting' || next.state === 'delayed')) this.forget(next);
    return true;
  }

  list(): ScheduleInfo[] {
    return [...this.#schedulers].map(([id, { schedule, next }]) => ({ id, schedule, nextAt: next?.readyAt }));
  }

  /** An occurrence started for the first time: the next one is added now, as BullMQ does. */
  started(occurrence: MemoryJob): void {
    const id = occurrence.scheduler ?? '';
    const entry = this.#schedulers.get(id);
    if (!entry || entry.next !== occurrence) return; // replaced or removed meanwhile
    this.#addOccurrence(id, entry, nextOccurrence(entry.schedule, occurrence.readyAt, Date.now()));
  }

  #addOccurrence(id: string, entry: Scheduler, at: number): void {
    const add = (when: number) =>
      this.add(entry.json, { id: `repeat:${id}:${when}`, delayMs: Math.max(0, when - Date.now()) }, id);
    // An occurrence with this id still running (rescheduled within its millisecond): the one after it.
    entry.next = add(at) ?? add(nextOccurrence(entry.schedule, at, at + 1));
  }
}
