import { describe, expect, it } from 'vitest';
import {
  commandFor,
  DEFAULT_ROWS,
  decodeQuery,
  encodeQuery,
  type ParsedCommand,
  parseVisitorsCommand,
  type ReportQuery,
} from '../../../src/visitors/date-range.js';
import { exclusiveEnd } from '../../../src/visitors/days.js';
import { serviceWindow } from '../../../src/visitors/periods.js';

const NOW = Date.parse('2026-11-22T15:30:00Z');
const at = (iso: string) => Date.parse(`${iso}T12:00:00Z`);

function range(text: string, now = NOW): { from: string; to: string; limit: number } {
  const parsed = parseVisitorsCommand(text, now);
  if (parsed.kind !== 'report') throw new Error(`expected a report for "${text}", got ${JSON.stringify(parsed)}`);
  expect(parsed.query.offset).toBe(0);
  const { from, to, limit } = parsed.query;
  return { from, to, limit };
}

function problem(text: string, now = NOW): string {
  const parsed: ParsedCommand = parseVisitorsCommand(text, now);
  if (parsed.kind !== 'invalid') throw new Error(`expected "${text}" to be refused, got ${JSON.stringify(parsed)}`);
  return parsed.problem;
}

/** Each text is refused with a problem that says the given words. */
function expectProblems(cases: Record<string, string>): void {
  for (const [text, words] of Object.entries(cases)) expect(problem(text), text).toContain(words);
}

describe('parseVisitorsCommand: presets', () => {
  it('defaults to the last 7 days including today, 10 rows', () => {
    expect(range('')).toEqual({ from: '2026-11-16', to: '2026-11-22', limit: DEFAULT_ROWS });
    expect(range('   ')).toEqual(range(''));
  });

  it('reads today, yesterday and Nd', () => {
    expect(range('today')).toMatchObject({ from: '2026-11-22', to: '2026-11-22' });
    expect(range('yesterday')).toMatchObject({ from: '2026-11-21', to: '2026-11-21' });
    expect(range('7d')).toMatchObject({ from: '2026-11-16', to: '2026-11-22' });
    expect(range('30d')).toMatchObject({ from: '2026-10-24', to: '2026-11-22' });
    expect(range('90d')).toMatchObject({ from: '2026-08-25', to: '2026-11-22' });
    expect(range('1d')).toMatchObject({ from: '2026-11-22', to: '2026-11-22' });
    expect(range('366d')).toMatchObject({ from: '2025-11-22', to: '2026-11-22' });
  });

  it('refuses Nd outside 1–366', () => {
    expect(problem('0d')).toContain('1d to 366d');
    expect(problem('367d')).toContain('1d to 366d');
    expect(problem('10000d')).toContain('1d to 366d');
    expect(problem('9999d')).toContain('366d');
  });

  it('is case-insensitive and ignores extra spaces', () => {
    expect(range('  Last   Month ')).toMatchObject({ from: '2026-10-01', to: '2026-10-31' });
    expect(range('TODAY')).toMatchObject({ from: '2026-11-22' });
  });

  it('uses UTC days whatever the hour', () => {
    expect(range('today', Date.parse('2026-11-22T23:59:59Z'))).toMatchObject({ from: '2026-11-22' });
    expect(range('today', Date.parse('2026-11-23T00:00:00Z'))).toMatchObject({ from: '2026-11-23' });
  });
});

describe('parseVisitorsCommand: weeks (Monday to Sunday)', () => {
  it('this week runs from Monday through today; last week is the whole week before', () => {
    expect(range('this week')).toMatchObject({ from: '2026-11-16', to: '2026-11-22' }); // a Sunday
    expect(range('last week')).toMatchObject({ from: '2026-11-09', to: '2026-11-15' });
    expect(range('this week', at('2026-11-23'))).toMatchObject({ from: '2026-11-23', to: '2026-11-23' }); // a Monday
    expect(range('last week', at('2027-01-01'))).toMatchObject({ from: '2026-12-21', to: '2026-12-27' });
  });

  it('is the person’s week: late Sunday in Los Angeles is already Monday in UTC', () => {
    const sundayEvening = Date.parse('2026-11-23T03:00:00Z');
    expect(parseVisitorsCommand('this week', sundayEvening, 'America/Los_Angeles')).toMatchObject({
      query: { from: '2026-11-16', to: '2026-11-22' },
    });
  });
});

describe('parseVisitorsCommand: months', () => {
  it('this month runs from the 1st through today; last month is the whole previous month', () => {
    expect(range('this month')).toMatchObject({ from: '2026-11-01', to: '2026-11-22' });
    expect(range('last month')).toMatchObject({ from: '2026-10-01', to: '2026-10-31' });
  });

  it('crosses the year in January and ends December on the 31st', () => {
    expect(range('this month', at('2027-01-15'))).toMatchObject({ from: '2027-01-01', to: '2027-01-15' });
    expect(range('last month', at('2027-01-15'))).toMatchObject({ from: '2026-12-01', to: '2026-12-31' });
    expect(range('this month', at('2026-12-31'))).toMatchObject({ from: '2026-12-01', to: '2026-12-31' });
    expect(range('last month', at('2026-12-31'))).toMatchObject({ from: '2026-11-01', to: '2026-11-30' });
  });

  it('knows February in leap and common years', () => {
    expect(range('last month', at('2024-03-10'))).toMatchObject({ from: '2024-02-01', to: '2024-02-29' });
    expect(range('last month', at('2025-03-01'))).toMatchObject({ from: '2025-02-01', to: '2025-02-28' });
    expect(range('this month', at('2024-02-29'))).toMatchObject({ from: '2024-02-01', to: '2024-02-29' });
  });

  it('this month on the 1st is one day', () => {
    expect(range('this month', at('2026-11-01'))).toMatchObject({ from: '2026-11-01', to: '2026-11-01' });
  });
});

describe('parseVisitorsCommand: explicit dates', () => {
  it('reads one day and inclusive ranges in every spelling', () => {
    expect(range('2026-11-01')).toMatchObject({ from: '2026-11-01', to: '2026-11-01' });
    const expected = { from: '2026-11-01', to: '2026-11-08' };
    expect(range('2026-11-01 2026-11-08')).toMatchObject(expected);
    expect(range('2026-11-01..2026-11-08')).toMatchObject(expected);
    expect(range('2026-11-01 .. 2026-11-08')).toMatchObject(expected);
    expect(range('2026-11-01 to 2026-11-08')).toMatchObject(expected);
  });

  it('allows a same-day range and a range reaching past today', () => {
    expect(range('2026-11-05 2026-11-05')).toMatchObject({ from: '2026-11-05', to: '2026-11-05' });
    expect(range('2026-11-20..2026-11-30')).toMatchObject({ from: '2026-11-20', to: '2026-11-30' });
  });

  it('accepts 29 February only in leap years', () => {
    expect(range('2024-02-29')).toMatchObject({ from: '2024-02-29', to: '2024-02-29' });
    expect(problem('2025-02-29')).toContain('not a date');
  });

  it('refuses malformed dates', () => {
    for (const text of ['2026-02-30', '2026-13-01', '2026-00-10', '2026-04-31', '2026-1-5', '2026-11-01..2026-11-31']) {
      expect(problem(text), text).toContain('not a date');
    }
  });

  it('refuses a start after the end', () => {
    expect(problem('2026-11-08 2026-11-01')).toContain('after the end');
    expect(problem('2026-11-08..2026-11-01')).toContain('after the end');
  });

  it('allows 366 days and refuses 367', () => {
    expect(range('2024-01-01..2024-12-31')).toMatchObject({ from: '2024-01-01', to: '2024-12-31' });
    expect(problem('2025-01-01..2026-01-02')).toContain('367 days');
  });

  it('refuses a range entirely in the future', () => {
    expect(problem('2026-11-23')).toContain('future');
    expect(problem('2027-01-01 2027-01-31')).toContain('future');
  });

  it('refuses more than two dates, two ranges, or dangling separators', () => {
    expectProblems({
      '2026-11-01 2026-11-02 2026-11-03': 'two dates',
      '7d 30d': 'one range',
      'today 2026-11-01': 'one range',
      '..2026-11-08': "don't understand",
      '2026-11-01..': "don't understand",
    });
  });
});

describe('parseVisitorsCommand: as phones and Slack write it', () => {
  it('reads the last N days, weeks, said in words', () => {
    const thirty = { from: '2026-10-24', to: '2026-11-22' };
    expect(range('last 30 days')).toMatchObject(thirty);
    expect(range('Past 30 Days')).toMatchObject(thirty);
    expect(range('30 days')).toMatchObject(thirty);
    expect(range('last 30d')).toMatchObject(thirty);
    expect(range('1 day')).toMatchObject({ from: '2026-11-22', to: '2026-11-22' });
    expect(range('last 2 weeks top 5')).toMatchObject({ from: '2026-11-09', to: '2026-11-22', limit: 5 });
    expect(range('last week')).toMatchObject({ from: '2026-11-09', to: '2026-11-15' });
  });

  it('refuses N days out of range, echoing the words', () => {
    expect(problem('last 0 days')).toBe('`last 0 days` is out of range: use 1d to 366d.');
    expect(problem('400 days')).toContain('`400 days` is out of range');
    expect(problem('last 60 weeks')).toContain('`last 60 weeks` is out of range');
    expect(problem('last 7 fortnights')).toContain("I don't understand");
  });

  it('reads smart dashes, quotes, Unicode hyphens and ellipses as typed', () => {
    const expected = { from: '2026-11-01', to: '2026-11-08' };
    for (const text of [
      '2026-11-01–2026-11-08',
      '2026-11-01—2026-11-08',
      '2026-11-01 — 2026-11-08',
      '2026-11-01-2026-11-08',
      '2026-11-01…2026-11-08',
      '2026-11-01...2026-11-08',
      '2026‐11‐01..2026‐11‐08',
      '“2026-11-01” ‘2026-11-08’',
      '"2026-11-01 to 2026-11-08"',
    ]) {
      expect(range(text), text).toMatchObject(expected);
    }
    expect(range('‘30d’')).toMatchObject({ from: '2026-10-24' });
  });

  it('reads --project that a phone turned into a dash', () => {
    for (const text of ['—project proj_b 30d', '–project proj_b 30d', '—project=proj_b 30d']) {
      const parsed = parseVisitorsCommand(text, NOW);
      expect(parsed.kind === 'report' && parsed.query, text).toMatchObject({ project: 'proj_b', from: '2026-10-24' });
    }
  });
});

describe('parseVisitorsCommand: options, help and nonsense', () => {
  it('reads top N anywhere, within 1–250', () => {
    expect(range('top 1')).toMatchObject({ limit: 1, from: '2026-11-16' });
    expect(range('30d top 250')).toMatchObject({ limit: 250, from: '2026-10-24' });
    expect(range('top 25 last month')).toMatchObject({ limit: 25, from: '2026-10-01' });
    expect(range('2026-11-01 2026-11-08 TOP 20')).toMatchObject({ limit: 20, to: '2026-11-08' });
  });

  it('refuses top out of bounds or without a number', () => {
    expectProblems({
      'top 0': 'between 1 and 250',
      'top 251': 'between 1 and 250',
      top: 'needs a number',
      'top ten': 'needs a number',
      'top -5': 'needs a number',
      'top 5 top 6': 'twice',
    });
  });

  it('answers help wherever it appears', () => {
    expect(parseVisitorsCommand('help', NOW)).toEqual({ kind: 'help' });
    expect(parseVisitorsCommand('HELP', NOW)).toEqual({ kind: 'help' });
    expect(parseVisitorsCommand('30d help', NOW)).toEqual({ kind: 'help' });
  });

  it('names an unknown word, escaped for mrkdwn', () => {
    expect(problem('banana')).toBe("I don't understand `banana`.");
    const tricky = problem('<!channel>');
    expect(tricky).not.toContain('<!channel>');
    expect(tricky).toContain('&lt;!channel&gt;');
    expect(problem('`x`')).not.toMatch(/`x`/);
    expect(problem('a'.repeat(500)).length).toBeLessThan(80);
  });
});

describe('button values', () => {
  const query: ReportQuery = { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 20 };

  it('round-trips as compact JSON', () => {
    const value = encodeQuery(query);
    expect(value).toBe('{"from":"2026-11-01","to":"2026-11-08","limit":10,"offset":20}');
    expect(value.length).toBeLessThan(2000);
    expect(decodeQuery(value, NOW)).toEqual(query);
  });

  it('refuses forged values', () => {
    const forged = (patch: Record<string, unknown>) => JSON.stringify({ ...query, ...patch });
    const values: unknown[] = [
      undefined,
      42,
      '',
      'not json',
      '{"from":',
      '[]',
      'null',
      `${encodeQuery(query)}${' '.repeat(2000)}`,
      forged({ limit: 0 }),
      forged({ limit: 251 }),
      forged({ limit: 2.5 }),
      forged({ limit: '10' }),
      forged({ offset: -1 }),
      forged({ offset: 1e9 }),
      forged({ offset: 0.5 }),
      forged({ from: '2026-02-30' }),
      forged({ from: '2026-13-01' }),
      forged({ to: 'yesterday' }),
      forged({ from: '2026-11-09' }),
      forged({ from: '2024-01-01', to: '2026-01-01' }),
      forged({ from: '2026-12-01', to: '2026-12-02' }),
      forged({ extra: 'x' }),
      JSON.stringify({ from: '2026-11-01', to: '2026-11-08', limit: 10 }),
    ];
    for (const value of values) expect(decodeQuery(value, NOW), String(value).slice(0, 80)).toBeUndefined();
  });
});

describe('helpers', () => {
  it('turns the inclusive end into the service’s exclusive dateTo', () => {
    expect(exclusiveEnd('2026-11-08')).toBe('2026-11-09');
    expect(exclusiveEnd('2024-02-28')).toBe('2024-02-29');
    expect(exclusiveEnd('2025-02-28')).toBe('2025-03-01');
    expect(exclusiveEnd('2026-12-31')).toBe('2027-01-01');
  });

  it('writes the command that shows a query again, and it parses back to the same range', () => {
    const query: ReportQuery = { from: '2026-11-01', to: '2026-11-08', limit: 25, offset: 50 };
    expect(commandFor(query)).toBe('/visitors 2026-11-01..2026-11-08 top 25');
    expect(commandFor({ ...query, to: '2026-11-01', limit: DEFAULT_ROWS })).toBe('/visitors 2026-11-01');
    expect(range(commandFor(query).replace('/visitors ', ''))).toEqual({
      from: '2026-11-01',
      to: '2026-11-08',
      limit: 25,
    });
  });
});

describe('parseVisitorsCommand: chart', () => {
  it('reads `chart` anywhere, also with --project, and keeps the range', () => {
    expect(parseVisitorsCommand('14d chart', NOW)).toEqual({
      kind: 'report',
      query: { from: '2026-11-09', to: '2026-11-22', limit: 10, offset: 0 },
      chart: true,
    });
    expect(parseVisitorsCommand('--project proj_b chart 2026-11-01 2026-11-08', NOW)).toEqual({
      kind: 'report',
      query: { from: '2026-11-01', to: '2026-11-08', limit: 10, offset: 0, project: 'proj_b' },
      chart: true,
    });
    expect(parseVisitorsCommand('30d', NOW)).not.toHaveProperty('chart');
  });
});

describe("parseVisitorsCommand: in the person's time zone, across DST changes", () => {
  /** The days and what the service is asked for `text` typed at `now` by someone in `tz`. */
  function zoned(text: string, now: string, tz: string) {
    const parsed = parseVisitorsCommand(text, Date.parse(now), tz);
    if (parsed.kind !== 'report') throw new Error(`expected a report for "${text}", got ${JSON.stringify(parsed)}`);
    const { from, to } = parsed.query;
    return { from, to, ...serviceWindow(parsed.query) };
  }

  /** The whole of what `zoned` returns: local days `from`..`to`, asked for as `dateFrom`..`dateTo`. */
  function span(from: string, to: string, dateFrom: string, dateTo: string) {
    return { from, to, dateFrom, dateTo };
  }

  it('Los Angeles on the night the clocks go back (1 Nov 2026): local days, a 25-hour window', () => {
    const now = '2026-11-02T05:00:00Z'; // 1 Nov 22:00 PST, already 2 Nov in UTC
    expect(zoned('today', now, 'America/Los_Angeles')).toEqual(
      span('2026-11-01', '2026-11-01', '2026-11-01T00:00:00-07:00', '2026-11-02T00:00:00-08:00'),
    );
    expect(zoned('yesterday', now, 'America/Los_Angeles')).toMatchObject({ from: '2026-10-31', to: '2026-10-31' });
    expect(zoned('', now, 'America/Los_Angeles')).toMatchObject({ from: '2026-10-26', to: '2026-11-01' });
  });

  it('Los Angeles on the last evening of October: this month and last month are local months', () => {
    const now = '2026-11-01T06:00:00Z'; // 31 Oct 23:00 PDT
    expect(zoned('this month', now, 'America/Los_Angeles')).toMatchObject({ from: '2026-10-01', to: '2026-10-31' });
    expect(zoned('last month', now, 'America/Los_Angeles')).toEqual(
      span('2026-09-01', '2026-09-30', '2026-09-01T00:00:00-07:00', '2026-10-01T00:00:00-07:00'),
    );
  });

  it('Auckland the morning after the clocks go forward (27 Sep 2026): yesterday is 23 hours', () => {
    const now = '2026-09-27T20:00:00Z'; // 28 Sep 09:00 NZDT, still 27 Sep in UTC
    expect(zoned('yesterday', now, 'Pacific/Auckland')).toEqual(
      span('2026-09-27', '2026-09-27', '2026-09-27T00:00:00+12:00', '2026-09-28T00:00:00+13:00'),
    );
    expect(zoned('today', now, 'Pacific/Auckland')).toMatchObject({ from: '2026-09-28', to: '2026-09-28' });
  });

  it('Auckland just after midnight following the clocks going back (5 Apr 2026): yesterday is 25 hours', () => {
    const now = '2026-04-05T12:30:00Z'; // 6 Apr 00:30 NZST
    expect(zoned('yesterday', now, 'Pacific/Auckland')).toEqual(
      span('2026-04-05', '2026-04-05', '2026-04-05T00:00:00+13:00', '2026-04-06T00:00:00+12:00'),
    );
    expect(zoned('this month', now, 'Pacific/Auckland')).toMatchObject({ from: '2026-04-01', to: '2026-04-06' });
  });

  it('reads month names as the latest such month where the person is, or the year given', () => {
    const now = '2026-10-31T12:00:00Z'; // 1 Nov 01:00 in Auckland, 31 Oct 05:00 in Los Angeles
    expect(zoned('november', now, 'Pacific/Auckland')).toMatchObject({ from: '2026-11-01', to: '2026-11-01' });
    expect(zoned('Nov', now, 'America/Los_Angeles')).toEqual(
      span('2025-11-01', '2025-11-30', '2025-11-01T00:00:00-07:00', '2025-12-01T00:00:00-08:00'),
    );
    expect(zoned('sept 2026', now, 'Pacific/Auckland')).toMatchObject({ from: '2026-09-01', to: '2026-09-30' });
    expect(zoned('october top 5', now, 'America/Los_Angeles')).toMatchObject({ from: '2026-10-01', to: '2026-10-31' });
    const future = parseVisitorsCommand('dec 2026', Date.parse(now), 'America/Los_Angeles');
    expect(future).toEqual({ kind: 'invalid', problem: expect.stringContaining('entirely in the future') });
  });

  it('keeps the zone in the button value and reads "today" in it again', () => {
    const parsed = parseVisitorsCommand('today', Date.parse('2026-09-27T20:00:00Z'), 'Pacific/Auckland');
    if (parsed.kind !== 'report') throw new Error('expected a report');
    expect(parsed.query.tz).toBe('Pacific/Auckland');
    // 28 Sep is not in the future in Auckland, though it is in UTC.
    expect(decodeQuery(encodeQuery(parsed.query), Date.parse('2026-09-27T20:00:00Z'))).toEqual(parsed.query);
    expect(
      decodeQuery(JSON.stringify({ ...parsed.query, tz: 'Mars/Olympus' }), Date.parse('2026-09-28T20:00:00Z')),
    ).toBe(undefined);
  });

  it('says which zone "today" is in when a range is in the future', () => {
    const parsed = parseVisitorsCommand('2026-09-29', Date.parse('2026-09-27T20:00:00Z'), 'Pacific/Auckland');
    expect(parsed).toEqual({
      kind: 'invalid',
      problem: expect.stringContaining('today is 2026-09-28 in Pacific/Auckland'),
    });
  });

  it('leaves the zone out for UTC and asks the service for plain days', () => {
    const parsed = parseVisitorsCommand('yesterday', NOW, 'UTC');
    if (parsed.kind !== 'report') throw new Error('expected a report');
    expect(parsed.query.tz).toBeUndefined();
    expect(serviceWindow(parsed.query)).toEqual({ dateFrom: '2026-11-21', dateTo: '2026-11-22' });
  });
});
