import type { RepeatStrategy } from 'bullmq';
import { Cron } from 'croner';
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
 * (`nextCronTime`). BullMQ's default (cron-parser) runs a time the clocks skip 30 minutes later than croner says.
 */
export const cronRepeatStrategy: RepeatStrategy = (after, { pattern, tz }) =>
  pattern ? nextCron({ cron: pattern, tz: tz ?? 'UTC' }, after) : undefined;

function nextCron({ cron, tz }: { cron: string; tz: string }, after: number): number {
  const next = nextCronTime(cron, tz, after);
  if (next === undefined) throw new Error(`Cron pattern ${cron} has no next time`);
  return next;
}

// A cron pattern's times in a zone, by croner, but for one case. Croner runs a time a DST gap skips at the gap's end
// only when that is the same day, so where the gap crosses midnight (23:00 Saturday → 00:00 Sunday in America/Nuuk,
// the last Saturday of March) 23:30 does not run that day at all. Here it runs when the clocks resume, as elsewhere:
// the pattern's wall time is found on a UTC clock, and when no instant reads it, the gap's end is taken instead.

/** The first time of `cron` in `tz` after `after`. */
export function nextCronTime(cron: string, tz: string, after: number): number | undefined {
  const next = new Cron(cron, { timezone: tz, paused: true }).nextRun(new Date(after))?.getTime();
  const wall = new Cron(cron, { timezone: 'UTC', paused: true }).nextRun(new Date(wallClock(after, tz)));
  const resumed = skipped(wall, next, tz);
  return resumed !== undefined && resumed > after && (next === undefined || resumed < next) ? resumed : next;
}

/** The latest time of `cron` in `tz` at or before `at`. */
export function latestCronTime(cron: string, tz: string, at: number): number | undefined {
  const [latest] = new Cron(cron, { timezone: tz, paused: true }).previousRuns(1, new Date(at + 1));
  const [wall] = new Cron(cron, { timezone: 'UTC', paused: true }).previousRuns(1, new Date(wallClock(at, tz) + 1));
  const last = latest?.getTime();
  const resumed = skipped(wall, last, tz);
  return resumed !== undefined && resumed <= at && (last === undefined || resumed > last) ? resumed : last;
}

/** Where croner's time is not the pattern's wall time `wall` because a DST gap skipped it: the gap's end. */
function skipped(wall: Date | null | undefined, croner: number | undefined, tz: string): number | undefined {
  if (!wall || (croner !== undefined && wallClock(croner, tz) === wall.getTime())) return undefined;
  return gapEnd(wall.getTime(), tz);
}

/**
 * When the wall time `wall` (read as UTC) falls in a DST gap of `tz`, the first instant after it; otherwise nothing.
 * The first second whose wall clock reads `wall` or later: `wall` itself where it exists, later only past a gap.
 */
function gapEnd(wall: number, tz: string): number | undefined {
  // Every zone is within 15 hours of UTC, so that second lies in this window.
  let lo = Math.floor((wall - 15 * 3_600_000) / 1000);
  let hi = Math.ceil((wall + 15 * 3_600_000) / 1000);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallClock(mid * 1000, tz) >= wall) hi = mid;
    else lo = mid + 1;
  }
  return wallClock(lo * 1000, tz) === wall ? undefined : lo * 1000;
}

const offsets = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `tz` at `ms`, as if it were a UTC instant (`GMT-02:00` read from `Intl`). */
function wallClock(ms: number, tz: string): number {
  let format = offsets.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    offsets.set(tz, format);
  }
  const name = format.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const [, sign, hours, minutes] = /GMT([+-])(\d\d):(\d\d)/.exec(name) ?? [];
  const offset = (Number(hours ?? 0) * 60 + Number(minutes ?? 0)) * 60_000;
  return ms + (sign === '-' ? -offset : offset);
}
