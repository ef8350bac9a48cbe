import { describe, expect, it } from 'vitest';
import {
  chartRange,
  describeSchedule,
  digestPeriod,
  latestDue,
  nextDue,
  parseDigestCommand,
} from '../../../../src/visitors/digest/schedule.js';

const at = (iso: string) => Date.parse(iso);

describe('parseDigestCommand', () => {
  it('reads show, off and schedules with UTC defaults', () => {
    expect(parseDigestCommand([])).toEqual({ kind: 'show' });
    expect(parseDigestCommand(['off'])).toEqual({ kind: 'off' });
    expect(parseDigestCommand(['weekly'])).toEqual({
      kind: 'subscribe',
      schedule: { cadence: 'weekly', hour: 9, minute: 0, weekday: 1 },
    });
    expect(parseDigestCommand(['weekly', 'fri', '16:30', 'utc'])).toEqual({
      kind: 'subscribe',
      schedule: { cadence: 'weekly', hour: 16, minute: 30, weekday: 5 },
    });
    expect(parseDigestCommand(['daily', '7:05'])).toEqual({
      kind: 'subscribe',
      schedule: { cadence: 'daily', hour: 7, minute: 5 },
    });
    expect(parseDigestCommand(['monthly'])).toMatchObject({ schedule: { cadence: 'monthly', hour: 9, minute: 0 } });
  });

  it('refuses what it does not understand, echoing it escaped', () => {
    expect(parseDigestCommand(['hourly'])).toMatchObject({ kind: 'invalid' });
    expect(parseDigestCommand(['daily', '25:00'])).toMatchObject({
      kind: 'invalid',
      problem: expect.stringContaining('25:00'),
    });
    expect(parseDigestCommand(['daily', 'monday'])).toMatchObject({ kind: 'invalid' });
    expect(parseDigestCommand(['weekly', '<!channel>'])).toMatchObject({
      problem: expect.stringContaining('&lt;!channel&gt;'),
    });
  });
});

describe('schedule arithmetic (UTC)', () => {
  const weekly = { cadence: 'weekly' as const, hour: 9, minute: 0, weekday: 1 };

  it('finds the latest scheduled instant, not before the subscription', () => {
    // 2026-11-23 is a Monday.
    expect(latestDue(weekly, at('2026-11-23T09:00:00Z'), 0)).toBe(at('2026-11-23T09:00:00Z'));
    expect(latestDue(weekly, at('2026-11-23T08:59:59Z'), 0)).toBe(at('2026-11-16T09:00:00Z'));
    expect(latestDue(weekly, at('2026-11-23T08:59:59Z'), at('2026-11-20T00:00:00Z'))).toBeUndefined();
    expect(latestDue({ cadence: 'monthly', hour: 9, minute: 0 }, at('2027-01-01T10:00:00Z'), 0)).toBe(
      at('2027-01-01T09:00:00Z'),
    );
  });

  it.each([
    ['daily', '2027-01-01T09:00:00Z', '2026-12-31', '2026-12-31'],
    ['weekly', '2026-11-23T09:00:00Z', '2026-11-16', '2026-11-22'],
    ['weekly', '2028-03-02T09:00:00Z', '2028-02-24', '2028-03-01'],
    ['monthly', '2028-03-01T09:00:00Z', '2028-02-01', '2028-02-29'],
    ['monthly', '2027-01-01T09:00:00Z', '2026-12-01', '2026-12-31'],
  ] as const)(
    'maps the %s instant %s to the closed period %s..%s (across month, year and leap days)',
    (cadence, instant, from, to) => {
      expect(digestPeriod({ cadence, hour: 9, minute: 0 }, at(instant))).toEqual({ from, to });
    },
  );

  it('charts a daily digest over the two weeks ending with its day', () => {
    expect(chartRange('daily', { from: '2027-01-01', to: '2027-01-01' })).toEqual({
      from: '2026-12-19',
      to: '2027-01-01',
    });
  });

  it('finds the next scheduled instant', () => {
    expect(nextDue(weekly, at('2026-11-23T09:00:00Z'))).toBe(at('2026-11-30T09:00:00Z'));
    expect(nextDue({ cadence: 'daily', hour: 7, minute: 30 }, at('2026-12-31T08:00:00Z'))).toBe(
      at('2027-01-01T07:30:00Z'),
    );
  });

  it('describes a schedule in words', () => {
    expect(describeSchedule(weekly)).toBe('weekly on Monday at 09:00 UTC');
    expect(describeSchedule({ cadence: 'monthly', hour: 7, minute: 5 })).toBe('monthly on the 1st at 07:05 UTC');
  });
});

describe("schedule arithmetic in the subscriber's zone", () => {
  const at = (iso: string) => Date.parse(iso);

  it('reads the time on the subscriber clock, and `utc` as UTC', () => {
    expect(parseDigestCommand(['daily', '08:00'], 'Pacific/Auckland')).toEqual({
      kind: 'subscribe',
      schedule: { cadence: 'daily', hour: 8, minute: 0, tz: 'Pacific/Auckland' },
    });
    expect(parseDigestCommand(['daily', '08:00', 'utc'], 'Pacific/Auckland')).toEqual({
      kind: 'subscribe',
      schedule: { cadence: 'daily', hour: 8, minute: 0 },
    });
  });

  it('runs at 09:00 local across the US DST change, reporting local days', () => {
    const daily = { cadence: 'daily', hour: 9, minute: 0, tz: 'America/Los_Angeles' } as const;
    expect(nextDue(daily, at('2026-10-31T17:00:00Z'))).toBe(at('2026-11-01T17:00:00Z')); // 09:00 PST
    expect(latestDue(daily, at('2026-11-01T16:59:00Z'), 0)).toBe(at('2026-10-31T16:00:00Z')); // 09:00 PDT
    expect(digestPeriod(daily, at('2026-11-02T17:00:00Z'))).toEqual({
      from: '2026-11-01',
      to: '2026-11-01',
      tz: 'America/Los_Angeles',
    });
    expect(describeSchedule(daily)).toBe('daily at 09:00 (America/Los_Angeles)');
  });

  it('runs at 09:00 local across the NZ DST changes, reporting the local week', () => {
    const weekly = { cadence: 'weekly', hour: 9, minute: 0, weekday: 1, tz: 'Pacific/Auckland' } as const;
    // Monday 28 Sep 2026 09:00 NZDT (+13), the first Monday after the clocks went forward.
    expect(nextDue(weekly, at('2026-09-25T00:00:00Z'))).toBe(at('2026-09-27T20:00:00Z'));
    expect(digestPeriod(weekly, at('2026-09-27T20:00:00Z'))).toEqual({
      from: '2026-09-21',
      to: '2026-09-27',
      tz: 'Pacific/Auckland',
    });
    // Monday 6 Apr 2026 09:00 NZST (+12), after the clocks went back.
    expect(nextDue(weekly, at('2026-04-03T00:00:00Z'))).toBe(at('2026-04-05T21:00:00Z'));
  });

  it('runs a time a DST gap skips across midnight when the clocks resume, covering its own day’s period', () => {
    // America/Nuuk, Saturday 28 Mar 2026: the clocks jump from 23:00 (-02) to 00:00 Sunday (-01), at 01:00Z.
    const tz = 'America/Nuuk';
    const daily = { cadence: 'daily', hour: 23, minute: 30, tz } as const;
    const resumed = at('2026-03-29T01:00:00Z');
    expect(nextDue(daily, at('2026-03-28T12:00:00Z'))).toBe(resumed);
    expect(nextDue(daily, resumed)).toBe(at('2026-03-30T00:30:00Z')); // Sunday 23:30 (-01)
    expect(latestDue(daily, resumed + 5_000, 0)).toBe(resumed);
    expect(latestDue(daily, at('2026-03-29T00:59:00Z'), 0)).toBe(at('2026-03-28T01:30:00Z')); // Friday 23:30
    // Saturday's digest, posted when the clocks resume: Friday, as at 23:30 on any Saturday; Sunday's is Saturday.
    expect(digestPeriod(daily, resumed)).toEqual({ from: '2026-03-27', to: '2026-03-27', tz });
    expect(digestPeriod(daily, at('2026-03-30T00:30:00Z'))).toEqual({ from: '2026-03-28', to: '2026-03-28', tz });
    const weekly = { cadence: 'weekly', hour: 23, minute: 30, weekday: 6, tz } as const;
    expect(nextDue(weekly, at('2026-03-25T12:00:00Z'))).toBe(resumed);
    expect(digestPeriod(weekly, resumed)).toEqual({ from: '2026-03-21', to: '2026-03-27', tz });
    // Berlin's gap is within the day: 02:30 runs at 03:00 the same day, as before.
    const berlin = { cadence: 'daily', hour: 2, minute: 30, tz: 'Europe/Berlin' } as const;
    expect(nextDue(berlin, at('2026-03-28T12:00:00Z'))).toBe(at('2026-03-29T01:00:00Z'));
    expect(latestDue(berlin, at('2026-03-29T01:00:00Z'), 0)).toBe(at('2026-03-29T01:00:00Z'));
    expect(digestPeriod(berlin, at('2026-03-29T01:00:00Z'))).toMatchObject({ from: '2026-03-28' });
  });

  it('runs a time the clocks pass twice once, the first time', () => {
    // Nuuk, Saturday 24 Oct 2026: the clocks go back from 00:00 Sunday (-01) to 23:00 Saturday (-02).
    const daily = { cadence: 'daily', hour: 23, minute: 30, tz: 'America/Nuuk' } as const;
    expect(nextDue(daily, at('2026-10-24T12:00:00Z'))).toBe(at('2026-10-25T00:30:00Z'));
    expect(nextDue(daily, at('2026-10-25T00:30:00Z'))).toBe(at('2026-10-26T01:30:00Z'));
  });
});
