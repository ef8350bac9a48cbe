import { dayStart, isoWithOffset, UTC } from '../zone.js';
import { DAY_MS, dayNumber, dayString, exclusiveEnd } from './days.js';

/**
 * Period arithmetic for comparisons and charts, in calendar days of the range's zone (UTC when it has none).
 * Ranges here are inclusive (`from`..`to`, as people read them); the service's exclusive `dateTo` is added only
 * when asking it.
 */

export interface DayRange {
  from: string;
  to: string;
  /** The IANA zone whose days these are; UTC when left out. */
  tz?: string | undefined;
}

/** The instants a range covers: from its first day's start to the start of the day after its last (exclusive). */
function instants(range: DayRange): { start: number; end: number } {
  const tz = range.tz ?? UTC;
  return { start: dayStart(dayNumber(range.from) ?? 0, tz), end: dayStart((dayNumber(range.to) ?? 0) + 1, tz) };
}

/**
 * What the service is asked for a range (`dateTo` exclusive). In UTC its days, `YYYY-MM-DD`; in another zone the
 * local start of each day as ISO 8601 with the zone's offset then (`2026-11-24T00:00:00+13:00`), both formats the
 * service documents. `until` ends the window earlier, at that instant: a previous period's same hours.
 */
export function serviceWindow(range: DayRange, until?: number): { dateFrom: string; dateTo: string } {
  const tz = range.tz ?? UTC;
  const { start, end } = instants(range);
  if (until !== undefined) return { dateFrom: isoWithOffset(start, tz), dateTo: isoWithOffset(until, tz) };
  if (tz === UTC) return { dateFrom: range.from, dateTo: exclusiveEnd(range.to) };
  return { dateFrom: isoWithOffset(start, tz), dateTo: isoWithOffset(end, tz) };
}

/**
 * Like with like: while `range` is still running at `nowMs` (it ends today, or later), its previous period is
 * cut as far into it as now is into this one (the same hours of the previous day, week or month), to the minute.
 * Undefined once the range has ended: whole periods are compared.
 */
export function comparisonCut(range: DayRange, nowMs: number): number | undefined {
  const { start, end } = instants(range);
  if (nowMs >= end) return undefined;
  const previous = instants(previousPeriod(range));
  // At least a minute, so the window is never empty (the service wants dateFrom before dateTo); at most the previous
  // period's end, which a longer day (DST ending) or month now would pass.
  const cut = Math.floor((previous.start + nowMs - start) / 60_000) * 60_000;
  return Math.min(previous.end, Math.max(previous.start + 60_000, cut));
}

/**
 * The period `range` is compared with: for a month or a month so far (from the 1st), the previous month (its same
 * days, up to its last); for a week so far (from a Monday, two days or more), the same weekdays a week before;
 * otherwise the days of the same number just before (one day: the day before, a Monday's or a 1st's too).
 */
export function previousPeriod(range: DayRange): DayRange {
  const from = dayNumber(range.from) ?? 0;
  const to = dayNumber(range.to) ?? 0;
  const zone = range.tz ? { tz: range.tz } : {};
  const month = monthOf(from);
  if (to > from && month.first === from && to <= month.last) {
    const before = monthOf(from - 1);
    const last = to === month.last ? before.last : Math.min(before.last, before.first + (to - from));
    return { from: dayString(before.first), to: dayString(last), ...zone };
  }
  if (to > from && mondayOf(from) === from && to - from < 7)
    return { from: dayString(from - 7), to: dayString(to - 7), ...zone };
  const length = to - from + 1;
  return { from: dayString(from - length), to: dayString(from - 1), ...zone };
}

/** The Monday of the ISO week holding `day` (1970-01-01, day 0, was a Thursday). */
function mondayOf(day: number): number {
  return day - ((day + 3) % 7);
}

/** The first and last day of the calendar month holding `day`. */
function monthOf(day: number): { first: number; last: number } {
  const date = new Date(day * DAY_MS);
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS;
  return { first, last: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) / DAY_MS - 1 };
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
  if (granularity === 'week') return mondayOf(day) + 6;
  return monthOf(day).last;
}

/** True when every day of the range has ended, so its numbers will not change. */
export function isClosed(range: DayRange, today: number): boolean {
  // `today` is in the range's zone, as the range's days are.
  return (dayNumber(range.to) ?? 0) < today;
}
