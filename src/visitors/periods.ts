import { DAY_MS, dayNumber, dayString } from './date-range.js';

/**
 * Period arithmetic for comparisons and charts, in UTC calendar days. Ranges here are inclusive
 * (`from`..`to`, as people read them); the service's exclusive `dateTo` is added only when asking it.
 */

export interface DayRange {
  from: string;
  to: string;
}

/** The range of the same length ending the day before `range` starts. */
export function previousPeriod(range: DayRange): DayRange {
  const from = dayNumber(range.from) ?? 0;
  const to = dayNumber(range.to) ?? 0;
  const length = to - from + 1;
  return { from: dayString(from - length), to: dayString(from - 1) };
}

export type Granularity = 'day' | 'week' | 'month';
/** Closed buckets never change; the current one grows until its last day ends; future ones have no data yet. */
export type BucketState = 'closed' | 'current' | 'future';

export interface Bucket extends DayRange {
  state: BucketState;
}

/** Up to this many days the chart has a point per day; one chart then never needs more than ~31 requests. */
export const DAILY_MAX_DAYS = 31;
/** Up to this many days (about six months) a point per ISO week; beyond, a point per month. */
export const WEEKLY_MAX_DAYS = 183;

export function granularityFor(days: number): Granularity {
  if (days <= DAILY_MAX_DAYS) return 'day';
  if (days <= WEEKLY_MAX_DAYS) return 'week';
  return 'month';
}

/**
 * The range split into day, ISO-week (Monday–Sunday) or calendar-month buckets. The first and last buckets are
 * clipped to the range, so every day of the range is in exactly one bucket.
 */
export function buckets(range: DayRange, today: number): { granularity: Granularity; buckets: Bucket[] } {
  const from = dayNumber(range.from) ?? 0;
  const to = dayNumber(range.to) ?? 0;
  const granularity = granularityFor(to - from + 1);
  const result: Bucket[] = [];
  for (let start = from; start <= to; ) {
    const end = Math.min(to, bucketEnd(start, granularity));
    const state: BucketState = end < today ? 'closed' : start > today ? 'future' : 'current';
    result.push({ from: dayString(start), to: dayString(end), state });
    start = end + 1;
  }
  return { granularity, buckets: result };
}

/** Last day of the bucket holding `day`. */
function bucketEnd(day: number, granularity: Granularity): number {
  if (granularity === 'day') return day;
  if (granularity === 'week') {
    const isoWeekday = ((day + 3) % 7) + 1; // 1970-01-01 (day 0) was a Thursday: ISO weekday 4
    return day + (7 - isoWeekday);
  }
  const date = new Date(day * DAY_MS);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS - 1;
}

/** True when every day of the range has ended, so its numbers will not change. */
export function isClosed(range: DayRange, today: number): boolean {
  return (dayNumber(range.to) ?? 0) < today;
}
