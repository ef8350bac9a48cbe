import { describe, expect, it } from 'vitest';
import { trendChart } from '../../../../src/visitors/chart/blocks.js';
import type { Trend } from '../../../../src/visitors/chart/trend.js';
import { dayNumber } from '../../../../src/visitors/days.js';
import { buckets } from '../../../../src/visitors/periods.js';
import { blockKitProblems } from '../../../../tools/slack-standin/index.js';

function trend(from: string, to: string, today: string): Trend {
  const all = buckets({ from, to }, dayNumber(today) ?? 0);
  return {
    range: { from, to },
    granularity: all.granularity,
    points: all.buckets.map((bucket, i) =>
      bucket.state === 'future' ? { bucket } : { bucket, counts: { human: 100 + i, ai: 20 + i, total: 110 + 2 * i } },
    ),
  };
}

describe('the chart drawn by Slack', () => {
  it('draws a line per series over the started days, labelled as the axis, within what Slack accepts', () => {
    const block = trendChart(trend('2026-11-09', '2026-11-24', '2026-11-22'));
    expect(block?.chart.axis_config.categories).toHaveLength(14); // the two future days are not drawn
    expect(block?.chart.axis_config.categories[0]).toBe('9 Nov 2026');
    expect(block?.chart.series.map((s) => s.name)).toEqual(['Total', 'Human', 'AI']);
    expect(block?.chart.series[0]?.data[0]).toEqual({ label: '9 Nov 2026', value: 110 });
    expect(blockKitProblems([block])).toEqual([]);
  });

  it('names the zone of its days on the x axis, as the picture does, within Slack’s 50 characters', () => {
    const day = trendChart(trend('2026-11-09', '2026-11-15', '2026-11-22'));
    expect(day?.chart.axis_config.x_label).toBe('Day (UTC)');
    const far = trend('2026-08-03', '2026-11-22', '2026-11-22');
    const weekly = trendChart({ ...far, range: { ...far.range, tz: 'America/Argentina/ComodRivadavia' } });
    expect(weekly?.chart.axis_config.x_label).toBe('Week starting (America/Argentina/ComodRivadavia)');
    expect(blockKitProblems([weekly])).toEqual([]);
  });

  it('labels months by month, and gives up past 20 points (a daily month) so the PNG is sent', () => {
    const yearly = trendChart(trend('2026-01-01', '2026-11-22', '2026-11-22'));
    expect(yearly?.title).toBe('Unique visitors per month');
    expect(yearly?.chart.axis_config.categories.slice(0, 2)).toEqual(['Jan 2026', 'Feb 2026']);
    expect(trendChart(trend('2026-10-23', '2026-11-22', '2026-11-22'))).toBeUndefined();
  });
});
