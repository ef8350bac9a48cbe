import { z } from 'zod';
import { escapeMrkdwn, truncate } from '../../slack/mrkdwn.js';
import { isTimeZone, latestCronTime, nextCronTime, todayNumber, UTC, wallClock } from '../../zone.js';
import { DAY_MS, dayString } from '../days.js';
import type { DayRange } from '../periods.js';

/**
 * When a channel's digest is posted and which period it covers, in the zone of the person who subscribed it (UTC
 * for subscriptions made before zones, or when Slack could not say). Pure apart from croner's date maths.
 */

export const CADENCES = ['daily', 'weekly', 'monthly'] as const;
export type Cadence = (typeof CADENCES)[number];
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

export const ScheduleSchema = z.object({
  cadence: z.enum(CADENCES),
  hour: z.number().int().min(0).max(23),
  minute: z.number().int().min(0).max(59),
  /** 0 = Sunday … 6 = Saturday; weekly digests only. */
  weekday: z.number().int().min(0).max(6).optional(),
  /** The subscriber's IANA zone: the hour is theirs and the periods are their days. UTC when left out. */
  tz: z.string().max(64).refine(isTimeZone, 'not a time zone').optional(),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

export const DEFAULT_TIME = { hour: 9, minute: 0 } as const;
export const DEFAULT_WEEKDAY = 1; // Monday

export function cronPattern(schedule: Schedule): string {
  const { minute, hour } = schedule;
  if (schedule.cadence === 'daily') return `${minute} ${hour} * * *`;
  if (schedule.cadence === 'weekly') return `${minute} ${hour} * * ${schedule.weekday ?? DEFAULT_WEEKDAY}`;
  return `${minute} ${hour} 1 * *`;
}

/** The latest scheduled instant at or before `nowMs`, if it is not before `sinceMs` (the subscription's start). */
export function latestDue(schedule: Schedule, nowMs: number, sinceMs: number): number | undefined {
  const at = latestCronTime(cronPattern(schedule), schedule.tz ?? UTC, nowMs);
  return at !== undefined && at >= sinceMs ? at : undefined;
}

/** The next scheduled instant after `nowMs` (on the subscriber's wall clock; a time the clocks skip when they resume). */
export function nextDue(schedule: Schedule, nowMs: number): number | undefined {
  return nextCronTime(cronPattern(schedule), schedule.tz ?? UTC, nowMs);
}

/**
 * The closed period a digest posted at `firedAtMs` reports on: yesterday (daily), the 7 days up to yesterday
 * (weekly), the previous calendar month (monthly). Derived from the scheduled instant, not the clock, so a digest
 * sent late covers the same period as one sent on time. An instant earlier in its day than the schedule's time is
 * the day before's, moved past midnight by a DST gap (23:30 in Nuuk run at 00:00), and reports as that day would.
 */
export function digestPeriod(
  { cadence, tz, hour, minute }: Pick<Schedule, 'cadence' | 'tz' | 'hour' | 'minute'>,
  firedAtMs: number,
): DayRange {
  const wall = wallClock(firedAtMs, tz ?? UTC) % DAY_MS;
  const today = todayNumber(firedAtMs, tz) - (wall < (hour * 60 + minute) * 60_000 ? 1 : 0);
  const zone = tz && tz !== UTC ? { tz } : {};
  if (cadence === 'daily') return { from: dayString(today - 1), to: dayString(today - 1), ...zone };
  if (cadence === 'weekly') return { from: dayString(today - 7), to: dayString(today - 1), ...zone };
  const date = new Date(today * DAY_MS);
  const first = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1) / DAY_MS;
  const last = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) / DAY_MS - 1;
  return { from: dayString(first), to: dayString(last), ...zone };
}

/** The range the digest's chart shows: the period itself, or the last 14 days for a one-day digest. */
export function chartRange(cadence: Cadence, period: DayRange): DayRange {
  if (cadence !== 'daily') return period;
  const to = Date.parse(`${period.to}T00:00:00Z`) / DAY_MS;
  return { ...period, from: dayString(to - 13) };
}

/** `weekly on Monday at 09:00 UTC`, `daily at 08:00 (Pacific/Auckland)`. */
export function describeSchedule(schedule: Schedule): string {
  const hhmm = `${String(schedule.hour).padStart(2, '0')}:${String(schedule.minute).padStart(2, '0')}`;
  const time = schedule.tz && schedule.tz !== UTC ? `${hhmm} (${schedule.tz})` : `${hhmm} UTC`;
  if (schedule.cadence === 'daily') return `daily at ${time}`;
  if (schedule.cadence === 'monthly') return `monthly on the 1st at ${time}`;
  return `weekly on ${WEEKDAY_NAMES[schedule.weekday ?? DEFAULT_WEEKDAY]} at ${time}`;
}

export type DigestCommand =
  | { kind: 'show' }
  | { kind: 'off' }
  | { kind: 'subscribe'; schedule: Schedule }
  | { kind: 'invalid'; problem: string };

const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/**
 * `digest`, `digest off`, `digest daily|weekly|monthly [weekday] [HH:MM] [utc]` (words after `/visitors`; the
 * cadences a kind of digest offers). The
 * time is on the subscriber's clock (`tz`); `utc` makes it UTC's.
 */
export function parseDigestCommand(
  tokens: string[],
  tz: string = UTC,
  cadences: readonly Cadence[] = CADENCES,
): DigestCommand {
  const [first, ...rest] = tokens;
  if (first === undefined) return { kind: 'show' };
  if (['off', 'stop', 'unsubscribe'].includes(first) && rest.length === 0) return { kind: 'off' };
  if (!(cadences as readonly string[]).includes(first)) {
    const named = cadences.map((cadence) => `\`${cadence}\``).join(', ');
    return { kind: 'invalid', problem: `\`digest\` needs ${named} or \`off\`.` };
  }
  const cadence = first as Cadence;
  let time: { hour: number; minute: number } | undefined;
  let weekday: number | undefined;
  let zone = tz;
  for (const token of rest) {
    const match = TIME.exec(token);
    const day = WEEKDAYS.findIndex(
      (d) => token.startsWith(d) && 'sunday monday tuesday wednesday thursday friday saturday'.includes(token),
    );
    if (match && !time) time = { hour: Number(match[1]), minute: Number(match[2]) };
    else if (day >= 0 && cadence === 'weekly' && weekday === undefined) weekday = day;
    else if (token === 'utc') zone = UTC;
    else {
      const shown = escapeMrkdwn(truncate(token.replace(/`/g, "'"), 20));
      return {
        kind: 'invalid',
        problem: `I don't understand \`${shown}\` in a digest schedule (times are HH:MM, on your clock).`,
      };
    }
  }
  const schedule: Schedule = {
    cadence,
    ...(time ?? DEFAULT_TIME),
    ...(cadence === 'weekly' && { weekday: weekday ?? DEFAULT_WEEKDAY }),
    ...(zone !== UTC && { tz: zone }),
  };
  return { kind: 'subscribe', schedule };
}
