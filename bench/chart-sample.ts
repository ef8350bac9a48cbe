/**
 * `npm run chart:sample`: renders docs/visitors-chart.png with the app's own chart code, from the simulator's
 * data set (30 days ending on a fixed date, so the picture only changes when the chart code does).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chartSpec, renderChart } from '../src/visitors/chart/render.js';
import type { Trend } from '../src/visitors/chart/trend.js';
import { DAY_MS, dayNumber } from '../src/visitors/days.js';
import { buckets } from '../src/visitors/periods.js';
import { VisitorsDataSet } from '../tools/simulator/visitors-data.js';

const RANGE = { from: '2026-10-24', to: '2026-11-22' };
const TODAY = dayNumber(RANGE.to) ?? 0;
const OUT = fileURLToPath(new URL('../docs/visitors-chart.png', import.meta.url));

export function sampleTrend(range = RANGE, today = TODAY): Trend {
  const data = new VisitorsDataSet(300, 1);
  const { granularity, buckets: all } = buckets(range, today);
  const points = all.map((bucket) => {
    const from = (dayNumber(bucket.from) ?? 0) * DAY_MS;
    const to = ((dayNumber(bucket.to) ?? 0) + 1) * DAY_MS;
    return { bucket, counts: data.page(from, to, 1, 0).totals };
  });
  return { range, granularity, points };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const png = await renderChart(chartSpec(sampleTrend()));
  writeFileSync(OUT, png);
  console.log(`wrote ${OUT} (${png.length} bytes)`);
}
