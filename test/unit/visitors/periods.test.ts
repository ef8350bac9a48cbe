import { describe, expect, it } from 'vitest';
import { dayNumber } from '../../../src/visitors/days.js';
import {
  buckets,
  comparisonCut,
  granularityFor,
  isClosed,
  previousPeriod,
  serviceWindow,
} from '../../../src/visitors/periods.js';

const day = (iso: string) => dayNumber(iso) ?? Number.NaN;
const spans = (range: { from: string; to: string }, today = '2030-01-01') =>
  buckets(range, day(today)).buckets.map((b) => `${b.from}..${b.to}`);

describe('previousPeriod', () => {
  it('is the range of the same length ending the day before', () => {
    expect(previousPeriod({ from: '2026-11-16', to: '2026-11-22' })).toEqual({ from: '2026-11-09', to: '2026-11-15' });
    expect(previousPeriod({ from: '2026-11-22', to: '2026-11-22' })).toEqual({ from: '2026-11-21', to: '2026-11-21' });
  });

  it('crosses month and year ends', () => {
    expect(previousPeriod({ from: '2026-12-28', to: '2027-01-03' })).toEqual({ from: '2026-12-21', to: '2026-12-27' });
    expect(previousPeriod({ from: '2026-12-30', to: '2027-01-02' })).toEqual({ from: '2026-12-26', to: '2026-12-29' });
  });

  it('is the whole previous month for a whole month, whatever the lengths (leap days counted)', () => {
    expect(previousPeriod({ from: '2026-11-01', to: '2026-11-30' })).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(previousPeriod({ from: '2028-03-01', to: '2028-03-31' })).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(previousPeriod({ from: '2027-01-01', to: '2027-01-31' })).toEqual({ from: '2026-12-01', to: '2026-12-31' });
  });

  it('is the same days of the previous month for a month so far (up to its last day)', () => {
    expect(previousPeriod({ from: '2026-11-01', to: '2026-11-10' })).toEqual({ from: '2026-10-01', to: '2026-10-10' });
    expect(previousPeriod({ from: '2027-03-01', to: '2027-03-30' })).toEqual({ from: '2027-02-01', to: '2027-02-28' });
  });

  it('is the same weekdays of the week before for a week so far (Monday on)', () => {
    expect(previousPeriod({ from: '2026-11-23', to: '2026-11-25' })).toEqual({ from: '2026-11-16', to: '2026-11-18' });
  });

  it('is the day before for one day, a Monday or a 1st too (today, yesterday)', () => {
    expect(previousPeriod({ from: '2026-11-23', to: '2026-11-23' })).toEqual({ from: '2026-11-22', to: '2026-11-22' });
    expect(previousPeriod({ from: '2026-11-01', to: '2026-11-01' })).toEqual({ from: '2026-10-31', to: '2026-10-31' });
  });

  it('keeps the zone', () => {
    const tz = 'Pacific/Auckland';
    expect(previousPeriod({ from: '2026-11-01', to: '2026-11-10', tz })).toEqual({
      from: '2026-10-01',
      to: '2026-10-10',
      tz,
    });
  });
});

describe('buckets', () => {
  it('is daily up to 31 days, ISO-weekly up to 183, monthly beyond', () => {
    expect([31, 32, 183, 184, 366].map(granularityFor)).toEqual(['day', 'week', 'week', 'month', 'month']);
  });

  it('has one bucket per day for a month-and-year-end range, with a leap day', () => {
    expect(spans({ from: '2026-12-30', to: '2027-01-02' })).toEqual([
      '2026-12-30..2026-12-30',
      '2026-12-31..2026-12-31',
      '2027-01-01..2027-01-01',
      '2027-01-02..2027-01-02',
    ]);
    expect(spans({ from: '2028-02-28', to: '2028-03-01' })).toHaveLength(3);
  });

  it('splits into Monday–Sunday weeks, clipping the first and last to the range', () => {
    // 2026-12-03 is a Thursday; 2027-01-05 a Tuesday. The week of 28 Dec runs into the new year.
    const weeks = spans({ from: '2026-12-03', to: '2027-02-05' });
    expect(weeks[0]).toBe('2026-12-03..2026-12-06');
    expect(weeks[1]).toBe('2026-12-07..2026-12-13');
    expect(weeks).toContain('2026-12-28..2027-01-03');
    expect(weeks.at(-1)).toBe('2027-02-01..2027-02-05');
  });

  it('splits into calendar months, with February of a leap year', () => {
    const months = spans({ from: '2027-11-15', to: '2028-06-10' });
    expect(months[0]).toBe('2027-11-15..2027-11-30');
    expect(months).toContain('2027-12-01..2027-12-31');
    expect(months).toContain('2028-02-01..2028-02-29');
    expect(months.at(-1)).toBe('2028-06-01..2028-06-10');
  });

  it('covers every day exactly once and never needs more than 31 buckets', () => {
    for (let length = 1; length <= 366; length++) {
      const from = day('2027-12-20');
      const range = { from: '2027-12-20', to: new Date((from + length - 1) * 86_400_000).toISOString().slice(0, 10) };
      const all = buckets(range, day('2030-01-01')).buckets;
      expect(all.length).toBeLessThanOrEqual(31);
      let next = from;
      for (const b of all) {
        expect(day(b.from)).toBe(next);
        next = day(b.to) + 1;
      }
      expect(next - 1).toBe(day(range.to));
    }
  });

  it('marks closed, current and future buckets against today (UTC)', () => {
    const states = buckets({ from: '2026-11-20', to: '2026-11-24' }, day('2026-11-22')).buckets.map((b) => b.state);
    expect(states).toEqual(['closed', 'closed', 'current', 'future', 'future']);
    const weekly = buckets({ from: '2026-09-01', to: '2026-11-22' }, day('2026-11-22')).buckets;
    expect(weekly.at(-1)).toMatchObject({ from: '2026-11-16', to: '2026-11-22', state: 'current' });
    expect(isClosed({ from: '2026-11-01', to: '2026-11-21' }, day('2026-11-22'))).toBe(true);
    expect(isClosed({ from: '2026-11-01', to: '2026-11-22' }, day('2026-11-22'))).toBe(false);
  });
});

describe('comparisonCut: like with like', () => {
  it('cuts the previous period as far into it as now is into a running range', () => {
    const now = Date.parse('2026-11-22T15:30:20Z');
    // Today so far (15.5 hours) against yesterday's first 15.5 hours; the last 7 days against the 7 before.
    expect(comparisonCut({ from: '2026-11-22', to: '2026-11-22' }, now)).toBe(Date.parse('2026-11-21T15:30:00Z'));
    expect(comparisonCut({ from: '2026-11-16', to: '2026-11-22' }, now)).toBe(Date.parse('2026-11-15T15:30:00Z'));
    expect(serviceWindow({ from: '2026-11-21', to: '2026-11-21' }, Date.parse('2026-11-21T15:30:00Z'))).toEqual({
      dateFrom: '2026-11-21T00:00:00+00:00',
      dateTo: '2026-11-21T15:30:00+00:00',
    });
  });

  it('cuts this month on the 10th at noon at the previous month’s first 9½ days, this week at the same weekday', () => {
    expect(comparisonCut({ from: '2026-11-01', to: '2026-11-10' }, Date.parse('2026-11-10T12:00:00Z'))).toBe(
      Date.parse('2026-10-10T12:00:00Z'),
    );
    // Wednesday 10:00 against the Wednesday before at 10:00.
    expect(comparisonCut({ from: '2026-11-23', to: '2026-11-25' }, Date.parse('2026-11-25T10:00:00Z'))).toBe(
      Date.parse('2026-11-18T10:00:00Z'),
    );
  });

  it('never cuts the previous period past its own end (a longer day or month now than then)', () => {
    // 23:30 on 1 Nov 2026 in Los Angeles, a 25-hour day: 24.5 hours in, and 31 Oct had 24.
    const tz = 'America/Los_Angeles';
    const cut = comparisonCut({ from: '2026-11-01', to: '2026-11-01', tz }, Date.parse('2026-11-02T07:30:00Z'));
    expect(serviceWindow({ from: '2026-10-31', to: '2026-10-31', tz }, cut)).toEqual({
      dateFrom: '2026-10-31T00:00:00-07:00',
      dateTo: '2026-11-01T00:00:00-07:00',
    });
    // 31 March at noon: 30½ days into March, and February 2027 had 28.
    expect(comparisonCut({ from: '2027-03-01', to: '2027-03-31' }, Date.parse('2027-03-31T12:00:00Z'))).toBe(
      Date.parse('2027-03-01T00:00:00Z'),
    );
  });

  it('compares whole periods once the range has ended', () => {
    expect(comparisonCut({ from: '2026-11-21', to: '2026-11-21' }, Date.parse('2026-11-22T00:00:00Z'))).toBe(undefined);
  });

  it('counts hours in the zone, across its DST change', () => {
    const tz = 'Pacific/Auckland';
    const now = Date.parse('2026-09-27T20:00:00Z'); // 28 Sep 09:00 NZDT: 9 hours into today
    const cut = comparisonCut({ from: '2026-09-28', to: '2026-09-28', tz }, now) ?? 0;
    // 9 hours into 27 Sep, which lost an hour at 02:00: 10:00 on the clock.
    expect(serviceWindow({ from: '2026-09-27', to: '2026-09-27', tz }, cut)).toEqual({
      dateFrom: '2026-09-27T00:00:00+12:00',
      dateTo: '2026-09-27T10:00:00+13:00',
    });
  });
});
