import { describe, expect, it } from 'vitest';
import { dayNumber } from '../../src/visitors/days.js';
import { dayStart, isoWithOffset, isTimeZone, offsetMinutes, wallClock, zoneDay } from '../../src/zone.js';

const day = (iso: string) => dayNumber(iso) ?? Number.NaN;
const hours = (ms: number) => ms / 3_600_000;

describe('zone days', () => {
  it('knows IANA zones and refuses anything else', () => {
    expect(isTimeZone('Pacific/Auckland')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('reads the local day and offset at an instant', () => {
    const instant = Date.parse('2026-11-24T12:00:00Z');
    expect(zoneDay(instant, 'Pacific/Auckland')).toBe(day('2026-11-25'));
    expect(zoneDay(instant, 'America/Los_Angeles')).toBe(day('2026-11-24'));
    expect(offsetMinutes(instant, 'Pacific/Auckland')).toBe(13 * 60);
    expect(offsetMinutes(instant, 'America/Los_Angeles')).toBe(-8 * 60);
  });

  it('has 25-hour and 23-hour days where the clocks change (US 1 Nov, NZ 27 Sep and 5 Apr 2026)', () => {
    const length = (d: string, tz: string) => hours(dayStart(day(d) + 1, tz) - dayStart(day(d), tz));
    expect(length('2026-11-01', 'America/Los_Angeles')).toBe(25);
    expect(length('2026-09-27', 'Pacific/Auckland')).toBe(23);
    expect(length('2026-04-05', 'Pacific/Auckland')).toBe(25);
    expect(isoWithOffset(dayStart(day('2026-11-02'), 'America/Los_Angeles'), 'America/Los_Angeles')).toBe(
      '2026-11-02T00:00:00-08:00',
    );
  });

  it('starts a day whose midnight a DST gap skipped at the end of the gap', () => {
    // Santiago springs forward at 00:00 on 6 Sep 2026: the day begins at 01:00.
    expect(isoWithOffset(dayStart(day('2026-09-06'), 'America/Santiago'), 'America/Santiago')).toBe(
      '2026-09-06T01:00:00-03:00',
    );
  });

  it('reads the wall clock to the second, in the same second and the next, across a clock change', () => {
    // Los Angeles falls back at 09:00 UTC on 1 Nov 2026: 01:59:59 PDT, then 01:00:00 PST.
    const change = Date.parse('2026-11-01T09:00:00Z');
    const wall = (ms: number) => new Date(wallClock(ms, 'America/Los_Angeles')).toISOString();
    expect(wall(change - 1000)).toBe('2026-11-01T01:59:59.000Z');
    expect(wall(change - 1)).toBe('2026-11-01T01:59:59.000Z');
    expect(wall(change)).toBe('2026-11-01T01:00:00.000Z');
    expect(wall(change + 999)).toBe('2026-11-01T01:00:00.000Z');
    expect(wall(change - 1)).toBe('2026-11-01T01:59:59.000Z');
  });
});
