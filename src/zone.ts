/**
 * Calendar days in a person's IANA time zone (`users.info`'s `tz`), with `Intl` only. A day is numbered as in
 * date-range.ts (days since 1970-01-01 of the local calendar); its instants run from its first local instant
 * (midnight, or the end of a DST gap that skipped midnight) to the next day's. A cron pattern's times in a zone too
 * (the digests' schedules, and the queue's schedulers that run them), on the same wall clock.
 */

import { Cron } from 'croner';

export const UTC = 'UTC';
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, format);
  }
  return format;
}

/** True for a zone `Intl` knows (`Pacific/Auckland`, `UTC`). */
export function isTimeZone(tz: string): boolean {
  try {
    formatter(tz);
    return true;
  } catch {
    return false;
  }
}

/**
 * Each zone's last answer, by second: the wall clock is read to the second, so one second's answer holds for all of
 * it. Every `/visitors` asks for today in the person's zone (BENCHMARKS §1b); a busy second asks `Intl` once.
 */
const lastSecond = new Map<string, { second: number; wall: number }>();

/** The local wall clock at `ms`, as if it were a UTC instant (so UTC getters read the local fields). */
export function wallClock(ms: number, tz: string): number {
  const second = Math.floor(ms / 1000);
  const last = lastSecond.get(tz);
  if (last?.second === second) return last.wall;
  const wall = readWallClock(ms, tz);
  lastSecond.set(tz, { second, wall });
  return wall;
}

function readWallClock(ms: number, tz: string): number {
  const f = Object.fromEntries(
    formatter(tz)
      .formatToParts(ms)
      .map((p) => [p.type, Number(p.value)]),
  );
  return Date.UTC(f.year ?? 1970, (f.month ?? 1) - 1, f.day ?? 1, f.hour ?? 0, f.minute ?? 0, f.second ?? 0);
}

/** Minutes the zone is ahead of UTC at `ms` (+780 in Auckland's summer, -480 in Los Angeles' winter). */
export function offsetMinutes(ms: number, tz: string): number {
  return Math.round((wallClock(ms, tz) - Math.floor(ms / 1000) * 1000) / MINUTE_MS);
}

/** The local day number at `ms`. */
export function zoneDay(ms: number, tz: string): number {
  return Math.floor(wallClock(ms, tz) / DAY_MS);
}

/** Today's day number in `tz` (UTC by default). */
export function todayNumber(nowMs: number, tz: string = UTC): number {
  return tz === UTC ? Math.floor(nowMs / DAY_MS) : zoneDay(nowMs, tz);
}

/** The first instant of local day `day`: the first minute whose local date is that day (zones move by minutes). */
export function dayStart(day: number, tz: string): number {
  if (tz === UTC) return day * DAY_MS;
  // Every zone is within 15 hours of UTC, so the start lies in this window; search it by the minute.
  let lo = (day * DAY_MS - 15 * 3_600_000) / MINUTE_MS;
  let hi = (day * DAY_MS + 15 * 3_600_000) / MINUTE_MS;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (zoneDay(mid * MINUTE_MS, tz) >= day) hi = mid;
    else lo = mid + 1;
  }
  return lo * MINUTE_MS;
}

/** `2026-11-24T00:00:00+13:00`: the instant `ms` as ISO 8601 in the zone's local time with its offset. */
export function isoWithOffset(ms: number, tz: string): string {
  const offset = offsetMinutes(ms, tz);
  const local = new Date(ms + offset * MINUTE_MS).toISOString().slice(0, 19);
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local}${offset < 0 ? '-' : '+'}${hhmm}`;
}

/** The zone's short name at `ms` (`PST`, `UTC`), or its offset where it has none (`GMT+13`). */
export function zoneName(ms: number, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' }).formatToParts(ms);
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? tz;
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
