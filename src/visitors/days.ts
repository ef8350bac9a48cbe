import { isCalendarDay } from '../mintlify/schemas.js';
import { UTC, zoneDay } from './zone.js';

/** Day arithmetic: a day is its number of days since 1970-01-01, written `YYYY-MM-DD`. Pure. */

export const DAY_MS = 86_400_000;

/** Day number (days since 1970-01-01) of a real calendar day, or undefined (`2026-02-30`, `2026-13-01`). */
export function dayNumber(day: string): number | undefined {
  return isCalendarDay(day) ? Date.parse(`${day}T00:00:00Z`) / DAY_MS : undefined;
}

export function dayString(dayNum: number): string {
  return new Date(dayNum * DAY_MS).toISOString().slice(0, 10);
}

/** Today's day number in `tz` (UTC by default). */
export function todayNumber(nowMs: number, tz: string = UTC): number {
  return tz === UTC ? Math.floor(nowMs / DAY_MS) : zoneDay(nowMs, tz);
}

/** Days in the inclusive range; only meaningful for real days. */
export function spanDays(from: string, to: string): number {
  return (dayNumber(to) ?? 0) - (dayNumber(from) ?? 0) + 1;
}

/** The service's `dateTo` is exclusive: the day after the last day shown. */
export function exclusiveEnd(to: string): string {
  return dayString((dayNumber(to) ?? 0) + 1);
}
