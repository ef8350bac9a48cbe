/**
 * Calendar months as day numbers (days since 1970-01-01 of the person's calendar): `this month`, `last month` and
 * month names (`november`, `nov 2025`). Pure: "today" is the caller's, already in the person's zone.
 */

const DAY_MS = 86_400_000;
const NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const FULL = 'january february march april may june july august september october november december'.split(' ');

interface DayNumbers {
  from: number;
  to: number;
}

/** The whole month `month` (0–11) of `year`, ending at `today` while it is still running. */
function wholeMonth(year: number, month: number, today: number): DayNumbers {
  const from = Date.UTC(year, month, 1) / DAY_MS;
  const last = Date.UTC(year, month + 1, 1) / DAY_MS - 1;
  return { from, to: from <= today && today < last ? today : last };
}

/** First day of the month `delta` months from today's, through today (this month) or its last day. */
export function monthRange(today: number, delta: number): DayNumbers {
  const date = new Date(today * DAY_MS);
  return wholeMonth(date.getUTCFullYear(), date.getUTCMonth() + delta, today);
}

/** 0–11 for a month's name or its three-letter short form (`nov`, `november`, `sept`), else -1. */
export function monthIndex(token: string): number {
  const short = NAMES.findIndex((name) => token.startsWith(name));
  return short >= 0 && (FULL[short] ?? '').startsWith(token) ? short : -1;
}

/**
 * The month named `month` in `year`, or without a year the latest one that has begun (November in January is last
 * year's). The current month ends today.
 */
export function namedMonth(month: number, year: number | undefined, today: number): DayNumbers {
  const now = new Date(today * DAY_MS);
  const latest = month <= now.getUTCMonth() ? now.getUTCFullYear() : now.getUTCFullYear() - 1;
  return wholeMonth(year ?? latest, month, today);
}
