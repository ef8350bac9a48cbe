/** Day arithmetic: a day is its number of days since 1970-01-01, written `YYYY-MM-DD`. Pure, and stands on nothing. */

export const DAY_MS = 86_400_000;

/**
 * Day number (days since 1970-01-01) of a real calendar day, or undefined (`2026-02-30`, `2026-13-01`, `2026-1-1`):
 * a day is real when writing its number back gives the same `YYYY-MM-DD` (mintlify/schemas' isCalendarDay).
 */
export function dayNumber(day: string): number | undefined {
  const number = Date.parse(`${day}T00:00:00Z`) / DAY_MS;
  return Number.isInteger(number) && dayString(number) === day ? number : undefined;
}

export function dayString(dayNum: number): string {
  return new Date(dayNum * DAY_MS).toISOString().slice(0, 10);
}

/** Days in the inclusive range; only meaningful for real days. */
export function spanDays(from: string, to: string): number {
  return (dayNumber(to) ?? 0) - (dayNumber(from) ?? 0) + 1;
}

/** The service's `dateTo` is exclusive: the day after the last day shown. */
export function exclusiveEnd(to: string): string {
  return dayString((dayNumber(to) ?? 0) + 1);
}
