import { describe, expect, it } from 'vitest';
import { digestMessage } from '../../../src/visitors/digest.js';
import {
  chartRange,
  describeSchedule,
  digestPeriod,
  latestDue,
  nextDue,
  parseDigestCommand,
} from '../../../src/visitors/digest-schedule.js';
import { movers } from '../../../src/visitors/movers.js';

const at = (iso: string) => Date.parse(iso);
const row = (path: string, total: number) => ({ path, total, human: total, ai: 0 });

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

  it('maps a scheduled instant to the closed period it reports, across month, year and leap days', () => {
    expect(digestPeriod('daily', at('2027-01-01T09:00:00Z'))).toEqual({ from: '2026-12-31', to: '2026-12-31' });
    expect(digestPeriod('weekly', at('2026-11-23T09:00:00Z'))).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(digestPeriod('weekly', at('2028-03-02T09:00:00Z'))).toEqual({ from: '2028-02-24', to: '2028-03-01' });
    expect(digestPeriod('monthly', at('2028-03-01T09:00:00Z'))).toEqual({ from: '2028-02-01', to: '2028-02-29' });
    expect(digestPeriod('monthly', at('2027-01-01T09:00:00Z'))).toEqual({ from: '2026-12-01', to: '2026-12-31' });
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

describe('movers', () => {
  it('ranks the biggest rises and falls, counting a page missing from a complete list as 0', () => {
    const { risers, fallers } = movers(
      { rows: [row('/a', 500), row('/b', 90), row('/new', 40), row('/same', 10)], complete: true },
      { rows: [row('/a', 100), row('/b', 100), row('/gone', 300), row('/same', 10)], complete: true },
    );
    expect(risers.map((m) => [m.path, m.delta])).toEqual([
      ['/a', 400],
      ['/new', 40],
    ]);
    expect(fallers.map((m) => [m.path, m.delta])).toEqual([
      ['/gone', -300],
      ['/b', -10],
    ]);
  });

  it('leaves out pages missing from a capped list: they may just rank lower', () => {
    const { risers, fallers } = movers(
      { rows: [row('/a', 500), row('/new', 40)], complete: false },
      { rows: [row('/a', 100), row('/gone', 300)], complete: false },
    );
    expect(risers.map((m) => m.path)).toEqual(['/a']);
    expect(fallers).toEqual([]);
  });
});

describe('digestMessage', () => {
  const base = {
    cadence: 'weekly' as const,
    period: { from: '2026-11-16', to: '2026-11-22' },
    scheduleText: 'weekly on Monday at 09:00 UTC',
  };

  it('has totals with changes, top pages, movers and the schedule; says when the request cap was reached', () => {
    const message = digestMessage({
      ...base,
      current: { rows: [row('/a', 500), row('/b', 90)], totals: { human: 500, ai: 100, total: 550 }, complete: false },
      previous: { rows: [row('/a', 100), row('/b', 100)], totals: { human: 450, ai: 50, total: 500 }, complete: true },
    });
    const text = JSON.stringify(message.blocks);
    expect(text).toContain('Weekly visitors digest · 16–22 Nov 2026');
    expect(text).toContain('*Total visitors*\\n550  ▲ 10.0 %');
    expect(text).toContain('1. `/a` 500  ▲ 400.0 %');
    expect(text).toContain('▲ `/a` +400 (100 → 500)');
    expect(text).toContain('▼ `/b` −10 (100 → 90)');
    expect(text).toContain('the digest stops at 4 requests per period');
    expect(text).toContain('Compared with 9–15 Nov 2026');
    expect(message.text).toContain('550 visitors (▲ 10.0 %)');
  });

  it('has no cap note when both periods were read to the end', () => {
    const period = { rows: [row('/a', 1)], totals: { human: 1, ai: 0, total: 1 }, complete: true };
    expect(JSON.stringify(digestMessage({ ...base, current: period, previous: period }).blocks)).not.toContain(
      'stops at',
    );
  });
});
