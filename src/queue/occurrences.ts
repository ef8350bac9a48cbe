import type { RepeatStrategy } from 'bullmq';
import { nextCronTime } from '../zone.js';
import type { LaneSchedule } from './engine.js';

/**
 * When the in-process engine runs a scheduler, as BullMQ's job schedulers do: `everyMs` at once and then every
 * `everyMs`; a cron pattern at its next time in `tz`. One occurrence is pending at a time, so a process that was
 * busy for a while runs a missed occurrence once, not once per miss.
 */
export function firstOccurrence(schedule: LaneSchedule, now: number): number {
  return 'everyMs' in schedule ? now : nextCron(schedule, now);
}

export function nextOccurrence(schedule: LaneSchedule, previous: number, now: number): number {
  if ('everyMs' in schedule) return Math.max(previous + schedule.everyMs, now);
  return nextCron(schedule, Math.max(previous, now));
}

/**
 * BullMQ's next time for a cron scheduler, by the same maths as the in-process engine and the digest's "Next:"
 * (`nextCronTime`, in `zone.ts` beside the wall clock it reads). BullMQ's default (cron-parser) runs a time
 * the clocks skip 30 minutes later than croner says.
 */
export const cronRepeatStrategy: RepeatStrategy = (after, { pattern, tz }) =>
  pattern ? nextCron({ cron: pattern, tz: tz ?? 'UTC' }, after) : undefined;

function nextCron({ cron, tz }: { cron: string; tz: string }, after: number): number {
  const next = nextCronTime(cron, tz, after);
  if (next === undefined) throw new Error(`Cron pattern ${cron} has no next time`);
  return next;
}
